"""SciFact (BEIR) as a sitecite index: one section per abstract, title as title and heading.

The index is built through the normal `write_index` API and cached under
.sitecite/bench/scifact-index, so a rerun embeds nothing (unchanged hashes are reused).
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench._common import CACHE, DATA, require
from sitecite.cli.progress import RichReporter
from sitecite.embed import Embedder
from sitecite.index.build import BuildReport, write_index
from sitecite.index.store import Index, load_index
from sitecite.ingest.chunk import section_hash
from sitecite.types import Section

SCIFACT = DATA / "retrieval" / "scifact"
INDEX_DIR = CACHE / "scifact-index"


@dataclass
class SciFact:
    sections: list[Section]
    queries: dict[str, str]  # every query, train and test
    qrels: dict[str, dict[str, dict[str, int]]]  # split -> query id -> doc id -> grade

    def split(self, name: str) -> tuple[list[str], dict[str, dict[str, int]]]:
        """Query ids (in qrels order) and their judgements for 'train' or 'test'."""
        judged = self.qrels[name]
        return [qid for qid in judged if qid in self.queries], judged


def abstract_section(doc: dict[str, str]) -> Section:
    """One corpus.jsonl record as a section: the title is its title and heading."""
    title, text = doc["title"].strip(), doc["text"].strip()
    return Section(
        id=doc["_id"],
        page_id=doc["_id"],
        title=title,
        heading=title,
        url="",
        text=text,
        hash=section_hash(f"{title}\n{text}", ()),
        sentences=(),
    )


def load_scifact() -> SciFact:
    root = require(SCIFACT, "SciFact")
    with (root / "corpus.jsonl").open(encoding="utf-8") as handle:
        sections = [abstract_section(json.loads(line)) for line in handle]
    queries = {}
    with (root / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            query = json.loads(line)
            queries[query["_id"]] = query["text"]
    qrels: dict[str, dict[str, dict[str, int]]] = {}
    for split in ("train", "test"):
        judged: dict[str, dict[str, int]] = {}
        with (root / "qrels" / f"{split}.tsv").open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                judged.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
        qrels[split] = judged
    return SciFact(sections, queries, qrels)


def build_scifact_index(
    data: SciFact,
    embedder: Embedder,
    bm25_text: Callable[[Section], str] | None = None,
    index_dir: Path = INDEX_DIR,
) -> tuple[Index, BuildReport]:
    """Write (or incrementally update) the SciFact index and load it."""
    with RichReporter(transient=True) as reporter:
        report = write_index(
            data.sections,
            index_dir,
            embedder,
            reporter=reporter,
            bm25_text=bm25_text,
            word_vectors=False,
            extra={"benchmark": "scifact"},
        )
    return load_index(index_dir, embedder.id), report


def query_vectors(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """Query embeddings one at a time, as questions are served; cached on disk by embedder and
    text (1,109 claims take about 30 s on an idle core)."""
    key = hashlib.sha256((embedder.id + "\x00" + "\x00".join(texts)).encode()).hexdigest()[:16]
    path = CACHE / f"queries-{key}.npy"
    if path.exists():
        return np.load(path)
    rows = []
    with RichReporter(transient=True) as reporter:
        reporter.start(f"embedding {len(texts)} queries", len(texts))
        for text in texts:
            rows.append(embedder.embed_query(text))
            reporter.advance(1)
    vectors = np.stack(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors
