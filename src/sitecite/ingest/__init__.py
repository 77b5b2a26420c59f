"""Ingestion: a content directory -> pages -> sections. Pure: reads files, embeds nothing.

One bad file never stops the others: its problem is collected (file and line) and
the file is skipped; the caller decides whether problems are fatal (`--strict`).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from sitecite.errors import IngestError
from sitecite.ingest.chunk import CHUNKER_VERSION, chunk_page
from sitecite.ingest.data import (
    FACTS_PAGE_ID,
    NOT_CONTENT,
    collection_blocks,
    facts_blocks,
    load_data,
)
from sitecite.ingest.html import parse_html
from sitecite.ingest.identity import Identity, with_identity
from sitecite.ingest.ids import heading_anchors, page_id, slugify
from sitecite.ingest.markdown import markdown_blocks, split_frontmatter
from sitecite.ingest.mdx import convert_mdx
from sitecite.ingest.retention import FileReport, file_report
from sitecite.ingest.routes import Router, join_url
from sitecite.ingest.webpage import built_path, is_built_site, webpage
from sitecite.types import Block, Page, Section

__all__ = [
    "CHUNKER_VERSION",
    "IngestResult",
    "Progress",
    "Router",
    "load_site",
    "parse_file",
    "page_id",
    "slugify",
]

MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdx"}
HTML_SUFFIXES = {".html", ".htm"}
DATA_SUFFIXES = {".json", ".yaml", ".yml"}
# Output folders are skipped inside a source tree; given as the content folder, they are read.
SKIP_DIRS = {
    "node_modules",
    ".git",
    "__pycache__",
    ".next",
    "dist",
    "build",
    "public",
    "out",
    "_site",
}


class Progress(Protocol):
    """Progress callbacks for long work; the CLI draws them as rich progress bars."""

    def start(self, description: str, total: int) -> None: ...

    def advance(self, amount: int) -> None: ...


@dataclass
class IngestResult:
    pages: list[Page] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    problems: list[IngestError] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    files: list[FileReport] = field(default_factory=list)
    warnings: list[IngestError] = field(default_factory=list)
    router: Router = field(default_factory=Router)
    built_site: bool = False  # a generator's output: pages read by main-content extraction
    identity: Identity = field(default_factory=Identity)


def content_files(root: Path) -> list[Path]:
    """Every file sitecite can ingest under root, in a stable order."""
    files = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS)
        for name in sorted(filenames):
            path = Path(directory) / name
            suffix = path.suffix.lower()
            if name.startswith(".") or name in NOT_CONTENT:
                continue
            if suffix in MARKDOWN_SUFFIXES | HTML_SUFFIXES | DATA_SUFFIXES:
                files.append(path)
    return files


def read_text(path: Path, relative: str) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"cannot read file ({exc.strerror})", relative) from exc
    try:
        return raw.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise IngestError(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", relative, line) from exc


def parse_file(path: Path, relative: str, router: Router | None = None) -> list[Page]:
    """One file -> its page(s). Raises IngestError naming the file and line."""
    return parse_source(read_text(path, relative), relative, router or Router())


def parse_source(source: str, relative: str, router: Router, built: bool = False) -> list[Page]:
    """A file's text -> its page(s); the suffix of `relative` says how to read it. Pages of a
    built site are rendered pages: their main content is extracted, their URL is their path."""
    suffix = Path(relative).suffix.lower()
    pid = page_id(relative)
    if suffix in MARKDOWN_SUFFIXES:
        return [_markdown_page(source, relative, pid, router, mdx=suffix == ".mdx")]
    if suffix in HTML_SUFFIXES and built:
        page = webpage(source, relative, pid, join_url(router.base_url, built_path(relative)))
        return [page] if page.blocks else []
    if suffix in HTML_SUFFIXES:
        parsed = parse_html(source)
        url = router.url(pid, {"canonical": parsed.canonical})
        metadata = {"first_h1": parsed.first_h1} if parsed.first_h1 else {}
        title = parsed.title or _title_from(pid)
        return [Page(pid, relative, title, url, tuple(parsed.blocks), "page", metadata)]
    data = load_data(source, relative)
    if isinstance(data, dict):
        title, blocks = facts_blocks(data, relative)
        return [Page(FACTS_PAGE_ID, relative, title, "", tuple(blocks), "facts", {})]
    if isinstance(data, list):
        records = tuple(collection_blocks(data, relative))
        return [Page(pid, relative, _title_from(pid), router.url(pid), records, "data", {})]
    raise IngestError(
        "a data file must hold a mapping (profile facts) or a list of records", relative
    )


def _markdown_page(source: str, relative: str, pid: str, router: Router, mdx: bool) -> Page:
    front, body, offset = split_frontmatter(source, relative)
    exported: dict[str, str] = {}
    if mdx:
        document = convert_mdx(body, relative)
        body, exported = document.markdown, document.metadata
    blocks, extra = markdown_blocks(body, str(front.get("title", "")), offset, mdx=mdx)
    blocks = heading_anchors(blocks, str(extra["first_h1"]), router.anchor_style)
    # Front matter, then the page's h1, then `export const metadata` (what <title> shows).
    named = front.get("title") or extra["first_h1"] or exported.get("title") or front.get("name")
    headings = [b.heading for b in blocks if b.level]
    title = str(named or (headings[0] if headings else "") or _title_from(pid))
    described = {**exported, **front}  # exported metadata fills in, never overrides
    summary = described.get("summary") or described.get("description") or ""
    metadata = {
        **described,
        "title": title,
        "summary": summary,
        "first_h1": extra["first_h1"],
        "code_blocks": extra["code_blocks"],
    }
    return Page(pid, relative, title, router.url(pid, described), tuple(blocks), "page", metadata)


def _title_from(pid: str) -> str:
    """Only for pages with no title, no h1 and no <title>: data collections, bare fragments."""
    stem = pid.rsplit("/", 1)[-1] or pid
    return stem.replace("-", " ").replace("_", " ").strip().capitalize()


def _merge_facts(pages: list[Page]) -> list[Page]:
    """All profile-data files share the page id `_facts`; merge them into one page."""
    facts = [p for p in pages if p.id == FACTS_PAGE_ID]
    if len(facts) <= 1:
        return pages
    blocks: list[Block] = [b for p in facts for b in p.blocks]
    merged = Page(
        FACTS_PAGE_ID,
        ", ".join(p.source for p in facts),
        facts[0].title,
        "",
        tuple(blocks),
        "facts",
        {},
    )
    return [p for p in pages if p.id != FACTS_PAGE_ID] + [merged]


def load_site(
    root: str | Path,
    base_url: str = "",
    route: str = "{page_id}",
    *,
    routes: Sequence[str] = (),
    presets: bool = True,
    progress: Progress | None = None,
) -> IngestResult:
    """Ingest every content file under root; collect problems instead of stopping.

    URLs follow `routes`, then the presets detected in root (unless `presets` is False), then
    `route`. Every Markdown and HTML file gets a FileReport of the prose it kept."""
    root = Path(root)
    if not root.is_dir():
        raise IngestError("content directory not found", str(root))
    files = content_files(root)
    built = is_built_site(root, files)
    router = Router.from_settings(base_url, routes, route, root, presets and not built)
    result = IngestResult(router=router, built_site=built)
    if progress is not None:
        progress.start(f"reading {len(files)} files", len(files))
    sources: dict[str, str] = {}
    pages: list[Page] = []
    for path in files:
        relative = path.relative_to(root).as_posix()
        try:
            sources[relative] = read_text(path, relative)
            pages += parse_source(sources[relative], relative, router, built)
        except IngestError as problem:
            result.problems.append(problem)
        if progress is not None:
            progress.advance(1)
    result.pages, result.identity = with_identity(_merge_facts(_published(pages, result)))
    for page in result.pages:
        result.sections.extend(chunk_page(page, base_url))
    if not built:  # a rendered page's chrome is not prose it was meant to keep
        result.files = retention_reports(result.pages, result.sections, sources)
    result.warnings = [w for r in result.files if (w := r.warning()) is not None]
    return result


def _published(pages: list[Page], result: IngestResult) -> list[Page]:
    """Pages without drafts (skipped) and without a second page claiming the same id."""
    seen: dict[str, str] = {}
    kept = []
    for page in pages:
        if page.metadata.get("draft") is True:
            result.skipped.append(f"{page.source}: a draft (front matter draft: true)")
        elif page.id != FACTS_PAGE_ID and page.id in seen:
            message = f"page id '{page.id}' is already used by {seen[page.id]}"
            result.problems.append(IngestError(message, page.source))
        else:
            seen[page.id] = page.source
            kept.append(page)
    return kept


def retention_reports(
    pages: Sequence[Page], sections: Sequence[Section], sources: dict[str, str]
) -> list[FileReport]:
    """Words read against words indexed, for every Markdown and HTML page."""
    indexed: dict[str, list[str]] = defaultdict(list)
    for section in sections:
        indexed[str(section.metadata.get("source"))] += [section.heading, section.text]
    reports = []
    for page in pages:
        markup = _markup(page.source)
        if markup and page.source in sources:
            texts = [page.title, *indexed[page.source]]
            reports.append(file_report(page.source, sources[page.source], markup, texts))
    return reports


def _markup(relative: str) -> str:
    suffix = Path(relative).suffix.lower()
    if suffix in HTML_SUFFIXES:
        return "html"
    return {".mdx": "mdx", ".md": "markdown", ".markdown": "markdown"}.get(suffix, "")
