"""Ingestion: a content directory -> pages -> sections. Pure: reads files, embeds nothing.

One bad file never stops the others: its problem is collected (file and line) and
the file is skipped; the caller decides whether problems are fatal (`--strict`).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from sitecite.errors import IngestError
from sitecite.ingest.addresses import (
    find_site_map,
    learned_urls,
    shown_by_templates,
    url_report,
)
from sitecite.ingest.chunk import CHUNKER_VERSION, chunk_page
from sitecite.ingest.components import data_index
from sitecite.ingest.data import FACTS_PAGE_ID, NOT_CONTENT
from sitecite.ingest.identity import Identity, with_config_owner, with_identity
from sitecite.ingest.ids import page_id, slugify
from sitecite.ingest.jekyll import JekyllSite
from sitecite.ingest.layout import config_file
from sitecite.ingest.matching import MapMatch, match_site_map, with_published_urls
from sitecite.ingest.pages import (
    DATA_SUFFIXES,
    PANDOC_SUFFIXES,
    READ_SUFFIXES,
    Reading,
    markup_of,
    parse_source,
)
from sitecite.ingest.presets import router_for
from sitecite.ingest.published import (
    front_matter_reason,
    generator_reason,
    placeholder_reason,
    slugless,
)
from sitecite.ingest.retention import FileReport, file_report
from sitecite.ingest.routes import Router
from sitecite.ingest.sitemap import SiteMap
from sitecite.ingest.titles import own_titles
from sitecite.ingest.webpage import is_built_site
from sitecite.types import Block, Page, Section

__all__ = [
    "CHUNKER_VERSION",
    "IngestResult",
    "Progress",
    "Router",
    "load_site",
    "parse_file",
    "parse_source",
    "page_id",
    "slugify",
]

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
CODE_DATA = {".js", ".ts", ".mjs"}


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
    unrouted: list[str] = field(default_factory=list)  # pages no rule or preset routed
    map_match: MapMatch | None = None  # the site's own map, matched to the pages
    map_tried: list[str] = field(default_factory=list)  # where no map was found
    learned: dict[str, str] = field(default_factory=dict)  # page id -> the rule its links show

    def url_report(self) -> dict[str, object]:
        """Where each page's URL came from, for the index manifest (`urls`,
        docs/index-directory.md): unverified when some URLs are a guess (the page id) or were
        inferred from the site's links, with those pages named."""
        return url_report(
            self.pages, self.router, self.map_match, self.unrouted, self.learned, self.built_site
        )

    def route_lines(self) -> list[str]:
        """What `sitecite index` says about URLs: the site's map and how many pages it gave a
        URL, the rules and presets used, and a warning naming the pages whose URLs are a
        guess."""
        lines = [self.map_match.describe()] if self.map_match else []
        warning = self.router.unrouted_warning(self.unrouted, self.map_tried, self.learned)
        return lines + self.router.describe() + ([warning] if warning else [])


def _walk(root: Path, suffixes: set[str]) -> list[Path]:
    files = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS)
        for name in sorted(filenames):
            path = Path(directory) / name
            if name.startswith(".") or name in NOT_CONTENT:
                continue
            if path.suffix.lower() in suffixes:
                files.append(path)
    return files


def content_files(root: Path) -> list[Path]:
    """Every file sitecite can ingest under root, in a stable order."""
    return _walk(root, READ_SUFFIXES)


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


def _reading(root: Path, router: Router, built: bool) -> Reading:
    """What the files of this site share while they are read: a Jekyll site's Liquid context,
    the data files components show."""
    reading = Reading(router, built=built, root=root)
    jekyll = next((p for p in router.presets if p.name == "jekyll"), None)
    if jekyll is not None:
        folder = root / jekyll.folder if jekyll.folder else root
        config = config_file(folder / "_config.yml") or config_file(folder / "_config.yaml")
        reading.jekyll, reading.jekyll_folder = JekyllSite(folder, config), jekyll.folder
    if not built:
        reading.data_files = data_index(_walk(root, DATA_SUFFIXES | CODE_DATA))
    return reading


