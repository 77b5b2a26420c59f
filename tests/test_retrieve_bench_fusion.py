"""Fusion arithmetic, BM25 tokenisation defaults and the optional HNSW search, without a model."""

from __future__ import annotations

import builtins
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from sitecite.config import RetrieveSettings
from sitecite.errors import ConfigError
from sitecite.index.store import Index
from sitecite.retrieve import approximate_dense_scores, dense_scores, fuse, search, top_k
from sitecite.text import bm25_tokens
from sitecite.types import Section


def random_scores(seed: int, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    cosine = rng.uniform(-0.2, 0.9, n).astype(np.float32)
    bm25 = np.where(rng.random(n) < 0.3, rng.exponential(4.0, n), 0.0).astype(np.float32)
    return cosine, bm25


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_convex_fusion_at_alpha_one_is_the_dense_ranking(seed: int) -> None:
    cosine, bm25 = random_scores(seed)
    fused = fuse(cosine, bm25, RetrieveSettings(fusion="convex", alpha=1.0, candidates=50))
    assert top_k(fused, 50).tolist() == top_k(cosine, 50).tolist()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_convex_fusion_at_alpha_zero_is_the_bm25_ranking(seed: int) -> None:
    cosine, bm25 = random_scores(seed)
    matching = int((bm25 > 0).sum())
    fused = fuse(cosine, bm25, RetrieveSettings(fusion="convex", alpha=0.0, candidates=500))
    assert top_k(fused, matching).tolist() == top_k(bm25, matching).tolist()


@pytest.mark.parametrize("n", [7, 5_000, 200_000])
def test_top_k_equals_a_full_stable_sort(n: int) -> None:
    rng = np.random.default_rng(n)
    patterns = [
        rng.standard_normal(n).astype(np.float32),
        rng.integers(0, 4, n).astype(np.float32),  # many ties
        np.where(rng.random(n) < 0.001, rng.random(n), 0.0).astype(np.float32),  # mostly zero
        np.where(rng.random(n) < 0.9, -np.inf, rng.random(n)).astype(np.float32),
    ]
    for scores in patterns:
        reference = np.lexsort((np.arange(n), -scores))
        for k in (1, 8, 100, 5_000):
            assert top_k(scores, k).tolist() == reference[: min(k, n)].tolist()


def test_reciprocal_rank_fusion_by_hand() -> None:
    #            d0    d1    d2    d3    d4
    cosine = np.array([0.9, 0.8, 0.1, 0.5, 0.0], dtype=np.float32)  # ranks d0 d1 d3 d2 | d4
    bm25 = np.array(
        [0.0, 3.0, 2.0, 0.0, 1.0], dtype=np.float32
    )  # ranks d1 d2 d4; d0, d3 match nothing
    fused = fuse(cosine, bm25, RetrieveSettings(fusion="rrf", rrf_k=10, candidates=4))
    expected = {0: 1 / 11, 1: 1 / 12 + 1 / 11, 2: 1 / 14 + 1 / 12, 3: 1 / 13, 4: 1 / 13}
    assert {i: pytest.approx(fused[i]) for i in expected} == expected
    assert top_k(fused, 5).tolist() == [1, 2, 0, 3, 4]


def test_convex_fusion_by_hand_and_outsiders_score_minus_infinity() -> None:
    cosine = np.array([0.8, 0.6, 0.4, 0.2, 0.0], dtype=np.float32)
    bm25 = np.array([0.0, 0.0, 4.0, 2.0, 0.0], dtype=np.float32)
    fused = fuse(cosine, bm25, RetrieveSettings(fusion="convex", alpha=0.5, candidates=2))
    # candidates: dense top 2 {d0, d1} and BM25 top 2 {d2, d3}; cosine 0.2..0.8 and BM25 0..4
    expected = [0.5 * 1.0, 0.5 * (2 / 3), 0.5 * (1 / 3) + 0.5, 0.0 + 0.25, -np.inf]
    assert fused.tolist() == pytest.approx(expected)


def test_bm25_tokens_keep_stop_words_and_stem_by_default() -> None:
    assert bm25_tokens(["The cats are running"]) == [["the", "cat", "are", "run"]]
    assert bm25_tokens(["The cats are running"], stopwords="en") == [["cat", "run"]]
    assert RetrieveSettings().stopwords == "" and RetrieveSettings().stemmer == "english"


def tiny_index(vectors: np.ndarray, texts: list[str]) -> Index:
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(bm25_tokens(texts), show_progress=False)
    sections = [
        Section(id=f"p#{i}", page_id="p", title="t", heading="", url="", text=t, hash=str(i))
        for i, t in enumerate(texts)
    ]
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    empty = np.zeros((0, vectors.shape[1]), dtype=np.float32)
    return Index(
        Path("tiny"), {"embedder": {"id": "test"}}, sections, vectors, empty, offsets, retriever
    )


def unit_rows(n: int, dim: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_hnsw_search_matches_exact_search_on_a_small_index() -> None:
    pytest.importorskip("faiss", reason="the optional 'ann' extra (faiss-cpu) is not installed")
    vectors = unit_rows(3000, 32, seed=3)
    texts = [f"section {i} about topic {i % 17}" for i in range(3000)]
    index = tiny_index(vectors, texts)
    overlap = []
    for row in range(0, 3000, 150):
        query = vectors[row]
        exact = top_k(dense_scores(vectors, query), 10)
        approximate = top_k(approximate_dense_scores(vectors, query, 100), 10)
        overlap.append(len(set(exact.tolist()) & set(approximate.tolist())) / 10)
        exact_hits = search(index, query, "topic 5", 8, -1.0, RetrieveSettings())
        ann_hits = search(index, query, "topic 5", 8, -1.0, RetrieveSettings(ann="hnsw"))
        assert [h.section.id for h in ann_hits.hits][:3] == [h.section.id for h in exact_hits.hits][
            :3
        ]
    assert np.mean(overlap) >= 0.95


def test_hnsw_without_faiss_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_faiss(name: str, *args: object, **kwargs: object) -> object:
        if name == "faiss":
            raise ImportError("No module named 'faiss'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_faiss)
    index = tiny_index(unit_rows(20, 8, seed=4), [f"text {i}" for i in range(20)])
    index = dataclasses.replace(index, vectors=index.vectors.copy())  # a matrix with no graph yet
    with pytest.raises(ConfigError, match=r"pip install 'sitecite\[ann\]'"):
        search(index, index.vectors[0], "text", 8, -1.0, RetrieveSettings(ann="hnsw"))
