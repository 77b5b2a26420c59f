"""Ranking metrics per query through pytrec_eval (trec_eval's own code), so the figures are
comparable with BEIR and MTEB; per-query values feed the bootstrap intervals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

METRICS = ("ndcg@10", "recall@10", "recall@100")
_TREC_NAMES = {"ndcg@10": "ndcg_cut_10", "recall@10": "recall_10", "recall@100": "recall_100"}


def ranked_run(rankings: Mapping[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """A TREC run whose scores encode the given order exactly (trec_eval breaks ties by doc id)."""
    return {
        qid: {doc: float(len(docs) - rank) for rank, doc in enumerate(docs)}
        for qid, docs in rankings.items()
    }


def per_query(
    rankings: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    metrics: Sequence[str] = METRICS,
) -> dict[str, np.ndarray]:
    """Each metric as an array over the judged queries (in qrels order); unanswered queries score 0.

    As in BEIR and MTEB, a document whose id equals the query id is not counted as retrieved.
    """
    import pytrec_eval

    judged = {qid: dict(docs) for qid, docs in qrels.items()}
    cleaned = {qid: [doc for doc in rankings.get(qid, ()) if doc != qid] for qid in judged}
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut.10", "recall.10", "recall.100"})
    scores = evaluator.evaluate({qid: run for qid, run in ranked_run(cleaned).items() if run})
    return {
        metric: np.array([scores.get(qid, {}).get(_TREC_NAMES[metric], 0.0) for qid in judged])
        for metric in metrics
    }


def summarise(values: Mapping[str, np.ndarray]) -> dict[str, float]:
    return {metric: float(np.mean(array)) for metric, array in values.items()}
