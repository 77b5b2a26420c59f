"""A small version of bench/eval_squad2.py: SQuAD 2.0 paragraphs as sections, answerable and
unanswerable questions through the harness end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import shared_data

from bench import eval_squad2 as squad


def test_question_set_and_sections_follow_the_contracts() -> None:
    data = shared_data("abstention", "squad2") / "flat.jsonl"
    rows = squad.read_rows(data, limit_paragraphs=3)
    sections = squad.sections_of(rows)
    assert len(sections) == 3 and sections[0].id == "normans/p00" and sections[0].sentences
    questions = squad.question_set(rows)["questions"]
    assert len(questions) == len(rows)
    for row, question in zip(rows, questions, strict=True):
        if row["is_impossible"]:
            assert question["category"] == "abstention" and "expected_sources" not in question
        else:
            assert question["expected_sources"] == [squad.page_id(row)]
            assert question["must_contain"][0] in row["context"]
    dev, test = squad.split({"name": "s", "questions": questions})
    assert {q["id"] for q in dev["questions"]} | {q["id"] for q in test["questions"]} == {
        q["id"] for q in questions
    }
    assert not {q["id"] for q in dev["questions"]} & {q["id"] for q in test["questions"]}


def test_squad2_end_to_end(embedder: Any, tmp_path: Path) -> None:
    shared_data("abstention", "squad2")
    result = squad.run(work=tmp_path, limit_paragraphs=1, calibrate=False, embedder=embedder)
    rows = squad.read_rows(limit_paragraphs=1)
    unanswerable = sum(r["is_impossible"] for r in rows)
    assert result["evaluated"] == len(rows)
    assert result["unanswerable_refused"]["n"] == unanswerable
    assert result["answerable_answered"]["n"] == len(rows) - unanswerable
    low, high = result["unanswerable_refused"]["low"], result["unanswerable_refused"]["high"]
    assert 0.0 <= low <= result["unanswerable_refused"]["rate"] <= high <= 1.0
    assert result["hit@8"]["n"] == len(rows) - unanswerable
    json.dumps(result)  # the --json line is serialisable
    assert (tmp_path / "default-thresholds-1.runs.sqlite").exists()
