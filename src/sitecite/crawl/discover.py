"""Which pages a site has: robots.txt rules, sitemaps (and sitemap indexes), and links.

Parsing only; fetching is `fetch.py`'s. Only http(s) URLs on the start URL's origin, without a
query string, are pages; fragments are dropped.
"""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlsplit
from urllib.robotparser import RobotFileParser

from sitecite.ingest.sitemap import sitemap_urls as sitemap_entries

__all__ = ["links", "origin", "page_url", "robots", "sitemap_entries"]

_SKIP_SUFFIXES = (
    ".xml",
    ".json",
    ".rss",
    ".atom",
    ".pdf",
    ".zip",
    ".gz",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".svg",
    ".webp",
    ".avif",
    ".ico",
    ".css",
    ".js",
    ".mjs",
    ".mp4",
    ".mp3",
    ".woff",
    ".woff2",
    ".txt",
)


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def page_url(base: str, href: str, site_origin: str) -> str | None:
    """`href` resolved against `base`, if it is a page of the site; else None."""
    url, _ = urldefrag(urljoin(base, href.strip()))
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or origin(url) != site_origin or parts.query:
        return None
    if parts.path.lower().endswith(_SKIP_SUFFIXES):
        return None
    return url if parts.path else f"{url}/"


def robots(text: str, url: str) -> RobotFileParser:
    """robots.txt rules; an empty text (no robots.txt) allows everything."""
    parser = RobotFileParser(url)
    parser.parse(text.splitlines())
    return parser


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []
        self.nofollow = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "a" and values.get("href") and "nofollow" not in (values.get("rel") or ""):
            self.hrefs.append(values["href"] or "")
        elif tag == "meta" and (values.get("name") or "").lower() == "robots":
            self.nofollow = "nofollow" in (values.get("content") or "").lower()


def links(page_html: str, base: str, site_origin: str) -> list[str]:
    """The site's own pages a page links to, in order, once each (none if it says nofollow)."""
    parser = _Links()
    parser.feed(page_html)
    if parser.nofollow:
        return []
    found = (page_url(base, href, site_origin) for href in parser.hrefs)
    return list(dict.fromkeys(url for url in found if url))
