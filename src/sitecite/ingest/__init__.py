"""Ingestion: a content directory -> pages -> sections. Pure: reads files, embeds nothing.

One bad file never stops the others: its problem is collected (file and line) and
the file is skipped; the caller decides whether problems are fatal (`--strict`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

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
from sitecite.ingest.ids import page_id, page_url, slugify
from sitecite.ingest.markdown import markdown_blocks, split_frontmatter
from sitecite.ingest.mdx import mdx_to_markdown
from sitecite.types import Block, Page, Section

__all__ = ["CHUNKER_VERSION", "IngestResult", "load_site", "parse_file", "page_id", "slugify"]

MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdx"}
HTML_SUFFIXES = {".html", ".htm"}
DATA_SUFFIXES = {".json", ".yaml", ".yml"}
SKIP_DIRS = {"node_modules", ".git", "__pycache__", ".next", "dist", "build", "public"}


@dataclass
class IngestResult:
    pages: list[Page] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    problems: list[IngestError] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
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


def parse_file(
    path: Path, relative: str, base_url: str = "", route: str = "{page_id}"
) -> list[Page]:
    """One file -> its page(s). Raises IngestError naming the file and line."""
    source = read_text(path, relative)
    suffix = path.suffix.lower()
    pid = page_id(relative)
    url = page_url(base_url, route, pid)
    if suffix in MARKDOWN_SUFFIXES:
        front, body, offset = split_frontmatter(source, relative)
        if suffix == ".mdx":
            body = mdx_to_markdown(body, relative)
        blocks, extra = markdown_blocks(
            body, str(front.get("title", "")), offset, mdx=suffix == ".mdx"
        )
        title = str(front.get("title") or extra["first_h1"] or _title_from(pid))
        summary = front.get("summary") or front.get("description") or ""
        metadata = {
            **front,
            "summary": summary,
            "first_h1": extra["first_h1"],
            "code_blocks": extra["code_blocks"],
        }
        return [Page(pid, relative, title, url, tuple(blocks), "page", metadata)]
    if suffix in HTML_SUFFIXES:
        title, blocks = parse_html(source)
        return [Page(pid, relative, title or _title_from(pid), url, tuple(blocks), "page", {})]
    data = load_data(source, relative)
    if isinstance(data, dict):
        title, blocks = facts_blocks(data, relative)
        return [Page(FACTS_PAGE_ID, relative, title, "", tuple(blocks), "facts", {})]
    if isinstance(data, list):
        records = tuple(collection_blocks(data, relative))
        return [Page(pid, relative, _title_from(pid), url, records, "data", {})]
    raise IngestError(
        "a data file must hold a mapping (profile facts) or a list of records", relative
    )


def _title_from(pid: str) -> str:
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


def load_site(root: str | Path, base_url: str = "", route: str = "{page_id}") -> IngestResult:
    """Ingest every content file under root; collect problems instead of stopping."""
    root = Path(root)
    if not root.is_dir():
        raise IngestError("content directory not found", str(root))
    result = IngestResult()
    seen: dict[str, str] = {}
    pages: list[Page] = []
    for path in content_files(root):
        relative = path.relative_to(root).as_posix()
        try:
            parsed = parse_file(path, relative, base_url, route)
        except IngestError as problem:
            result.problems.append(problem)
            continue
        for page in parsed:
            if page.id != FACTS_PAGE_ID and page.id in seen:
                result.problems.append(
                    IngestError(f"page id '{page.id}' is already used by {seen[page.id]}", relative)
                )
                continue
            seen[page.id] = relative
            pages.append(page)
    result.pages, result.identity = with_identity(_merge_facts(pages))
    for page in result.pages:
        result.sections.extend(chunk_page(page, base_url, route))
    return result
