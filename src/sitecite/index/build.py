"""Build or update an index: only new or changed sections are embedded; the result is swapped in
atomically, so a crash (even kill -9) at any point leaves the previous index loadable."""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.embed import Embedder
from sitecite.errors import EmbedderMismatchError, IndexDirError, IngestError
from sitecite.index.store import (
    BM25_DIR,
    FORMAT_VERSION,
    MANIFEST,
    SECTIONS,
    SENTENCE_OFFSETS,
    SENTENCE_VECTORS,
    VECTORS,
    WORD_VECTORS,
    WORDS,
    Index,
    load_index,
    write_json_atomic,
)
from sitecite.index.swap import recover, swap_in
from sitecite.ingest import CHUNKER_VERSION, Progress, load_site
from sitecite.procs import pid_alive
from sitecite.text import (
    DEFAULT_STEMMER,
    DEFAULT_STOPWORDS,
    STOPWORDS,
    bm25_tokens,
    import_bm25s,
    words,
)
from sitecite.types import Section

Reporter = Progress  # progress callbacks; the CLI draws them as rich progress bars


@dataclass
class BuildReport:
    index_id: str
    sections: int
    embedded: int
    reused: int
    removed: int
    sentences_embedded: int
    seconds: float
    problems: list[IngestError] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "index_id": self.index_id,
            "sections": self.sections,
            "embedded": self.embedded,
            "reused": self.reused,
            "removed": self.removed,
            "sentences_embedded": self.sentences_embedded,
            "seconds": round(self.seconds, 3),
            "problems": [str(p) for p in self.problems],
        }


def build_index(
    content_dir: str | Path,
    index_dir: str | Path,
    embedder: Embedder,
    *,
    base_url: str = "",
    route: str = "{page_id}",
    rebuild: bool = False,
    reporter: Reporter | None = None,
    stopwords: str = DEFAULT_STOPWORDS,
    stemmer: str = DEFAULT_STEMMER,
) -> BuildReport:
    """Ingest `content_dir` and write the index to `index_dir`, reusing unchanged embeddings."""
    started = time.perf_counter()
    ingested = load_site(content_dir, base_url, route)
    return write_index(
        ingested.sections,
        index_dir,
        embedder,
        rebuild=rebuild,
        reporter=reporter,
        problems=ingested.problems,
        started=started,
        stopwords=stopwords,
        stemmer=stemmer,
        extra={
            "content_dir": str(Path(content_dir).resolve()),
            "base_url": base_url,
            "route": route,
            "identity": ingested.identity.to_json(),
            "urls": ingested.url_report(),
        },
    )


