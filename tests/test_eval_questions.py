"""Question sets: docs/question-set.md defaults, and errors that name the question and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitecite.errors import QuestionSetError
from sitecite.eval.questions import index_source_ids, load_question_set, parse_question_set
from sitecite.types import Section

KNOWN = {
    "about",
    "about#intro",
    "about#how-i-got-here",
    "work/lumen",
    "work/lumen#results",
    "_facts",
    "_facts#location",
}


def question(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "g-01",
        "question": "Where does she work?",
        "category": "grounding",
        "expected_sources": ["about"],
    }
    base.update(fields)
    return {key: value for key, value in base.items() if value is not None}


def problems(*questions: dict[str, object], known: set[str] | None = KNOWN) -> str:
    with pytest.raises(QuestionSetError) as caught:
        parse_question_set({"name": "t", "questions": list(questions)}, known)
    return str(caught.value)


def test_defaults_follow_the_design() -> None:
    loaded = parse_question_set(
        {
            "name": "t",
            "questions": [
                question(),
                question(id="a-01", category="abstention", expected_sources=None),
                question(
                    id="x-01",
                    category="adversarial",
                    expected_sources=None,
                    attack="prompt-injection",
                    must_not_contain=["PWNED"],
                ),
                question(
                    id="x-02", category="adversarial", expected_sources=["about"], expect="either"
                ),
            ],
        },
        KNOWN,
    )
    assert [q.expect for q in loaded.questions] == ["answer", "refuse", "refuse", "either"]
    assert loaded.questions[2].must_not_contain == ("PWNED",)
    assert loaded.name == "t" and len(loaded.digest) == 16


def test_unknown_field_is_named_with_its_question() -> None:
    message = problems(question(expected_source=["about"]))
    assert "question 'g-01'" in message and "unknown field 'expected_source'" in message


def test_duplicate_ids_are_an_error() -> None:
    message = problems(question(), question(question="Another?"))
    assert "question 'g-01': duplicate id (also question #1)" in message


def test_unknown_sources_are_checked_against_the_index() -> None:
    message = problems(
        question(expected_sources=["about#how-i-got-her"], allowed_sources=["work/lumn"])
    )
    assert "unknown source 'about#how-i-got-her' in 'expected_sources'" in message
    assert "unknown source 'work/lumn' in 'allowed_sources'" in message
    # without an index, sources are not checked
    parse_question_set({"questions": [question(expected_sources=["nowhere"])]}, None)


def test_bad_category_and_expect_are_named() -> None:
    message = problems(question(category="trivia"), question(id="g-02", expect="maybe"))
    assert "question 'g-01': bad category 'trivia'" in message
    assert "question 'g-02': bad expect 'maybe'" in message


def test_categories_need_what_grading_them_needs() -> None:
    assert "needs 'expected_sources'" in problems(question(expected_sources=None))
    assert "at least two" in problems(question(category="multi"))
    assert "needs 'must_contain'" in problems(question(category="fact"))


def test_wrong_types_and_missing_text() -> None:
    message = problems(
        {"id": "", "question": 3, "category": "grounding"}, question(id="g-02", must_contain="2001")
    )
    assert "question #1: 'id' must be a non-empty string" in message
    assert "'question' must be a non-empty string" in message
    assert "question 'g-02': 'must_contain' must be a list whose entries are non-empty" in message


def test_must_contain_groups_of_alternatives() -> None:
    item = question(must_contain=["2001", ["2nd", "second"]])
    loaded = parse_question_set({"questions": [item]})
    assert loaded.questions[0].must_contain == (("2001",), ("2nd", "second"))
    assert loaded.questions[0].to_json()["must_contain"] == ["2001", ["2nd", "second"]]
    for bad in ([["2nd", ""]], [[]], [3], "2001"):
        assert "'must_contain' must be a list" in problems(question(must_contain=bad))


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(QuestionSetError, match="cannot read"):
        load_question_set(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(QuestionSetError, match="not valid JSON"):
        load_question_set(broken)
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"questions": [question()], "version": 2}))
    with pytest.raises(QuestionSetError, match="unknown top-level field 'version'"):
        load_question_set(extra, KNOWN)


def test_example_sets_are_valid() -> None:
    repo = Path(__file__).resolve().parents[1]
    for name in ("questions.json", "calibration.json"):
        loaded = load_question_set(repo / "examples" / name)
        assert len(loaded) > 10


def test_index_source_ids_has_pages_and_sections() -> None:
    sections = [
        Section("about#intro", "about", "About", "", "/about", "x", "h"),
        Section("uses", "uses", "Uses", "", "/uses", "y", "h"),
    ]
    assert index_source_ids(sections) == {"about#intro", "about", "uses"}
