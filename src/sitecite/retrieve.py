"""Hybrid retrieval: exact cosine over the float32 matrix fused with BM25, then the calibrated gate.

The dense part is an exact matrix-vector product; its ranking equals a pure-Python cosine
loop's (`cosine_loop_search`, kept here as the reference the tests and benchmarks compare to).
Fusion is a convex combination of min-max normalised scores over the union of both
candidate lists (Bruch et al., "An Analysis of Fusion Functions for Hybrid Retrieval"):
unlike reciprocal rank fusion it keeps how far apart the scores are, and it is what the
benchmarks in bench/ chose on training data.

Exact search reads every vector for every question: on 2 cores its p95 passes 50 ms at
roughly 150,000 sections (bench/speed.py). Past that, `ann = "hnsw"` (the `ann` extra) takes
the dense candidates from a faiss HNSW graph instead; exact stays the default.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitecite.config import RetrieveSettings
from sitecite.errors import ConfigError
from sitecite.index.store import Index
from sitecite.text import bm25_tokens
from sitecite.types import Hit

# Used only until `sitecite calibrate` has stored a threshold for the embedder.
DEFAULT_SECTION_THRESHOLD = 0.26


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k highest scores, best first; ties broken by lower index (stable)."""
    k = min(k, scores.shape[0])
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    part = _shortlist(scores, k) if k < scores.shape[0] else np.arange(scores.shape[0])
    order = np.lexsort((part, -scores[part]))
    return part[order][:k]


_BLOCK = 1024


def _shortlist(scores: np.ndarray, k: int) -> np.ndarray:
    """Every index whose score reaches the k-th highest (ties included), in index order.

    On large arrays the k-th largest of the block maxima bounds the k-th score from below (at
    least k scores reach it), so one pass of maxima and one comparison leave a short list to
    partition: about 2 ms instead of 10 at a million sections.
    """
    n = scores.shape[0]
    blocks = n // _BLOCK
    part = np.arange(n)
    if blocks >= 8 * k:
        maxima = scores[: blocks * _BLOCK].reshape(blocks, _BLOCK).max(axis=1)
        part = np.flatnonzero(scores >= np.partition(maxima, blocks - k)[blocks - k])
    values = scores[part]
    kth = np.partition(values, values.size - k)[values.size - k]
    return part[values >= kth]


