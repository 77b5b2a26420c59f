"""The index directory: plain files plus a manifest (docs/index-directory.md).

manifest.json          format, embedder id and dimension, chunker version, times, thresholds
sections.jsonl         one section per line (row i of every matrix below), each sentence with its
                       kind (prose, item, row, fact, heading, link, caption, fragment, ...)
vectors.npy            float32 (sections x dim), unit rows
sentence_vectors.npy   float32 (sentences x dim), unit rows, grouped by section
sentence_offsets.npy   int64 (sections + 1): section i owns rows offsets[i]:offsets[i+1]
bm25/                  the bm25s index over the same sections
words.json             the site's vocabulary (surface words), row i of word_vectors.npy
word_vectors.npy       float32 (words x dim): lets a question's word find its neighbours
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.errors import EmbedderMismatchError, IndexDirError
from sitecite.index.swap import recover
from sitecite.text import DEFAULT_STEMMER, DEFAULT_STOPWORDS, import_bm25s, words
from sitecite.tokens import content_stems
from sitecite.types import PROFILE_SUFFIX, Section

FORMAT_VERSION = 2  # 2: sections.jsonl gives every sentence its kind (ingest/kinds.py)
MANIFEST = "manifest.json"
SECTIONS = "sections.jsonl"
VECTORS = "vectors.npy"
SENTENCE_VECTORS = "sentence_vectors.npy"
SENTENCE_OFFSETS = "sentence_offsets.npy"
BM25_DIR = "bm25"
WORDS = "words.json"
WORD_VECTORS = "word_vectors.npy"


_CAPITALISED_RUN = re.compile(r"\b[A-Z][a-z]+(?:[\s-]+[A-Z][a-z]+){1,5}\b")


@dataclass
class Index:
    """A loaded index: sections, their vectors, sentence vectors and the BM25 index."""

    path: Path
    manifest: dict[str, Any]
    sections: list[Section]
    vectors: np.ndarray
    sentence_vectors: np.ndarray
    sentence_offsets: np.ndarray
    bm25: Any = field(repr=False, default=None)
    words: list[str] = field(default_factory=list, repr=False)
    word_vectors: np.ndarray = field(
        default_factory=lambda: np.zeros((0, 1), dtype=np.float32), repr=False
    )
    # per-text caches (sentence terms and vocabulary), shared with narrowed views
    text_cache: dict[str, dict[str, frozenset[str]]] = field(
        default_factory=dict, repr=False, compare=False
    )

    @property
    def id(self) -> str:
        return str(self.manifest.get("index_id", ""))

    @property
    def embedder_id(self) -> str:
        return str(self.manifest["embedder"]["id"])

    @cached_property
    def row_of(self) -> dict[str, int]:
        return {section.id: row for row, section in enumerate(self.sections)}

    @cached_property
    def page_ids(self) -> frozenset[str]:
        return frozenset(section.page_id for section in self.sections)

    @cached_property
    def vocabulary(self) -> frozenset[str]:
        """Every BM25 term of the site (stemmed): what the site talks about at all."""
        if self.bm25 is None:
            return frozenset()
        return frozenset(self.bm25.vocab_dict)

    @cached_property
    def word_set(self) -> frozenset[str]:
        return frozenset(self.words)

    @cached_property
    def word_rows(self) -> dict[str, int]:
        return {word: row for row, word in enumerate(self.words)}

    @cached_property
    def subject(self) -> str:
        """The site owner's name: the one ingestion found (authors, author pages, the profile, a
        copyright line), else the profile facts' title ("Noor Haddad (profile)"), else ""."""
        owner = str(self.manifest.get("identity", {}).get("owner") or "")
        facts = next((s for s in self.sections if s.page_id == "_facts"), None)
        if owner or facts is None:
            return owner
        return facts.title.removesuffix(PROFILE_SUFFIX).strip()

    @cached_property
    def subject_words(self) -> frozenset[str]:
        """Words of the site owner's names (the identity ingestion found, and the profile facts'
        title); any question may use them without them being what it asks about."""
        names = list(self.manifest.get("identity", {}).get("names", []))
        facts = next((s for s in self.sections if s.page_id == "_facts"), None)
        if facts is not None:
            names.append(facts.title.removesuffix(PROFILE_SUFFIX))
        return frozenset(w for name in names for w in words(name) if w.isalpha())

    def is_subject(self, word: str) -> bool:
        """Whether a word names the owner: one of their names, or its short form ("Tim")."""
        word = word.lower()
        return word in self.subject_words or (
            len(word) >= 3 and any(name.startswith(word) for name in self.subject_words)
        )

    @cached_property
    def site_sections(self) -> int:
        """How many sections the whole site has (a narrowed view keeps the site's count)."""
        return len(self.sections)

    @cached_property
    def term_frequency(self) -> dict[str, int]:
        """How many sections each stemmed content term occurs in: what makes a word rare."""
        counts: dict[str, int] = {}
        for section in self.sections:
            for term in set(content_stems(section.embed_text)):
                counts[term] = counts.get(term, 0) + 1
        return counts

    def sentence_terms(self, row: int) -> list[frozenset[str]]:
        """The stemmed content terms of each sentence of section `row` (cached by text, and the
        cache shared with every narrowed view of this index)."""
        cache = self.text_cache.setdefault("terms", {})
        found = []
        for sentence in self.sections[row].sentences:
            if sentence not in cache:
                cache[sentence] = frozenset(content_stems(sentence))
            found.append(cache[sentence])
        return found

    def sentence_vocabulary(self, row: int) -> list[frozenset[str]]:
        """The vocabulary words of each sentence of section `row` with its page title's and
        heading's (a sentence under "Homelab" is about the homelab): what word coverage compares
        with the question. Cached by text like `sentence_terms`."""
        cache = self.text_cache.setdefault("vocabulary", {})
        section = self.sections[row]
        label = f"{section.title} {section.heading}"
        if label not in cache:
            cache[label] = frozenset(w for w in words(label) if w in self.word_rows)
        found = []
        for sentence in section.sentences:
            if sentence not in cache:
                cache[sentence] = frozenset(w for w in words(sentence) if w in self.word_rows)
            found.append(cache[label] | cache[sentence])
        return found

    @cached_property
    def acronyms(self) -> frozenset[str]:
        """Initials of every run of two to six capitalised words on the site, so a question's
        "CSP" is known from "Content-Security-Policy" and "DNS" from "Domain Name System"."""
        found: set[str] = set()
        for section in self.sections:
            for run in _CAPITALISED_RUN.findall(section.embed_text):
                initials = "".join(word[0] for word in re.split(r"[\s-]+", run)).lower()
                found.update(
                    initials[i:j]
                    for i in range(len(initials))
                    for j in range(i + 2, len(initials) + 1)
                )
        return frozenset(found)

    @cached_property
    def terms(self) -> frozenset[str]:
        """Every word of the site as `words` reads it, names with dots and dashes whole
        ("next.js", "gpt-4o", ".net"), and their parts."""
        found: set[str] = set()
        for section in self.sections:
            for word in words(section.embed_text):
                found.add(word)
                found.update(part for part in re.split(r"[.\-_+#/]", word) if part)
        return frozenset(found)

    @property
    def bm25_tokenizer(self) -> tuple[str, str]:
        """(stop words, stemmer) the BM25 documents were tokenized with; queries must match."""
        recorded = self.manifest.get("bm25", {})
        return (
            str(recorded.get("stopwords", DEFAULT_STOPWORDS)),
            str(recorded.get("stemmer", DEFAULT_STEMMER)),
        )

    def thresholds(self, embedder_id: str | None = None) -> dict[str, Any]:
        return dict(self.manifest.get("thresholds", {}).get(embedder_id or self.embedder_id, {}))

    def sentence_rows(self, row: int) -> range:
        return range(int(self.sentence_offsets[row]), int(self.sentence_offsets[row + 1]))

    def narrowed(
        self, rows: Sequence[int], sections: Sequence[Section], kept: Sequence[Sequence[int]]
    ) -> Index:
        """This index seen through one question's context: only the sections at `rows`,
        replaced by `sections` whose sentences are the ones at `kept` (the pipeline's
        quarantine), row i of the result being the i-th of them. Site-wide knowledge (the
        vocabulary, its vectors, BM25, the site owner's name) is shared, not recomputed."""
        vectors = [
            self.sentence_vectors[self.sentence_rows(r).start + np.asarray(k, dtype=np.int64)]
            for r, k in zip(rows, kept, strict=True)
        ]
        offsets = np.concatenate([[0], np.cumsum([len(k) for k in kept])]).astype(np.int64)
        dim = self.sentence_vectors.shape[1] if self.sentence_vectors.ndim == 2 else 1
        view = Index(
            self.path,
            self.manifest,
            list(sections),
            self.vectors[list(rows)],
            np.vstack(vectors) if vectors else np.zeros((0, dim), dtype=np.float32),
            offsets,
            self.bm25,
            self.words,
            self.word_vectors,
        )
        shared = ("vocabulary", "word_set", "word_rows", "subject", "subject_words", "page_ids")
        site_wide = ("terms", "acronyms", "term_frequency", "site_sections", "text_cache")
        for name in (*shared, *site_wide):
            view.__dict__[name] = getattr(self, name)  # cached_property values, shared
        return view


