"""Synthetic indexes for the scale benchmark, shaped like real ones.

Vectors are real SciFact MiniLM vectors plus Gaussian noise (each synthetic section sits near a
real abstract, so neighbourhoods are clustered the way real embeddings are, which matters for
HNSW); texts are 48 tokens drawn from the same abstract's stemmed BM25 tokens, so posting-list
lengths follow real term statistics. Both grow to a million sections in about a minute.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import overload

import bm25s
import numpy as np

from sitecite.index.store import Index
from sitecite.text import bm25_tokens
from sitecite.types import Section

TOKENS_PER_SECTION = 48
NOISE = 0.04  # per dimension: a synthetic vector keeps cosine ~0.8 with its real parent


class SyntheticSections(Sequence[Section]):
    """Sections made on demand: `search` only touches the few it returns."""

    def __init__(self, count: int) -> None:
        self.total = count

    def __len__(self) -> int:
        return self.total

    @overload
    def __getitem__(self, row: int) -> Section: ...

    @overload
    def __getitem__(self, row: slice) -> Sequence[Section]: ...

    def __getitem__(self, row: int | slice) -> Section | Sequence[Section]:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(self.total))]
        if not -self.total <= row < self.total:
            raise IndexError(row)
        row %= self.total
        return Section(
            id=f"synthetic#{row}",
            page_id="synthetic",
            title="synthetic",
            heading="",
            url="",
            text="",
            hash=str(row),
        )

    def __iter__(self) -> Iterator[Section]:
        return (self[i] for i in range(self.total))


@dataclass
class Base:
    """Real material the synthetic sections are drawn from."""

    vectors: np.ndarray  # (documents, dim) unit rows
    token_ids: np.ndarray  # every document's BM25 token ids, concatenated
    offsets: np.ndarray  # document d owns token_ids[offsets[d]:offsets[d + 1]]
    vocabulary: dict[str, int]


def make_base(vectors: np.ndarray, texts: list[str]) -> Base:
    vocabulary: dict[str, int] = {}
    ids: list[int] = []
    offsets = [0]
    for tokens in bm25_tokens(texts):
        ids.extend(vocabulary.setdefault(token, len(vocabulary)) for token in tokens)
        offsets.append(len(ids))
    return Base(vectors, np.asarray(ids, dtype=np.int64), np.asarray(offsets), vocabulary)


def synthetic_vectors(base: Base, parents: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    dim = base.vectors.shape[1]
    out = np.empty((parents.size, dim), dtype=np.float32)
    for start in range(0, parents.size, 100_000):
        chunk = parents[start : start + 100_000]
        block = base.vectors[chunk] + NOISE * rng.standard_normal(
            (chunk.size, dim), dtype=np.float32
        )
        out[start : start + chunk.size] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def synthetic_bm25(base: Base, parents: np.ndarray, rng: np.random.Generator) -> bm25s.BM25:
    """A bm25s index (bm25s' defaults, as index/build.py makes it) over synthetic token lists."""
    from bm25s.tokenization import Tokenized

    lengths = np.diff(base.offsets)[parents]
    picks = (rng.random((parents.size, TOKENS_PER_SECTION)) * lengths[:, None]).astype(np.int64)
    ids = base.token_ids[base.offsets[parents][:, None] + picks]
    retriever = bm25s.BM25()
    retriever.index(Tokenized(ids=ids.tolist(), vocab=dict(base.vocabulary)), show_progress=False)
    return retriever


def synthetic_index(base: Base, count: int, seed: int = 0) -> Index:
    rng = np.random.default_rng(seed)
    parents = rng.integers(0, base.vectors.shape[0], size=count)
    vectors = synthetic_vectors(base, parents, rng)
    bm25 = synthetic_bm25(base, parents, rng)
    return Index(
        Path("synthetic"),
        {"embedder": {"id": "synthetic"}},
        SyntheticSections(count),
        vectors,
        np.zeros((0, vectors.shape[1]), dtype=np.float32),
        np.zeros(count + 1, dtype=np.int64),
        bm25,
    )


def bm25_bytes(retriever: object) -> int:
    scores = getattr(retriever, "scores", {})
    return sum(value.nbytes for value in scores.values() if isinstance(value, np.ndarray))
