"""Crawl a live site: robots.txt, then its sitemaps, else the links from the start page.

Each page is fetched with the validators of the last crawl (ETag, Last-Modified): a 304 costs
nothing and the caller reuses the page's sections. Pages are read by main-content extraction
(`ingest.webpage`) and keep the site's real URLs and heading ids.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

from sitecite.crawl.discover import links, origin, page_url, robots, sitemap_entries
from sitecite.crawl.fetch import Fetched, Fetcher
from sitecite.errors import IngestError
from sitecite.ingest import page_id
from sitecite.ingest.webpage import webpage
from sitecite.types import Page

MAX_SITEMAPS = 50


@dataclass(frozen=True)
class CrawlRecord:
    """What the next crawl needs about a page: its validators, its page id, its links."""

    page_id: str
    etag: str = ""
    last_modified: str = ""
    links: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "page_id": self.page_id,
            "etag": self.etag,
            "last_modified": self.last_modified,
            "links": list(self.links),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CrawlRecord:
        return cls(
            str(data.get("page_id", "")),
            str(data.get("etag", "")),
            str(data.get("last_modified", "")),
            tuple(data.get("links", ())),
        )


@dataclass
class CrawlResult:
    """Changed pages (parsed), unchanged ones (304: reuse), and what went wrong where."""

    start_url: str
    discovered_by: str = ""
    changed: list[Page] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)  # page ids
    records: dict[str, CrawlRecord] = field(default_factory=dict)
    problems: list[IngestError] = field(default_factory=list)
    requests: int = 0

    @property
    def fetched_pages(self) -> int:
        return len(self.changed)


@dataclass
class CrawlOptions:
    concurrency: int = 4
    per_second: float = 4.0
    timeout: float = 20.0
    max_pages: int = 2000
    user_agent: str = ""


def url_page_id(url: str) -> str:
    """A page's id from its URL path: `/notes/dark-mode/` -> `notes/dark-mode`, `/` -> `index`."""
    path = urlsplit(url).path.strip("/")
    return page_id(path) if path else "index"


def crawl(
    start_url: str,
    previous: dict[str, CrawlRecord],
    options: CrawlOptions,
    on_page: Callable[[int, int], None] | None = None,
) -> CrawlResult:
    """Crawl the site at `start_url`; `on_page(done, total)` reports progress."""
    return asyncio.run(_crawl(start_url, previous, options, on_page))


async def _crawl(
    start_url: str,
    previous: dict[str, CrawlRecord],
    options: CrawlOptions,
    on_page: Callable[[int, int], None] | None,
) -> CrawlResult:
    fetcher = Fetcher(options.concurrency, options.per_second, options.timeout, options.user_agent)
    result = CrawlResult(start_url)
    try:
        rules = await _robots(fetcher, start_url)
        delay = rules.crawl_delay(fetcher.client.headers["User-Agent"])
        if delay:
            fetcher.slow_down(float(delay))
        urls = await _from_sitemaps(fetcher, start_url, rules)
        result.discovered_by = "sitemap" if urls else "links"
        allowed = [u for u in urls if rules.can_fetch(fetcher.client.headers["User-Agent"], u)]
        state = _Crawl(fetcher, rules, previous, options, result, on_page, follow=not urls)
        await state.run(
            allowed[: options.max_pages]
            or [page_url(start_url, "", origin(start_url)) or start_url]
        )
    finally:
        result.requests = fetcher.requests
        await fetcher.close()
    return result


async def _robots(fetcher: Fetcher, start_url: str) -> RobotFileParser:
    """The site's robots.txt; none (4xx) allows everything, an unreachable one (5xx, network
    error) allows nothing, as RFC 9309 asks."""
    url = urljoin(origin(start_url), "/robots.txt")
    fetched = await fetcher.get(url)
    if fetched.status == 0 or fetched.status >= 500:
        return robots("User-agent: *\nDisallow: /\n", url)
    return robots(fetched.text if fetched.status == 200 else "", url)


async def _from_sitemaps(fetcher: Fetcher, start_url: str, rules: RobotFileParser) -> list[str]:
    """Page URLs of the site's sitemaps (robots.txt's, else /sitemap.xml), indexes followed."""
    site = origin(start_url)
    queue = list(rules.site_maps() or []) or [urljoin(site, "/sitemap.xml")]
    seen: set[str] = set()
    pages: list[str] = []
    while queue and len(seen) < MAX_SITEMAPS:
        sitemap = queue.pop(0)
        if sitemap in seen:
            continue
        seen.add(sitemap)
        fetched = await fetcher.get(sitemap)
        if fetched.status != 200:
            continue
        found, nested = sitemap_entries(fetched.raw)
        queue.extend(nested)
        pages.extend(url for u in found if (url := page_url(site, u, site)))
    return list(dict.fromkeys(pages))


@dataclass
class _Crawl:
    fetcher: Fetcher
    rules: RobotFileParser
    previous: dict[str, CrawlRecord]
    options: CrawlOptions
    result: CrawlResult
    on_page: Callable[[int, int], None] | None
    follow: bool
    done: int = 0
    queued: set[str] = field(default_factory=set)

    async def run(self, urls: list[str]) -> None:
        self.queued.update(urls)
        await asyncio.gather(*(self.visit(url) for url in urls))

    async def visit(self, url: str) -> None:
        record = self.previous.get(url)
        fetched = await self.fetcher.get(
            url, *(record.etag, record.last_modified) if record else ()
        )
        outgoing = self.read(url, fetched, record)
        self.done += 1
        if self.on_page is not None:
            self.on_page(self.done, len(self.queued))
        if self.follow:
            agent = self.fetcher.client.headers["User-Agent"]
            fresh = [
                u for u in outgoing if u not in self.queued and self.rules.can_fetch(agent, u)
            ][: max(0, self.options.max_pages - len(self.queued))]
            if fresh:
                await self.run(fresh)

    def read(self, url: str, fetched: Fetched, record: CrawlRecord | None) -> tuple[str, ...]:
        """File the response; returns the page's links (from the last crawl on a 304)."""
        site = origin(self.result.start_url)
        if fetched.status == 304 and record is not None:
            self.result.unchanged.append(record.page_id)
            self.result.records[url] = record
            return record.links
        if fetched.status != 200 or not fetched.is_html:
            if fetched.status not in (404, 410) and fetched.status != 200:
                reason = fetched.error or f"HTTP {fetched.status}"
                self.result.problems.append(IngestError(f"not fetched ({reason})", url))
                if record is not None:  # a passing failure must not lose the page
                    self.result.unchanged.append(record.page_id)
                    self.result.records[url] = record
            return ()
        outgoing = tuple(links(fetched.text, fetched.url, site))
        pid = url_page_id(url)
        try:
            page = webpage(fetched.text, url, pid, url)
        except IngestError as problem:
            self.result.problems.append(IngestError(problem.reason, url))
            return outgoing
        self.result.records[url] = CrawlRecord(pid, fetched.etag, fetched.last_modified, outgoing)
        if page.blocks:
            self.result.changed.append(page)
        return outgoing