def read_manifest(path: Path) -> dict[str, Any]:
    manifest_path = Path(path) / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text())
    except FileNotFoundError as exc:
        raise IndexDirError(
            f"no index at {path} (missing {MANIFEST}); run `sitecite index` first"
        ) from exc
    except (OSError, ValueError) as exc:
        raise IndexDirError(f"{manifest_path}: unreadable manifest ({exc})") from exc
    if not isinstance(manifest, dict):
        raise IndexDirError(f"{manifest_path}: corrupt manifest (not a JSON object); rebuild it")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise IndexDirError(
            f"{path}: index format {manifest.get('format_version')} is not {FORMAT_VERSION} (it "
            "was built by another version of sitecite); rebuild it with `sitecite index "
            f"CONTENT_DIR --index {path}`"
        )
    embedder = manifest.get("embedder")
    if not isinstance(embedder, dict) or not isinstance(embedder.get("id"), str):
        raise IndexDirError(
            f"{manifest_path}: corrupt manifest (no embedder id); rebuild the index with "
            "`sitecite index --rebuild`"
        )
    return dict(manifest)


def read_sections(path: Path) -> list[Section]:
    sections = []
    with (Path(path) / SECTIONS).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                sections.append(Section.from_json(json.loads(line)))
            except (ValueError, KeyError) as exc:
                raise IndexDirError(f"{path}/{SECTIONS}:{number}: corrupt section ({exc})") from exc
    return sections


