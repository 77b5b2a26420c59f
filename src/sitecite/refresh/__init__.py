"""Build or refresh an index from its source: a content folder, a built site, or a live URL.

`sitecite index` calls `index_source`; `--watch` calls it again when the folder changes
(`refresh.watch`). The report says, per file, how much prose reached the index, which route
presets were used, and for a live site what was fetched and what was unchanged.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitecite.config import Settings
from sitecite.crawl import CrawlOptions, CrawlRecord, CrawlResult, crawl
from sitecite.crawl.sitemap import given_site_map, live_site_map
from sitecite.embed import Embedder
from sitecite.errors import EmbedderMismatchError, IndexDirError, IngestError
from sitecite.index.build import BuildReport, write_index
from sitecite.index.store import MANIFEST, load_index
from sitecite.ingest import Progress, load_site
from sitecite.ingest.chunk import chunk_page
from sitecite.ingest.retention import FileReport
from sitecite.types import Section

__all__ = ["IndexRun", "index_source", "is_url"]


@dataclass
class IndexRun:
    """What one `sitecite index` run did; `build` is None when a live site had no changes."""

    source: str
    kind: str  # "folder", "built site" or "live site"
    build: BuildReport | None
    seconds: float
    files: list[FileReport] = field(default_factory=list)
    warnings: list[IngestError] = field(default_factory=list)
    problems: list[IngestError] = field(default_factory=list)
    routes: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    crawl: dict[str, Any] = field(default_factory=dict)
    unrouted: list[str] = field(default_factory=list)  # pages no preset's rule routed

    @property
    def words(self) -> tuple[int, int]:
        """(prose words read, prose words kept) over every file."""
        return sum(f.words_read for f in self.files), sum(f.words_kept for f in self.files)

    def to_json(self) -> dict[str, Any]:
        build = self.build.to_json() if self.build else {"sections": None, "embedded": 0}
        read, kept = self.words
        return {
            **build,
            "seconds": round(self.seconds, 3),
            "source": self.source,
            "kind": self.kind,
            "problems": [str(p) for p in self.problems],
            "warnings": [str(w) for w in self.warnings],
            "routes": self.routes,
            "skipped": self.skipped,
            "unrouted": self.unrouted,
            "words_read": read,
            "words_kept": kept,
            "files": [f.to_json() for f in self.files],
            **({"crawl": self.crawl} if self.crawl else {}),
        }

    def summary(self, index_dir: str) -> str:
        """The one line `sitecite index` prints."""
        read, kept = self.words
        words = f", {kept / read:.1%} of {read:,} prose words kept" if read else ""
        warned = f", {len(self.warnings)} warning(s)" if self.warnings else ""
        skipped = f", {len(self.problems)} file(s) skipped" if self.problems else ""
        skipped += f", {len(self.skipped)} left out (not published)" if self.skipped else ""
        fetched = ""
        if self.crawl:
            fetched = (
                f"; {self.crawl['changed_pages']} page(s) changed, "
                f"{self.crawl['unchanged_pages']} unchanged (304)"
            )
        if self.build is None:
            return f"{self.source}: nothing changed, {index_dir} left as it was{fetched}"
        b = self.build
        return (
            f"indexed {b.sections} sections from {self.source} ({self.kind}{words}{warned}) "
            f"into {index_dir} in {self.seconds:.1f} s: {b.embedded} embedded, {b.reused} "
            f"unchanged, {b.removed} removed{skipped}{fetched}"
        )


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def index_source(
    source: str,
    index_dir: str | Path,
    embedder: Embedder,
    settings: Settings,
    *,
    rebuild: bool = False,
    progress: Progress | None = None,
) -> IndexRun:
    """Index a folder (source files or a built site) or a live site into `index_dir`."""
    if is_url(source):
        return _index_url(source, Path(index_dir), embedder, settings, rebuild, progress)
    return _index_folder(Path(source), Path(index_dir), embedder, settings, rebuild, progress)


def _index_folder(
    folder: Path,
    index_dir: Path,
    embedder: Embedder,
    settings: Settings,
    rebuild: bool,
    progress: Progress | None,
) -> IndexRun:
    started = time.perf_counter()
    options = settings.index
    rate = options.crawl_requests_per_second
    given, notes = given_site_map(options.sitemap, options.user_agent, rate)
    live = (
        live_site_map(options.base_url, options.user_agent, rate) if not options.sitemap else None
    )
    ingested = load_site(
        folder,
        options.base_url,
        options.route,
        routes=options.routes,
        presets=options.presets,
        anchors=options.anchors,
        site_map=given,
        find_map=options.sitemap == "",
        live_map=live,
        progress=progress,
    )
    build = write_index(
        ingested.sections,
        index_dir,
        embedder,
        rebuild=rebuild,
        reporter=progress,
        problems=ingested.problems,
        started=started,
        stopwords=settings.retrieve.stopwords,
        stemmer=settings.retrieve.stemmer,
        extra={
            "content_dir": str(folder.resolve()),
            "base_url": options.base_url,
            "route": options.route,
            "routes": list(options.routes),
            "identity": ingested.identity.to_json(),
            "urls": ingested.url_report(),
        },
    )
    return IndexRun(
        str(folder),
        "built site" if ingested.built_site else "folder",
        build,
        time.perf_counter() - started,
        ingested.files,
        ingested.warnings,
        ingested.problems,
        notes + ingested.route_lines(),
        ingested.skipped,
        unrouted=ingested.unrouted,
    )


def _previous_crawl(
    index_dir: Path, embedder: Embedder, start_url: str, rebuild: bool
) -> tuple[dict[str, CrawlRecord], dict[str, list[Section]]]:
    """The last crawl's records and sections by page id (empty for a first or forced run)."""
    if rebuild or not (index_dir / MANIFEST).exists():
        return {}, {}
    try:
        previous = load_index(index_dir, embedder.id, with_bm25=False)
    except EmbedderMismatchError:
        raise
    except IndexDirError:
        return {}, {}
    state = previous.manifest.get("crawl") or {}
    if state.get("start_url") != start_url:
        return {}, {}
    records = {url: CrawlRecord.from_json(r) for url, r in state.get("pages", {}).items()}
    by_page: dict[str, list[Section]] = {}
    for section in previous.sections:
        by_page.setdefault(section.page_id, []).append(section)
    return records, by_page


