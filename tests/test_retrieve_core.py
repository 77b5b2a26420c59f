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


def test_the_closest_sections_by_meaning_are_always_among_the_top_k() -> None:
    """BM25 keeps stop words, so a question's common words can rank sections above the one
    closest by meaning; `dense_floor` of them keep a place at the bottom of the top k."""
    from sitecite.retrieve import with_dense_floor

    fused = np.array([0.9, 0.8, 0.7, 0.6, 0.1, 0.05])
    cosine = np.array([0.1, 0.2, 0.1, 0.1, 0.5, 0.4])
    settings = RetrieveSettings()
    lifted = with_dense_floor(fused, cosine, 3, settings)
    assert set(top_k(lifted, 3).tolist()) == {0, 4, 5}  # the two closest by cosine, and the best
    assert lifted[0] == fused[0] and lifted[4] > fused[2]
    assert top_k(with_dense_floor(fused, cosine, 5, settings), 5).tolist() == [0, 1, 2, 4, 5]
    off = settings.model_copy(update={"dense_floor": 0})
    assert with_dense_floor(fused, cosine, 3, off) is fused


def test_every_hit_list_holds_the_two_closest_sections(engine: Engine) -> None:
    import json

    from conftest import EXAMPLE_QUESTIONS  # noqa: F401  (the example site's questions)

    questions = [q["question"] for q in json.loads(EXAMPLE_QUESTIONS.read_text())["questions"]]
    for question in questions:
        vector = engine.embedder.embed_query(question)
        retrieval = search(engine.index, vector, question, 4, -1.0, engine.settings.retrieve)
        closest = set(top_k(retrieval.cosine, 2).tolist())
        ids = {engine.index.row_of[h.section.id] for h in retrieval.hits}
        assert closest <= ids, question