def dense_scores(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row with the query (rows and query are unit length)."""
    return vectors @ query


# HNSW parameters: M links per node. efSearch 512 (raised to the candidate depth if larger) kept
# recall@10 at 0.97 against exact search at a million sections for 2 ms (128: 0.87, 1 ms).
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 512
_hnsw_graphs: dict[int, Any] = {}
_hnsw_lock = threading.Lock()


def _faiss() -> Any:
    try:
        import faiss
    except ImportError as exc:
        raise ConfigError("retrieve.ann = 'hnsw' needs faiss: pip install 'sitecite[ann]'") from exc
    return faiss


def hnsw_graph(vectors: np.ndarray) -> Any:
    """The faiss HNSW graph over a vector matrix, built on first use and dropped with the matrix.

    Building takes seconds at 100,000 sections and minutes at a million (bench/speed.py).
    """
    key = id(vectors)
    with _hnsw_lock:
        graph = _hnsw_graphs.get(key)
        if graph is None:
            faiss = _faiss()
            graph = faiss.IndexHNSWFlat(vectors.shape[1], HNSW_M, faiss.METRIC_INNER_PRODUCT)
            graph.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
            graph.add(np.ascontiguousarray(vectors, dtype=np.float32))
            _hnsw_graphs[key] = graph
            weakref.finalize(vectors, _hnsw_graphs.pop, key, None)
        return graph


def approximate_dense_scores(vectors: np.ndarray, query: np.ndarray, depth: int) -> np.ndarray:
    """Cosine of the approximate `depth` nearest rows; every other row scores -inf."""
    scores = np.full(vectors.shape[0], -np.inf, dtype=np.float32)
    if vectors.shape[0] == 0:
        return scores
    graph = hnsw_graph(vectors)
    params = _faiss().SearchParametersHNSW(efSearch=max(HNSW_EF_SEARCH, depth))
    query_row = np.asarray(query, dtype=np.float32).reshape(1, -1)
    similarities, rows = graph.search(query_row, depth, params=params)
    found = rows[0] >= 0
    scores[rows[0][found]] = similarities[0][found]
    return scores


def cosine_loop_search(
    rows: Sequence[Sequence[float]], query: Sequence[float], k: int
) -> list[int]:
    """How the systems sitecite replaces searched: a pure-Python cosine loop, then a sort."""
    query_norm = math.sqrt(sum(x * x for x in query))
    scored = []
    for index, row in enumerate(rows):
        dot = sum(x * y for x, y in zip(row, query, strict=False))
        norm = math.sqrt(sum(x * x for x in row)) * query_norm
        scored.append((dot / norm if norm else 0.0, index))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [index for _, index in scored[:k]]


def bm25_scores(index: Index, question: str) -> np.ndarray:
    """BM25 score of every section; the question is tokenized as the index's documents were."""
    if index.bm25 is None or not index.sections:
        return np.zeros(len(index.sections), dtype=np.float32)
    stopwords, stemmer = index.bm25_tokenizer
    tokens = bm25_tokens([question], stopwords, stemmer)[0]
    ids = index.bm25.get_tokens_ids(tokens)
    if not ids:
        return np.zeros(len(index.sections), dtype=np.float32)
    return np.asarray(index.bm25.get_scores_from_ids(ids), dtype=np.float32)


def _minmax(values: np.ndarray) -> np.ndarray:
    low, high = float(values.min()), float(values.max())
    if high - low <= 1e-12:
        return np.zeros_like(values) if high <= 0 else np.ones_like(values)
    return (values - low) / (high - low)


def fuse(cosine: np.ndarray, bm25: np.ndarray, settings: RetrieveSettings) -> np.ndarray:
    """Fused scores for every section; sections outside both candidate lists score -inf.

    Candidates are the top `settings.candidates` by cosine and, among sections sharing a term
    with the question, by BM25. Convex fusion min-max normalises each score over the candidates;
    reciprocal rank fusion adds 1 / (rrf_k + rank) from each list a section is in.
    """
    n = cosine.shape[0]
    if settings.fusion == "dense":
        return cosine.astype(np.float64)
    if settings.fusion == "bm25":
        return bm25.astype(np.float64)
    depth = min(settings.candidates, n)
    dense_top = top_k(cosine, depth)
    dense_top = dense_top[np.isfinite(cosine[dense_top])]  # approximate search scores only some
    bm25_top = top_k(bm25, depth)
    bm25_top = bm25_top[bm25[bm25_top] > 0]
    in_either = np.zeros(n, dtype=bool)
    in_either[dense_top] = in_either[bm25_top] = True
    candidates = np.flatnonzero(in_either)  # sorted, as np.union1d's, without importing numpy.ma
    fused = np.full(n, -np.inf)
    if settings.fusion == "rrf":
        fused[candidates] = 0.0
        fused[dense_top] += 1.0 / (settings.rrf_k + np.arange(1, dense_top.size + 1))
        fused[bm25_top] += 1.0 / (settings.rrf_k + np.arange(1, bm25_top.size + 1))
        return fused
    alpha = settings.alpha
    fused[candidates] = alpha * _minmax(cosine[candidates].astype(np.float64)) + (
        1 - alpha
    ) * _minmax(bm25[candidates].astype(np.float64))
    return fused


def with_dense_floor(
    fused: np.ndarray, cosine: np.ndarray, k: int, settings: RetrieveSettings
) -> np.ndarray:
    """Fused scores in which the `settings.dense_floor` sections closest by meaning rank within
    the top k: "What laptop does Jake use day to day?" matches many sections on "what",
    "does" and "day", which pushed "Uses › Daily Drivers" (second by cosine) out of the top 8.
    Those it lifts take the bottom places of the top k. Only when k is larger than the
    floor, so the fusion always decides the first place."""
    floor = settings.dense_floor
    if not floor or settings.fusion in ("dense", "bm25") or k <= floor or k >= fused.size:
        return fused
    closest = {int(r) for r in top_k(cosine, floor) if np.isfinite(cosine[r])}
    rest = [int(r) for r in top_k(fused, k + len(closest)) if int(r) not in closest]
    if len(rest) <= k - len(closest):
        return fused
    # the best of the others that no longer fits: the closest go just above it
    bar = float(fused[rest[k - len(closest)]])
    lifted = [r for r in closest if not fused[r] > bar]
    if not lifted or not np.isfinite(bar):
        return fused
    fused = fused.copy()
    fused[lifted] = np.nextafter(bar, np.inf)
    return fused


@dataclass
class Retrieval:
    """Everything one search computed; kept so nothing needs computing twice."""

    hits: tuple[Hit, ...]
    query_vector: np.ndarray
    cosine: np.ndarray
    bm25: np.ndarray


def section_threshold(index: Index, configured: float | None) -> float:
    if configured is not None:
        return configured
    stored = index.thresholds().get("section")
    return float(stored) if stored is not None else DEFAULT_SECTION_THRESHOLD


def search(
    index: Index,
    query_vector: np.ndarray,
    question: str,
    k: int,
    threshold: float,
    settings: RetrieveSettings,
) -> Retrieval:
    """Top k sections by fused score; a hit is admitted when its cosine clears the threshold.

    With `settings.ann == "hnsw"` only the approximate dense candidates and BM25's candidates get
    a cosine (computed exactly); the other sections' cosine is -inf.
    """
    bm25 = bm25_scores(index, question)
    if settings.ann == "exact":
        cosine = dense_scores(index.vectors, query_vector)
    else:
        depth = max(settings.candidates, k)
        cosine = approximate_dense_scores(index.vectors, query_vector, depth)
        lexical = top_k(bm25, depth)
        lexical = lexical[bm25[lexical] > 0]
        cosine[lexical] = index.vectors[lexical] @ query_vector
    fused = with_dense_floor(fuse(cosine, bm25, settings), cosine, k, settings)
    hits = tuple(
        Hit(
            section=index.sections[row],
            rank=rank,
            score=float(fused[row]),
            cosine=float(cosine[row]),
            bm25=float(bm25[row]),
            admitted=bool(cosine[row] >= threshold),
        )
        for rank, row in enumerate(top_k(fused, k), start=1)
        if np.isfinite(fused[row])
    )
    return Retrieval(hits, query_vector, cosine, bm25)
