"""Statistics and retrieval metrics on hand-checked cases (the example-site test checks the
metrics against trec_eval on real runs)."""

from __future__ import annotations

import math

import pytest

from sitecite.eval.metrics import relevant_ranks, retrieval_metrics
from sitecite.eval.stats import Mean, Rate, bootstrap_mean, mcnemar_exact, percentile, wilson


def test_wilson_matches_published_values() -> None:
    # Newcombe (1998), Statistics in Medicine 17:857, table I: 81/263 -> 0.2553-0.3662
    low, high = wilson(81, 263)
    assert low == pytest.approx(0.2553, abs=5e-5) and high == pytest.approx(0.3662, abs=5e-5)
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=5e-5)
    low, high = wilson(10, 10)
    assert high == 1.0 and low == pytest.approx(0.7225, abs=5e-5)
    assert wilson(0, 0) == (None, None)
    assert Rate(3, 4).to_json()["rate"] == 0.75


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [0.0, 1.0, 0.5, 0.25, 1.0, 0.0, 0.75, 1.0]
    first, second = bootstrap_mean(values), bootstrap_mean(values)
    assert first == second
    low, high = first
    assert low is not None and high is not None and low < sum(values) / len(values) < high
    assert bootstrap_mean([]) == (None, None)
    assert bootstrap_mean([2.0, 2.0]) == (2.0, 2.0)
    assert Mean((1.0, 3.0)).mean == 2.0


def test_mcnemar_exact() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(1, 6) == pytest.approx(0.125)  # 2 * (1 + 7) / 128
    assert mcnemar_exact(6, 1) == pytest.approx(0.125)
    assert mcnemar_exact(0, 10) == pytest.approx(2 / 1024)
    assert mcnemar_exact(5, 5) == 1.0


def test_percentile() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([], 95) is None


def hits(*ids: str, admitted: int = 99) -> list[dict[str, object]]:
    return [
        {"id": i, "page_id": i.split("#")[0], "admitted": rank <= admitted}
        for rank, i in enumerate(ids, start=1)
    ]


def test_page_id_matches_any_of_its_sections_once() -> None:
    marks = relevant_ranks(
        [("about#a", "about"), ("about#b", "about"), ("uses#x", "uses")], ["about", "uses#x"]
    )
    assert marks == ["about", None, "uses#x"]


def test_metrics_by_hand() -> None:
    ranking = hits("faq#a", "about#intro", "about#more", "work/x#one", "uses")
    m = retrieval_metrics(ranking, ["about", "work/x#one"])
    assert m["mrr"] == 0.5
    assert m["hit@3"] == 1.0 and m["recall@3"] == 0.5 and m["recall@5"] == 1.0
    ideal = 1 + 1 / math.log2(3)
    assert m["ndcg@3"] == pytest.approx((1 / math.log2(3)) / ideal)
    assert m["ndcg@5"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)


def test_recall_counts_only_admitted_hits() -> None:
    ranking = hits("about#intro", "work/x#one", admitted=1)
    m = retrieval_metrics(ranking, ["about", "work/x"])
    assert m["hit@8"] == 1.0 and m["recall@8"] == 0.5


def test_no_relevant_hit_and_no_expected_sources() -> None:
    m = retrieval_metrics(hits("a", "b"), ["c"])
    assert m["mrr"] == 0.0 and m["hit@8"] == 0.0 and m["ndcg@8"] == 0.0
    assert retrieval_metrics(hits("a"), []) == {}