def load_index(path: str | Path, embedder_id: str | None = None, with_bm25: bool = True) -> Index:
    """Load an index; if `embedder_id` is given it must match the one that built the index."""
    path = Path(path)
    recover(path)
    manifest = read_manifest(path)
    built_with = manifest["embedder"]["id"]
    if embedder_id is not None and embedder_id != built_with:
        raise EmbedderMismatchError(
            f"the index at {path} was built with embedder '{built_with}' but '{embedder_id}' is "
            f'configured; rebuild the index or set embedder = "{built_with}"'
        )
    try:
        sections = read_sections(path)
        vectors = np.load(path / VECTORS)
        sentence_vectors = np.load(path / SENTENCE_VECTORS)
        offsets = np.load(path / SENTENCE_OFFSETS)
        words = json.loads((path / WORDS).read_text()) if (path / WORDS).exists() else []
        word_vectors = (
            np.load(path / WORD_VECTORS)
            if words
            else np.zeros((0, vectors.shape[1]), dtype=np.float32)
        )
    except (OSError, ValueError) as exc:
        raise IndexDirError(f"{path}: incomplete or corrupt index ({exc}); rebuild it") from exc
    if vectors.shape[0] != len(sections) or len(offsets) != len(sections) + 1:
        raise IndexDirError(f"{path}: vectors and sections disagree in length; rebuild the index")
    bm25 = None
    if with_bm25 and sections:
        bm25s = import_bm25s()

        try:
            bm25 = bm25s.BM25.load(str(path / BM25_DIR), load_corpus=False, show_progress=False)
        except (OSError, ValueError, KeyError) as exc:
            raise IndexDirError(
                f"{path}: the BM25 index ({BM25_DIR}/) is missing or corrupt ({exc}); "
                "rebuild the index with `sitecite index --rebuild`"
            ) from exc
    return Index(
        path, manifest, sections, vectors, sentence_vectors, offsets, bm25, words, word_vectors
    )


def write_json_atomic(target: Path, data: Any) -> None:
    """Write JSON to a temporary file in the same directory, then rename over the target."""
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, sort_keys=True)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, target)


def store_thresholds(path: str | Path, embedder_id: str, values: dict[str, Any]) -> None:
    """Record calibrated thresholds in the manifest, keyed by embedder (atomic file replace)."""
    path = Path(path)
    manifest = read_manifest(path)
    manifest.setdefault("thresholds", {})[embedder_id] = values
    write_json_atomic(path / MANIFEST, manifest)