def write_index(
    sections: Sequence[Section],
    index_dir: str | Path,
    embedder: Embedder,
    *,
    rebuild: bool = False,
    reporter: Reporter | None = None,
    problems: list[IngestError] | None = None,
    started: float | None = None,
    extra: dict[str, Any] | None = None,
    bm25_text: Any = None,
    word_vectors: bool = True,
    stopwords: str = DEFAULT_STOPWORDS,
    stemmer: str = DEFAULT_STEMMER,
) -> BuildReport:
    """Embed what changed and swap the new index in. Usable directly with any list of sections.

    The BM25 tokenizer (stop words, stemmer) is recorded in the manifest: queries are always
    tokenized the way the index's documents were."""
    started = time.perf_counter() if started is None else started
    target = Path(index_dir)
    recover(target)
    _remove_stale_temporaries(target)
    previous = _previous(target, embedder, rebuild)
    temporary = target.with_name(f".{target.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    temporary.mkdir(parents=True)
    try:
        with (temporary / SECTIONS).open("w", encoding="utf-8") as handle:
            for section in sections:
                handle.write(json.dumps(section.to_json(), ensure_ascii=False) + "\n")
        vectors, sentence_vectors, offsets, counts = _embed(sections, previous, embedder, reporter)
        np.save(temporary / VECTORS, vectors)
        np.save(temporary / SENTENCE_VECTORS, sentence_vectors)
        np.save(temporary / SENTENCE_OFFSETS, offsets)
        tokenizer = {"stopwords": stopwords, "stemmer": stemmer}
        _write_bm25(temporary / BM25_DIR, sections, bm25_text, tokenizer)
        if word_vectors:
            vocabulary, vocabulary_vectors = _embed_words(sections, previous, embedder, reporter)
            (temporary / WORDS).write_text(json.dumps(vocabulary))
            np.save(temporary / WORD_VECTORS, vocabulary_vectors)
        index_id = uuid.uuid4().hex[:12]
        now = datetime.now(UTC).isoformat(timespec="seconds")
        manifest = {
            "format_version": FORMAT_VERSION,
            "index_id": index_id,
            "embedder": {"id": embedder.id, "dim": embedder.dim},
            "chunker_version": CHUNKER_VERSION,
            "created": previous.manifest.get("created", now) if previous else now,
            "updated": now,
            "sections": len(sections),
            "sentences": int(offsets[-1]),
            "thresholds": previous.manifest.get("thresholds", {}) if previous else {},
            "bm25": tokenizer,
            **(extra or {}),
        }
        write_json_atomic(temporary / MANIFEST, manifest)
        swap_in(temporary, target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    removed = (
        len({s.hash for s in previous.sections} - {s.hash for s in sections}) if previous else 0
    )
    return BuildReport(
        index_id,
        len(sections),
        counts[0],
        len(sections) - counts[0],
        removed,
        counts[1],
        time.perf_counter() - started,
        list(problems or []),
    )


def _previous(target: Path, embedder: Embedder, rebuild: bool) -> Index | None:
    if rebuild or not (target / MANIFEST).exists():
        return None
    try:
        return load_index(target, embedder.id, with_bm25=False)
    except EmbedderMismatchError as exc:
        raise EmbedderMismatchError(f"{exc} (or pass --rebuild to re-embed everything)") from exc
    except IndexDirError:
        return None  # an unreadable old index is simply rebuilt from scratch


def _remove_stale_temporaries(target: Path) -> None:
    """Temporary directories of builds that died (kill -9) are removed before a new build."""
    if not target.parent.exists():
        target.parent.mkdir(parents=True)
        return
    for candidate in target.parent.glob(f".{target.name}.tmp-*"):
        pid = candidate.name.split(".tmp-", 1)[1].split("-", 1)[0]
        if pid.isdigit() and pid_alive(int(pid)) and int(pid) != os.getpid():
            continue
        shutil.rmtree(candidate, ignore_errors=True)


def _embed(
    sections: Sequence[Section],
    previous: Index | None,
    embedder: Embedder,
    reporter: Reporter | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
    """Section and sentence vectors, reusing the previous index's rows for unchanged hashes."""
    old_rows = {s.hash: row for row, s in enumerate(previous.sections)} if previous else {}
    fresh = [i for i, s in enumerate(sections) if s.hash not in old_rows]
    fresh_sentences = [text for i in fresh for text in sections[i].sentences]
    advance = reporter.advance if reporter is not None else None
    if reporter is not None:
        reporter.start(f"embedding {len(fresh)} new sections", len(fresh))
    new_vectors = embedder.embed([sections[i].embed_text for i in fresh], progress=advance)
    if reporter is not None:
        reporter.start(f"embedding {len(fresh_sentences)} new sentences", len(fresh_sentences))
    new_sentence_vectors = embedder.embed(fresh_sentences, progress=advance)

    dim = embedder.dim
    vectors = np.zeros((len(sections), dim), dtype=np.float32)
    offsets = np.zeros(len(sections) + 1, dtype=np.int64)
    for row, section in enumerate(sections):
        offsets[row + 1] = offsets[row] + len(section.sentences)
    sentence_vectors = np.zeros((int(offsets[-1]), dim), dtype=np.float32)

    fresh_position = {row: n for n, row in enumerate(fresh)}
    cursor = 0
    for row, section in enumerate(sections):
        span = slice(int(offsets[row]), int(offsets[row + 1]))
        if row in fresh_position:
            vectors[row] = new_vectors[fresh_position[row]]
            count = len(section.sentences)
            sentence_vectors[span] = new_sentence_vectors[cursor : cursor + count]
            cursor += count
        elif previous is not None:
            old = old_rows[section.hash]
            vectors[row] = previous.vectors[old]
            old_span = previous.sentence_rows(old)
            sentence_vectors[span] = previous.sentence_vectors[old_span.start : old_span.stop]
    return vectors, sentence_vectors, offsets, (len(fresh), len(fresh_sentences))


def site_words(sections: Sequence[Section]) -> list[str]:
    """The site's vocabulary: every alphabetic word of three letters or more, no stop words."""
    found = {
        w
        for s in sections
        for w in words(s.embed_text)
        if len(w) > 2 and w.isalpha() and w not in STOPWORDS
    }
    return sorted(found)


def _embed_words(
    sections: Sequence[Section],
    previous: Index | None,
    embedder: Embedder,
    reporter: Reporter | None,
) -> tuple[list[str], np.ndarray]:
    vocabulary = site_words(sections)
    known = {w: row for row, w in enumerate(previous.words)} if previous else {}
    fresh = [w for w in vocabulary if w not in known]
    if reporter is not None:
        reporter.start(f"embedding {len(fresh)} new words of the site's vocabulary", len(fresh))
    fresh_vectors = embedder.embed(fresh, progress=reporter.advance if reporter else None)
    position = {w: n for n, w in enumerate(fresh)}
    matrix = np.zeros((len(vocabulary), embedder.dim), dtype=np.float32)
    for row, word in enumerate(vocabulary):
        if word in position:
            matrix[row] = fresh_vectors[position[word]]
        elif previous is not None:
            matrix[row] = previous.word_vectors[known[word]]
    return vocabulary, matrix


def _write_bm25(
    directory: Path, sections: Sequence[Section], bm25_text: Any, tokenizer: dict[str, str]
) -> None:
    bm25s = import_bm25s()

    texts = [bm25_text(s) if bm25_text else s.embed_text for s in sections]
    tokens = bm25_tokens(texts, tokenizer["stopwords"], tokenizer["stemmer"])
    retriever = bm25s.BM25()
    if sections:
        retriever.index(tokens, show_progress=False)
    directory.mkdir()
    if sections:
        retriever.save(str(directory), show_progress=False)
