"""Exact dense search equals the pure-Python cosine loop; fusion keeps both signals."""

from __future__ import annotations

import numpy as np

from sitecite.config import RetrieveSettings
from sitecite.pipeline import Engine
from sitecite.retrieve import cosine_loop_search, dense_scores, search, top_k


def test_dense_ranking_equals_the_pure_python_loop(engine: Engine) -> None:
    rows = engine.index.vectors.tolist()
    queries = [
        "checkout payments",
        "where is she based",
        "design system for a bank",
        "offline photos upload",
        "capital of Peru",
    ]
    for query in queries:
        vector = engine.embedder.embed_query(query)
        numpy_order = top_k(dense_scores(engine.index.vectors, vector), len(rows)).tolist()
        assert numpy_order == cosine_loop_search(rows, vector.tolist(), len(rows))
        hits = search(engine.index, vector, query, 8, 0.0, RetrieveSettings(fusion="dense")).hits
        assert [engine.index.row_of[h.section.id] for h in hits] == numpy_order[:8]


def test_top_k_breaks_ties_by_position() -> None:
    scores = np.array([0.5, 0.9, 0.5, 0.9, 0.1])
    assert top_k(scores, 3).tolist() == [1, 3, 0]
    assert top_k(scores, 10).tolist() == [1, 3, 0, 2, 4]


def test_hybrid_search_finds_exact_names_and_marks_admission(engine: Engine) -> None:
    question = "Femke Janssens"
    vector = engine.embedder.embed_query(question)
    hits = search(
        engine.index, vector, question, 8, engine.threshold, engine.settings.retrieve
    ).hits
    assert hits[0].section.id.startswith("testimonials") and hits[0].bm25 > 0
    assert all(h.admitted == (h.cosine >= engine.threshold) for h in hits)