def load_site(
    root: str | Path,
    base_url: str = "",
    route: str = "{page_id}",
    *,
    routes: Sequence[str] = (),
    presets: bool = True,
    anchors: str = "auto",
    site_map: SiteMap | None = None,
    find_map: bool = True,
    live_map: Callable[[], tuple[SiteMap | None, str]] | None = None,
    progress: Progress | None = None,
) -> IngestResult:
    """Ingest every content file under root; collect problems instead of stopping.

    URLs come from the site's own map when there is one (`site_map`; else, when `find_map`, a
    built output folder next to the sources, then what `live_map` fetches): each page matched
    in it takes its published URL.
    Other pages follow `routes`, then the presets detected in root (unless `presets` is
    False), then `route`; headings' anchors follow `anchors` ("auto": the preset's rule). Every
    Markdown and HTML file gets a FileReport of the prose it kept."""
    root = Path(root)
    if not root.is_dir():
        raise IngestError("content directory not found", str(root))
    files = content_files(root)
    built = is_built_site(root, files)
    router = router_for(base_url, routes, route, root, presets and not built, anchors)
    router.searched = presets and not built
    site_map, tried, output = find_site_map(
        root, router, site_map, find_map and not built, live_map
    )
    if output is not None:  # a generator's output next to the sources is not content
        files = [f for f in files if output not in f.parents]
    result = IngestResult(router=router, built_site=built, map_tried=tried)
    reading = _reading(root, router, built)
    if progress is not None:
        progress.start(f"reading {len(files)} files", len(files))
    sources: dict[str, str] = {}
    pages: list[Page] = []
    for path in files:
        relative = path.relative_to(root).as_posix()
        try:
            sources[relative] = read_text(path, relative)
            pages += parse_source(sources[relative], relative, router, built, reading)
        except IngestError as problem:
            result.problems.append(problem)
        except Exception as exc:  # noqa: BLE001 - one bad file never stops a site
            result.problems.append(IngestError(f"could not be read ({exc!r})", relative))
        if progress is not None:
            progress.advance(1)
    result.warnings = list(reading.warnings)
    kept = own_titles(_published(pages, result, reading, sources))
    if site_map:
        result.map_match = match_site_map(kept, site_map, router)
        kept = with_published_urls(kept, result.map_match, router.base_url)
    if router.searched:
        kept, result.learned = learned_urls(kept, result.map_match, router, sources)
    result.pages, result.identity = with_identity(_merge_facts(kept))
    result.identity = with_config_owner(result.identity, None if built else root)
    for page in result.pages:
        result.sections.extend(chunk_page(page, router.base_url))
    if not built:  # a rendered page's chrome is not prose it was meant to keep
        result.files = retention_reports(result.pages, result.sections, sources)
    result.warnings += [w for r in result.files if (w := r.warning()) is not None]
    if router.searched:
        mapped = result.map_match.matched if result.map_match else {}
        result.unrouted = [
            p.id
            for p in result.pages
            if p.kind != "facts"
            and p.id not in mapped
            and not router.routed_by(p.id, p.metadata, p.source)
        ]
    return result


def _published(
    pages: list[Page], result: IngestResult, reading: Reading, sources: dict[str, str]
) -> list[Page]:
    """Pages without drafts, templates and files the generator does not publish (each listed
    in `result.skipped` with its reason), and without a second page claiming the same id."""
    seen: dict[str, str] = {}
    kept = []
    gatsby = slugless(pages, reading.router.presets)
    rendered = _rendered(pages)
    for page in pages:
        reason = rendered.get(page.source) or _reason(
            page, reading, sources.get(page.source, ""), gatsby
        )
        if reason:
            result.skipped.append(f"{page.source}: {reason}")
        elif page.id != FACTS_PAGE_ID and page.id in seen:
            message = f"page id '{page.id}' is already used by {seen[page.id]}"
            result.problems.append(IngestError(message, page.source))
        else:
            seen[page.id] = page.source
            kept.append(page)
    return kept


def _rendered(pages: list[Page]) -> dict[str, str]:
    """Files rendered from an R Markdown or Quarto source beside them (blogdown's `post.html`
    or `post.markdown` from `post.Rmd`), each with the reason it is left out."""
    sources = {p.id: p.source for p in pages if Path(p.source).suffix.lower() in PANDOC_SUFFIXES}
    return {
        p.source: f"rendered from {sources[p.id]}"
        for p in pages
        if p.id in sources
        and p.source != sources[p.id]
        and Path(p.source).suffix.lower() not in PANDOC_SUFFIXES
    }


def _reason(page: Page, reading: Reading, raw: str, gatsby: dict[str, str]) -> str:
    """Why the page is not one the site publishes ("" when it is)."""
    if page.source in reading.used:
        return f"data shown by {reading.used[page.source]}: read into that page"
    if page.kind == "page" and (reason := front_matter_reason(page.metadata)):
        return reason
    if reading.router.front_of(page.metadata, page.source).get("eleventy_no_page"):
        return "permalink: false (Eleventy writes no page for it)"
    has_front = page.source in reading.fronted
    for preset in reading.router.presets:
        reason = generator_reason(page.source, preset, has_front, reading.jekyll)
        if reason:
            return reason
    if page.source in gatsby:
        return gatsby[page.source]
    if page.kind == "data" and (generator := shown_by_templates(page, reading.router)):
        return (
            f"data for {generator.name}'s templates or components: the generator publishes no "
            "page of its own for it (a --route rule gives it one)"
        )
    if reading.quarto_for(page.source) and any(p.startswith("_") for p in page.source.split("/")):
        return "a Quarto partial (Quarto renders no file whose name starts with _)"
    return placeholder_reason(page, raw) if page.kind == "page" else ""


def retention_reports(
    pages: Sequence[Page], sections: Sequence[Section], sources: dict[str, str]
) -> list[FileReport]:
    """Words read against words indexed, for every Markdown and HTML page."""
    indexed: dict[str, list[str]] = defaultdict(list)
    for section in sections:
        indexed[str(section.metadata.get("source"))] += [section.heading, section.text]
    reports = []
    for page in pages:
        markup = markup_of(page.source, page.metadata)
        if markup and page.source in sources:
            texts = [page.title, *indexed[page.source]]
            reports.append(file_report(page.source, sources[page.source], markup, texts))
    return reports
