"""The harness on the example site with the real embedder: metrics agree with trec_eval (through
pytrec_eval) on the same runs, and the lab page renders in headless Chromium."""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from sitecite.eval import RunStore, load_question_set
from sitecite.eval.lab import lab_for_run
from sitecite.eval.questions import index_source_ids
from sitecite.eval.report import Report
from sitecite.eval.runner import Runner

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def history_index(example_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the index, so this module's run history stays its own."""
    target = tmp_path_factory.mktemp("history") / "index"
    shutil.copytree(example_index, target)
    return target


@pytest.fixture(scope="module")
def example_report(engine: Any, history_index: Path) -> Report:
    questions = load_question_set(
        REPO / "examples" / "questions.json", index_source_ids(engine.index.sections)
    )
    with RunStore.for_index(history_index) as store:
        return Runner(engine, store).run(questions)


def trec_inputs(
    questions: list[dict[str, Any]], admitted_only: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """qrels and run for trec_eval. trec_eval knows only document ids, so each hit is named after
    the expected source it is the first to match (a page id matches its sections), and every other
    hit (or, for recall, every hit the gate kept out) after itself, so it counts as non-relevant."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for question in questions:
        expected = question["expected_sources"]
        if not expected:
            continue
        qrels[question["id"]] = {source: 1 for source in expected}
        found: set[str] = set()
        ranking: dict[str, float] = {}
        for hit in question["retrieved"]:
            name = f"other:{hit['rank']}:{hit['id']}"
            if hit["admitted"] or not admitted_only:
                for source in expected:
                    same = hit["id"] == source or ("#" not in source and hit["page_id"] == source)
                    if same and source not in found:
                        found.add(source)
                        name = source
                        break
            ranking[name] = 1000.0 - hit["rank"]
        run[question["id"]] = ranking
    return qrels, run


def test_metrics_agree_with_trec_eval(example_report: Report) -> None:
    import pytrec_eval

    questions = example_report.questions
    qrels, run = trec_inputs(questions, admitted_only=False)
    measures = {"recip_rank", "success.3,5,8", "ndcg_cut.3,5,8"}
    scored = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    qrels, gated_run = trec_inputs(questions, admitted_only=True)
    recall = pytrec_eval.RelevanceEvaluator(qrels, {"recall.3,5,8"}).evaluate(gated_run)
    assert len(scored) == example_report.summary["retrieval_questions"] == 40
    ours = {q["id"]: q["metrics"] for q in questions if q["metrics"]}
    for qid, theirs in scored.items():
        assert math.isclose(ours[qid]["mrr"], theirs["recip_rank"], abs_tol=1e-9)
        for k in (3, 5, 8):
            assert math.isclose(ours[qid][f"hit@{k}"], theirs[f"success_{k}"], abs_tol=1e-9)
            assert math.isclose(ours[qid][f"ndcg@{k}"], theirs[f"ndcg_cut_{k}"], abs_tol=1e-9)
            assert math.isclose(ours[qid][f"recall@{k}"], recall[qid][f"recall_{k}"], abs_tol=1e-9)
    summary = example_report.summary
    for k in (3, 5, 8):
        mean_ndcg = sum(s[f"ndcg_cut_{k}"] for s in scored.values()) / len(scored)
        assert math.isclose(
            summary[f"ndcg@{k}"]["mean"], mean_ndcg, abs_tol=1e-6
        )  # summary rounds to 1e-6
        hits = sum(s[f"success_{k}"] for s in scored.values())
        assert summary[f"hit@{k}"]["k"] == hits
    mrr = sum(s["recip_rank"] for s in scored.values()) / len(scored)
    assert math.isclose(summary["mrr"]["mean"], mrr, abs_tol=1e-6)


def test_example_run_holds_the_adversarial_line(example_report: Report) -> None:
    summary = example_report.summary
    assert summary["total"] == 66 and len(example_report.questions) == 66
    assert summary["by_category"]["adversarial"]["pass_rate"]["rate"] == 1.0
    assert summary["hit@8"]["rate"] >= 0.9


@pytest.mark.browser
@pytest.mark.slow
def test_lab_renders_in_headless_chromium(
    example_report: Report, history_index: Path, artifacts: Path, chromium: Any
) -> None:
    with RunStore.for_index(history_index) as store:
        html = lab_for_run(store, example_report.run["id"], history_index)
    page_path = artifacts / "eval-lab.html"
    page_path.write_text(html, encoding="utf-8")
    requests: list[str] = []
    errors: list[str] = []
    page = chromium.new_page(viewport={"width": 1280, "height": 1000})
    try:
        page.on("request", lambda request: requests.append(request.url))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(page_path.as_uri())
        assert page.title().startswith("sitecite evaluation lab")
        assert page.locator("details.q").count() == 66
        assert page.locator("#summary + .cards .card").count() >= 8
        assert page.locator("#history ~ svg").count() >= 1
        page.screenshot(path=str(artifacts / "eval-lab.png"))
        page.screenshot(path=str(artifacts / "eval-lab-full.png"), full_page=True)
    finally:
        page.close()
    assert errors == []
    assert all(url.startswith("file://") for url in requests), (
        requests
    )  # self-contained: no network
    assert (artifacts / "eval-lab.png").stat().st_size > 20_000
