"""Retrieval metrics from a Trace's ranked hits, scored apart from the answer.

An expected source is a section id or a page id; a page id matches any of its sections. Each
expected source is counted once: the first hit that matches it is the relevant one, later
hits of the same page are not relevant again (otherwise a page split into many sections could
fill the ranking and score above a perfect one).

- hit@k: some expected source is among the first k hits;
- recall@k: the fraction of expected sources among the first k hits *and admitted by the gate*
  (what actually reached the generator);
- MRR: 1 / rank of the first relevant hit (0 if none was retrieved);
- nDCG@k: binary gains over the first k hits, ideal = min(k, number of expected sources).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

KS = (3, 5, 8)
METRIC_NAMES = tuple(f"{name}@{k}" for name in ("hit", "recall", "ndcg") for k in KS) + ("mrr",)


def matches(source: str, section_id: str, page_id: str) -> bool:
    """A section id matches itself; a page id (no '#') matches every section of that page."""
    return section_id == source or ("#" not in source and page_id == source)


def relevant_ranks(hits: Sequence[tuple[str, str]], expected: Sequence[str]) -> list[str | None]:
    """For each hit (section id, page id) in rank order, the expected source it is the first to
    match, or None."""
    covered: set[str] = set()
    marks: list[str | None] = []
    for section_id, page_id in hits:
        new = next(
            (s for s in expected if s not in covered and matches(s, section_id, page_id)), None
        )
        if new is not None:
            covered.add(new)
        marks.append(new)
    return marks


def retrieval_metrics(
    hits: Sequence[dict[str, Any]], expected: Sequence[str], ks: Sequence[int] = KS
) -> dict[str, float]:
    """Every metric for one question; `hits` are dicts with id, page_id, admitted (rank order)."""
    expected = list(dict.fromkeys(expected))
    if not expected:
        return {}
    pairs = [(str(h["id"]), str(h["page_id"])) for h in hits]
    marks = relevant_ranks(pairs, expected)
    # a hit the gate kept out matches nothing for recall, but keeps its place in the ranking
    gated = [pair if hit["admitted"] else ("", "") for pair, hit in zip(pairs, hits, strict=True)]
    admitted_marks = relevant_ranks(gated, expected)
    first = next((rank for rank, mark in enumerate(marks, start=1) if mark is not None), None)
    result: dict[str, float] = {"mrr": 1.0 / first if first else 0.0}
    for k in ks:
        top = marks[:k]
        result[f"hit@{k}"] = 1.0 if any(m is not None for m in top) else 0.0
        result[f"recall@{k}"] = sum(m is not None for m in admitted_marks[:k]) / len(expected)
        dcg = sum(1.0 / math.log2(rank + 1) for rank, m in enumerate(top, start=1) if m is not None)
        ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(k, len(expected)) + 1))
        result[f"ndcg@{k}"] = dcg / ideal
    return result
