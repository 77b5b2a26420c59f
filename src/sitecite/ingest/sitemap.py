"""The site's own map of what it publishes: a built output folder next to the sources, a
`sitemap.xml` (in that folder, a file the owner names, or fetched by `sitecite.crawl`).

A built folder says the most: each HTML file is a published page with its URL (its path, or
the sitemap's absolute URL for it), title, first heading, canonical link, heading ids and words.
A sitemap alone gives URLs only. `ingest.matching` matches the source pages to these entries.
"""

from __future__ import annotations

import gzip
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from sitecite.ingest.html import parse_html
from sitecite.ingest.webpage import built_path, is_built_site

# Where generators write their output (Jekyll, Eleventy, Hakyll, Quarto: _site; Hugo, Gatsby,
# Hexo, Zola: public; Astro, Vite: dist; Next.js export: out; Docusaurus: build; Pelican:
# output; MkDocs: site; Quarto's output-dir or GitHub Pages: docs). The last three also hold
# hand-written pages or sources on some sites: they count only when a generator made them.
OUTPUT_DIRS = ("_site", "public", "dist", "out", "build", "output", "site", "docs")
SHARED_NAMES = ("output", "site", "docs")
SITEMAP_NAMES = ("sitemap.xml", "sitemap-index.xml", "sitemap_index.xml", "sitemap-0.xml")
_SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
_WORD = re.compile(r"[^\W_]{3,}")
MAX_PAGES = 20000


@dataclass(frozen=True)
class Published:
    """One page the site publishes: its URL (absolute, or a path from the site's root) and, when
    its HTML is at hand, what it shows: `<title>`, first `<h1>`, canonical link, words, and the
    id of each heading (normalised heading text -> id; empty: the headings have none)."""

    url: str
    title: str = ""
    heading: str = ""
    canonical: str = ""
    words: frozenset[str] = frozenset()
    heading_ids: tuple[tuple[str, str], ...] = ()
    headings: int = 0  # h2-h6 the page shows (to tell "no ids" from "no headings")

    @property
    def path(self) -> str:
        return urlsplit(self.url).path or "/"


@dataclass
class SiteMap:
    """The published pages, and where the list came from (said in `sitecite index`'s output).

    `fetch_pages` (a live sitemap's) fetches the HTML of some of its URLs (url -> HTML), so
    pages its URLs alone do not match can be matched by what they show."""

    source: str
    entries: list[Published] = field(default_factory=list)
    folder: Path | None = None  # a built folder inside the sources: not read as content
    fetch_pages: Callable[[list[str]], dict[str, str]] | None = None

    def __bool__(self) -> bool:
        return bool(self.entries)


def words_of(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD.findall(text))


def normal(text: str) -> str:
    """Text compared loosely: lower case, words only."""
    return " ".join(re.findall(r"[^\W_]+", text.lower()))


def sitemap_urls(body: bytes | str) -> tuple[list[str], list[str]]:
    """(page URLs, nested sitemap URLs) of a sitemap or sitemap index; gzip is unpacked."""
    if isinstance(body, bytes) and body[:2] == b"\x1f\x8b":
        body = gzip.decompress(body)
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError:
        return [], []
    locations = [
        (element.text or "").strip()
        for element in root.iter()
        if element.tag in (f"{_SITEMAP_NS}loc", "loc")
    ]
    nested = root.tag in (f"{_SITEMAP_NS}sitemapindex", "sitemapindex")
    return ([], locations) if nested else (locations, [])


def published_html(html: str, url: str) -> Published:
    """A rendered page as a map entry."""
    parsed = parse_html(html)
    text = " ".join(f"{b.heading} {b.text}" for b in parsed.blocks)
    ids = tuple((normal(b.heading), b.anchor) for b in parsed.blocks if b.level > 1 and b.anchor)
    return Published(
        url,
        parsed.head_title,
        parsed.first_h1,
        urljoin(url, parsed.canonical) if parsed.canonical else "",
        words_of(text),
        ids,
        sum(1 for b in parsed.blocks if b.level > 1),
    )


def _local_sitemap(folder: Path) -> list[str]:
    """The page URLs of the sitemap(s) a built folder holds (an index's children too)."""
    urls: list[str] = []
    pending = [folder / name for name in SITEMAP_NAMES if (folder / name).is_file()]
    seen: set[Path] = set()
    while pending and len(seen) < 50:
        path = pending.pop(0)
        if path in seen:
            continue
        seen.add(path)
        pages, nested = sitemap_urls(path.read_bytes())
        urls += pages
        for child in nested:
            local = folder / urlsplit(child).path.lstrip("/")
            if local.is_file():
                pending.append(local)
    return urls


def built_map(folder: Path, label: str = "") -> SiteMap:
    """Every HTML page of a built folder, at its sitemap URL when the folder's sitemap lists it
    (a sitemap also says which pages are published: the others are left out), else its path."""
    listed = _local_sitemap(folder)
    by_path = {urlsplit(url).path: url for url in listed}
    entries = []
    for file in sorted(folder.rglob("*.htm*"))[:MAX_PAGES]:
        relative = file.relative_to(folder).as_posix()
        if file.suffix not in (".html", ".htm") or relative.startswith(("_", ".")):
            continue
        path = built_path(relative)
        url = (
            by_path.get(path)
            or by_path.get(path.removesuffix(".html"))
            or by_path.get(path.rstrip("/"))
        )
        if listed and url is None:
            continue  # not in the site's own sitemap: a redirect stub, a 404 page, a fragment
        try:
            html = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if re.search(r"<meta[^>]+http-equiv=[\"']refresh", html[:3000], re.I):
            continue  # a redirect page
        entries.append(published_html(html, url or path))
    what = f"built folder {label or folder.name}/" + (" and its sitemap" if listed else "")
    return SiteMap(what, entries, folder)


def sitemap_map(body: bytes | str, label: str) -> SiteMap:
    """A sitemap's URLs (no page text: matched by their paths)."""
    return SiteMap(label, [Published(url) for url in sitemap_urls(body)[0]])


def _is_output(folder: Path) -> bool:
    """A generator's output: an index.html at its top and no Markdown sources; in a folder
    whose name sources also use (`docs/`), a generator's mark too (`is_built_site`)."""
    if not (folder / "index.html").is_file():
        return False
    sources = (".md", ".mdx", ".markdown", ".qmd", ".rmd", ".rst", ".adoc", ".njk", ".liquid")
    files = []
    for count, file in enumerate(folder.rglob("*")):
        if file.suffix.lower() in sources:
            return False
        files.append(file)
        if count > 5000:
            break
    return folder.name not in SHARED_NAMES or is_built_site(folder, files)


def find_built_folder(root: Path, folders: tuple[str, ...] = ("",)) -> Path | None:
    """A built output folder next to the sources: in the site's folder, or in the folder a
    generator was found in (a site kept in `site/` builds into `site/dist/`)."""
    for folder in folders:
        base = root / folder if folder else root
        for name in OUTPUT_DIRS:
            candidate = base / name
            if candidate.is_dir() and _is_output(candidate):
                return candidate
    return None


def local_map(path: Path) -> SiteMap:
    """What `--sitemap FILE` names: a sitemap file, or a built folder."""
    if path.is_dir():
        return built_map(path, str(path))
    return sitemap_map(path.read_bytes(), f"sitemap {path}")
