"""Rendered web pages (a built site's folder, or pages fetched from a live site) to Pages.

A rendered page wraps its content in the site's header, navigation, sidebars and footer;
readability-lxml finds the main content. It was picked over trafilatura and selectolax on the
example site rendered to HTML (`python bench/extraction.py`): it keeps the headings' `id`s,
so citations land on the heading, and tables and lists as HTML, with the best recall, and it
is light (lxml). It is an optional dependency: the `web` extra.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urljoin

from sitecite.errors import IngestError
from sitecite.ingest.html import parse_html
from sitecite.types import Page

WEB_EXTRA = "pip install 'sitecite[web]' (readability-lxml)"
BUILT_SITE_DIRS = ("out", "public", "_site", "dist", "build")


def _readability() -> Any:
    try:
        from readability import Document
    except ImportError as exc:
        raise IngestError(
            f"reading rendered web pages needs readability-lxml: {WEB_EXTRA}"
        ) from exc
    return Document


def main_content(page_html: str) -> str:
    """The HTML of the page's main content (readability-lxml), headings' ids intact."""
    document = _readability()(page_html)
    try:
        return str(document.summary(html_partial=True))
    except Exception as exc:  # readability raises its own Unparseable and lxml errors
        raise IngestError(f"cannot find the main content of the page ({exc})") from exc


def built_path(relative: str) -> str:
    """A built site's file to the path it is served at: `uses/index.html` -> `/uses/`."""
    path = PurePosixPath(relative)
    if path.name in ("index.html", "index.htm"):
        parent = path.parent.as_posix()
        return "/" if parent == "." else f"/{parent}/"
    return f"/{path.as_posix()}"


def webpage(page_html: str, source: str, pid: str, url: str) -> Page:
    """A rendered page: its main content as blocks, titled by its h1 (else its <title>).

    `url` is where the page was found; a `<link rel="canonical">` replaces it."""
    whole = parse_html(page_html)
    content = parse_html(main_content(page_html))
    title = content.first_h1 or whole.first_h1 or whole.title
    # a rendered page's headings have the ids its HTML gives them, or none
    metadata: dict[str, object] = {"head_title": whole.head_title, "heading_ids": "explicit"}
    if content.first_h1:
        metadata["first_h1"] = content.first_h1
    address = urljoin(url, whole.canonical) if whole.canonical else url
    return Page(pid, source, title, address, tuple(content.blocks), "page", metadata)


_GENERATED = ("_next", "_astro", "_nuxt", "_gatsby", "page-data", "_app")


def is_built_site(root: Path, files: list[Path]) -> bool:
    """A generator's output folder: named like one, or HTML with an index.html and no Markdown
    that says a generator made it (its `<meta name="generator">`, a framework's asset folder).
    A hand-written HTML site is a source folder: its pages are read whole."""
    if root.name in BUILT_SITE_DIRS and any(f.suffix in (".html", ".htm") for f in files):
        return True
    markdown = any(f.suffix in (".md", ".mdx", ".markdown") for f in files)
    index = root / "index.html"
    if markdown or not index.is_file():
        return False
    if any((root / name).is_dir() for name in _GENERATED):
        return True
    try:
        head = index.read_text(encoding="utf-8", errors="replace")[:20000]
    except OSError:
        return False
    return bool(re.search(r"<meta[^>]+name=[\"']generator[\"']", head, re.I))
