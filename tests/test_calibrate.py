"""`sitecite calibrate`: both distributions, a threshold per embedder, rates with intervals."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import CALIBRATION_QUESTIONS

from sitecite.calibrate import (
    calibrate,
    choose_section_threshold,
    choose_support,
    offtopic_questions,
)
from sitecite.index.store import load_index
from sitecite.pipeline import Engine


def test_bundled_offtopic_list_has_a_few_hundred_distinct_questions() -> None:
    questions = offtopic_questions()
    assert len(questions) >= 250 and len(set(questions)) == len(questions)


def test_threshold_sits_in_the_gap_or_at_the_stated_false_accept_rate() -> None:
    assert choose_section_threshold([0.6, 0.7], [0.1, 0.4], 0.05) == (0.5, True)
    off = [i / 100 for i in range(100)]  # 0.00 .. 0.99
    threshold, gap = choose_section_threshold([0.5, 0.9], off, 0.10)
    assert not gap and sum(x >= threshold for x in off) == 10


def test_support_thresholds_refuse_fewest_answers_within_the_false_accept_budget() -> None:
    answerable = [[(0.5, 0.9)], [(0.3, 0.6)], [(0.2, 0.45)]]
    refusable = [[(0.25, 0.5)], [(0.1, 0.2)]]
    a, b, stats = choose_support(answerable, refusable, {"answerable": 1, "refusable": 8}, 0.0)
    assert stats["false_accept"]["k"] == 0
    # (0.2, 0.45) cannot be kept without also answering (0.25, 0.5); plus one refused earlier
    assert stats["false_reject"]["k"] == 2 and stats["false_reject"]["n"] == 4
    assert (a, b) == (0.0, 0.6)  # among equals: the highest coverage, then the lowest cosine


def test_calibrate_stores_thresholds_keyed_by_embedder(engine: Engine, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    shutil.copytree(engine.index.path, index_dir)
    private = Engine.load(index_dir, engine.settings)
    report = calibrate(private, CALIBRATION_QUESTIONS, false_accept=0.2)
    stored = load_index(index_dir).thresholds(private.embedder.id)
    assert stored["section"] == round(report.section, 4)
    assert stored["coverage"] == round(report.coverage, 4)
    assert len(stored["off_topic"]) == len(offtopic_questions()) and len(stored["on_topic"]) == 30
    assert stored["false_accept"]["rate"] <= 0.2
    low, high = stored["false_reject"]["low"], stored["false_reject"]["high"]
    assert 0 <= low <= stored["false_reject"]["rate"] <= high <= 1
    text = report.to_text()
    assert "on-topic (30)" in text and "off-topic (300)" in text and "<- threshold" in text
    assert "95% CI" in text
    reloaded = Engine.load(index_dir, engine.settings)
    assert (
        reloaded.threshold == stored["section"]
        and reloaded.coverage_threshold == stored["coverage"]
    )


def test_calibrate_without_questions_uses_the_site_headings(engine: Engine, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    shutil.copytree(engine.index.path, index_dir)
    report = calibrate(Engine.load(index_dir, engine.settings), store=False)
    assert report.source == "site headings" and len(report.on_topic) > 50
    assert report.sentence is None