def _index_url(
    start_url: str,
    index_dir: Path,
    embedder: Embedder,
    settings: Settings,
    rebuild: bool,
    progress: Progress | None,
) -> IndexRun:
    started = time.perf_counter()
    records, previous_sections = _previous_crawl(index_dir, embedder, start_url, rebuild)
    options = settings.index
    polite = CrawlOptions(
        options.crawl_concurrency,
        options.crawl_requests_per_second,
        options.crawl_timeout_seconds,
        options.crawl_max_pages,
        options.user_agent,
    )
    fetched = crawl(start_url, records, polite, on_page=_page_progress(progress))
    sections, seen = _crawled_sections(fetched, previous_sections)
    if not seen:  # an outage or a wrong address must never empty a working index
        reasons = "; ".join(str(p) for p in fetched.problems[:3]) or "no pages found"
        raise IngestError(f"no page could be read, index left as it was ({reasons})", start_url)
    unchanged = not fetched.changed and seen == set(previous_sections) and not rebuild
    build = None
    if not unchanged:
        state = {
            "start_url": start_url,
            "pages": {u: r.to_json() for u, r in fetched.records.items()},
        }
        build = write_index(
            sections,
            index_dir,
            embedder,
            rebuild=rebuild,
            reporter=progress,
            problems=fetched.problems,
            started=started,
            stopwords=settings.retrieve.stopwords,
            stemmer=settings.retrieve.stemmer,
            extra={
                "source_url": start_url,
                "crawl": state,
                # the URLs a live site was fetched from: what it publishes
                "urls": {"unverified": False, "pages": len(seen), "from": {"live site": len(seen)}},
            },
        )
    return IndexRun(
        start_url,
        "live site",
        build,
        time.perf_counter() - started,
        problems=fetched.problems,
        crawl={
            "discovered_by": fetched.discovered_by,
            "changed_pages": len(fetched.changed),
            "unchanged_pages": len(fetched.unchanged),
            "requests": fetched.requests,
        },
    )


def _crawled_sections(
    fetched: CrawlResult, previous: dict[str, list[Section]]
) -> tuple[list[Section], set[str]]:
    """Sections of the changed pages, fresh, and of the unchanged ones, from the last index."""
    sections: list[Section] = []
    seen: set[str] = set()
    for page in fetched.changed:
        if page.id not in seen:
            seen.add(page.id)
            sections.extend(chunk_page(page))
    for pid in fetched.unchanged:
        if pid not in seen:
            seen.add(pid)
            sections.extend(previous.get(pid, []))
    return sections, seen


def _page_progress(progress: Progress | None) -> Any:
    if progress is None:
        return None
    started: list[int] = []

    def on_page(done: int, total: int) -> None:
        if not started:
            progress.start("fetching pages", total)
            started.append(total)
        elif total != started[-1] and hasattr(progress, "resize"):
            progress.resize(total)
            started.append(total)
        progress.advance(1)

    return on_page
