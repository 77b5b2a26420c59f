"""Polite HTTP: one User-Agent that says who is asking, a cap on requests in flight, a rate
limit (or the site's Crawl-delay, whichever is slower) and conditional GET, so a page that
has not changed since the last crawl costs a 304 and nothing else."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import httpx

from sitecite import __version__

USER_AGENT = (
    f"sitecite/{__version__} (indexes a site for its owner's ask box; "
    "+https://pypi.org/project/sitecite/)"
)


@dataclass(frozen=True)
class Fetched:
    """One response: status 304 means unchanged since the validators sent."""

    url: str
    status: int
    text: str = ""
    etag: str = ""
    last_modified: str = ""
    content_type: str = ""
    error: str = ""
    raw: bytes = b""

    @property
    def is_html(self) -> bool:
        return "html" in self.content_type or (
            not self.content_type and "<html" in self.text[:500].lower()
        )


class Fetcher:
    """An httpx client with a concurrency cap and a minimum interval between requests."""

    def __init__(
        self,
        concurrency: int = 4,
        per_second: float = 4.0,
        timeout: float = 20.0,
        user_agent: str = "",
    ) -> None:
        self.client = httpx.AsyncClient(
            headers={"User-Agent": user_agent or USER_AGENT},
            timeout=timeout,
            follow_redirects=True,
        )
        self._slots = asyncio.Semaphore(concurrency)
        self.interval = 1.0 / per_second
        self._next = 0.0
        self._lock = asyncio.Lock()
        self.requests = 0

    def slow_down(self, seconds: float) -> None:
        """Honour a robots.txt Crawl-delay longer than our own interval."""
        self.interval = max(self.interval, seconds)

    async def _wait_turn(self) -> None:
        async with self._lock:
            now = time.monotonic()
            wait = self._next - now
            self._next = max(now, self._next) + self.interval
        if wait > 0:
            await asyncio.sleep(wait)

    async def get(self, url: str, etag: str = "", last_modified: str = "") -> Fetched:
        """GET `url`, conditionally when validators from the last crawl are given."""
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        async with self._slots:
            await self._wait_turn()
            self.requests += 1
            try:
                response = await self.client.get(url, headers=headers)
            except httpx.HTTPError as exc:
                return Fetched(url, 0, error=f"{type(exc).__name__}: {exc}")
        return Fetched(
            str(response.url),
            response.status_code,
            response.text if response.status_code == 200 else "",
            response.headers.get("etag", ""),
            response.headers.get("last-modified", ""),
            response.headers.get("content-type", ""),
            raw=response.content if response.status_code == 200 else b"",
        )

    async def close(self) -> None:
        await self.client.aclose()
