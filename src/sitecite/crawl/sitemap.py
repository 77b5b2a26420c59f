"""A live site's sitemap, for matching a source folder's pages to the URLs the site publishes
(`ingest.matching`): `--sitemap URL`, or `/sitemap.xml` under `--base-url` when it answers.

A few requests, each with a short timeout: the sitemap robots.txt names, else `/sitemap.xml`
and its usual variants, and the sitemaps a sitemap index lists. A name reserved for examples
and tests (RFC 2606, RFC 6761: `.example`, `.test`, `.invalid`, `.localhost`, `example.com`)
is never asked for.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx

from sitecite.crawl.fetch import USER_AGENT
from sitecite.ingest.sitemap import Published, SiteMap, local_map, sitemap_urls

RESERVED = (".example", ".test", ".invalid", ".localhost", ".local")
RESERVED_HOSTS = ("example.com", "example.net", "example.org", "localhost")
GUESSES = ("sitemap.xml", "sitemap-index.xml", "sitemap_index.xml")
MAX_SITEMAPS = 50


def reserved(url: str) -> bool:
    """A host that is never a real site (RFC 2606 and RFC 6761 names)."""
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    return (
        host.endswith(RESERVED)
        or host in RESERVED_HOSTS
        or any(host.endswith("." + name) for name in RESERVED_HOSTS)
    )


def _is_sitemap_url(url: str) -> bool:
    path = urlsplit(url).path.lower()
    return path.endswith((".xml", ".xml.gz", ".gz"))


def fetch_site_map(
    address: str, timeout: float = 10.0, user_agent: str = "", per_second: float = 4.0
) -> tuple[SiteMap | None, str]:
    """The pages a live sitemap lists: `address` is a sitemap's URL, or a site's base URL
    whose sitemap is found (robots.txt, then `/sitemap.xml` and its variants). Returns the map
    (None when there is none) and what was tried, for the report."""
    headers = {"User-Agent": user_agent or USER_AGENT}
    with httpx.Client(headers=headers, timeout=timeout, follow_redirects=True) as client:
        if _is_sitemap_url(address):
            starts = [address]
        else:
            base = address.rstrip("/") + "/"
            starts = _robots_sitemaps(client, urljoin(base, "/robots.txt"))
            starts += [urljoin(base, name) for name in GUESSES if urljoin(base, name) not in starts]
        tried = []
        for start in starts:
            urls, problem = _read(client, start)
            if urls:
                entries = [Published(url) for url in dict.fromkeys(urls)]
                fetch = _page_fetcher(headers, timeout, per_second)
                return SiteMap(f"sitemap {start}", entries, None, fetch), f"read {start}"
            tried.append(f"{start}: {problem}")
    return None, "; ".join(tried)


def _page_fetcher(
    headers: dict[str, str], timeout: float, per_second: float
) -> Callable[[list[str]], dict[str, str]]:
    """Fetches pages one at a time, at most `per_second`; HTML pages only."""

    def fetch(urls: list[str]) -> dict[str, str]:
        pages = {}
        with httpx.Client(headers=headers, timeout=timeout, follow_redirects=True) as client:
            for url in urls:
                started = time.monotonic()
                try:
                    response = client.get(url)
                except httpx.HTTPError:
                    continue
                if response.status_code == 200 and "html" in response.headers.get(
                    "content-type", "html"
                ):
                    pages[url] = response.text
                time.sleep(max(0.0, 1.0 / per_second - (time.monotonic() - started)))
        return pages

    return fetch


def _robots_sitemaps(client: httpx.Client, url: str) -> list[str]:
    try:
        response = client.get(url)
    except httpx.HTTPError:
        return []
    if response.status_code != 200:
        return []
    return [
        line.split(":", 1)[1].strip()
        for line in response.text.splitlines()
        if line.lower().startswith("sitemap:") and ":" in line
    ]


def _read(client: httpx.Client, start: str) -> tuple[list[str], str]:
    """The page URLs of a sitemap, following a sitemap index; or why there are none."""
    pending, urls = [start], []
    seen: set[str] = set()
    problem = "no page URLs"
    while pending and len(seen) < MAX_SITEMAPS:
        url = pending.pop(0)
        if url in seen:
            continue
        seen.add(url)
        try:
            response = client.get(url)
        except httpx.HTTPError as exc:
            problem = f"{type(exc).__name__}"
            continue
        if response.status_code != 200:
            problem = f"HTTP {response.status_code}"
            continue
        pages, nested = sitemap_urls(response.content)
        if not pages and not nested:
            problem = "not a sitemap"
        urls += pages
        pending += nested
    return urls, problem


def given_site_map(
    setting: str, user_agent: str = "", per_second: float = 4.0
) -> tuple[SiteMap | None, list[str]]:
    """The map `--sitemap` (`index.sitemap`) names: a sitemap URL, a sitemap file or a built
    folder; None for "" (looked for while reading) and "none". A map that cannot be read is a
    warning, and the site is routed without it."""
    if setting in ("", "none"):
        return None, []
    if setting.startswith(("http://", "https://")):
        found, tried = fetch_site_map(setting, user_agent=user_agent, per_second=per_second)
        return found, [] if found else [f"warning: --sitemap {setting}: nothing read ({tried})"]
    path = Path(setting)
    if not path.exists():
        return None, [f"warning: --sitemap {setting}: no such file or folder"]
    found = local_map(path)
    return found, [] if found else [f"warning: --sitemap {setting}: it lists no pages"]


def live_site_map(
    base_url: str, user_agent: str = "", per_second: float = 4.0
) -> Callable[[], tuple[SiteMap | None, str]] | None:
    """What reading a folder calls when it finds no built folder: the live sitemap under the
    site's base URL (None when there is no base URL, or it is a reserved name)."""
    if not base_url.startswith(("http://", "https://")) or reserved(base_url):
        return None

    def fetch() -> tuple[SiteMap | None, str]:
        return fetch_site_map(base_url, user_agent=user_agent, per_second=per_second)

    return fetch
