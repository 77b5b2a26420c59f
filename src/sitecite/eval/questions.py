"""Question sets (docs/question-set.md): load, validate against an index, name every problem.

A question set is a promise about what the site says; a typo in a source id or a category
would silently make a question unanswerable or ungradable, so every problem is an error that
names the question and the field.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitecite.errors import QuestionSetError

CATEGORIES = ("grounding", "multi", "fact", "abstention", "adversarial")
EXPECTS = ("answer", "refuse", "either")
DEFAULT_EXPECT = {"abstention": "refuse", "adversarial": "refuse"}
QUESTION_FIELDS = (
    "id",
    "question",
    "category",
    "expected_sources",
    "allowed_sources",
    "must_contain",
    "must_not_contain",
    "expect",
    "attack",
    "notes",
)
SET_FIELDS = ("name", "description", "questions")
_LIST_FIELDS = ("expected_sources", "allowed_sources", "must_not_contain")
_TEXT_FIELDS = ("attack", "notes")
MAX_LISTED_PROBLEMS = 10


@dataclass(frozen=True)
class Question:
    """One question of a set, with the defaults of docs/question-set.md applied."""

    id: str
    question: str
    category: str
    expect: str
    expected_sources: tuple[str, ...] = ()
    allowed_sources: tuple[str, ...] = ()
    # Key facts the answer must state: each group is one fact, its strings alternative wordings
    # (any one counts), matched case-insensitively.
    must_contain: tuple[tuple[str, ...], ...] = ()
    must_not_contain: tuple[str, ...] = ()
    attack: str = ""
    notes: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question": self.question,
            "category": self.category,
            "expect": self.expect,
            "expected_sources": list(self.expected_sources),
            "allowed_sources": list(self.allowed_sources),
            "must_contain": [g[0] if len(g) == 1 else list(g) for g in self.must_contain],
            "must_not_contain": list(self.must_not_contain),
            "attack": self.attack,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class QuestionSet:
    name: str
    questions: tuple[Question, ...]
    path: str = ""
    digest: str = ""
    categories: tuple[str, ...] = field(default=CATEGORIES)

    def __len__(self) -> int:
        return len(self.questions)

    def by_id(self) -> dict[str, Question]:
        return {q.id: q for q in self.questions}


def load_question_set(
    path: str | Path, known_sources: Collection[str] | None = None
) -> QuestionSet:
    """Read and validate a question set; `known_sources` (section and page ids) checks sources."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise QuestionSetError(f"{path}: cannot read the question set ({exc.strerror})") from exc
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise QuestionSetError(f"{path}: not valid JSON ({exc})") from exc
    return parse_question_set(data, known_sources, source=str(path))


def parse_question_set(
    data: Any, known_sources: Collection[str] | None = None, source: str = "question set"
) -> QuestionSet:
    """Validate an already-parsed question set; all problems are reported together."""
    if not isinstance(data, dict):
        raise QuestionSetError(f"{source}: expected a JSON object with a 'questions' list")
    problems = [
        f"unknown top-level field '{key}' (allowed: {', '.join(SET_FIELDS)})"
        for key in data
        if key not in SET_FIELDS
    ]
    items = data.get("questions")
    if not isinstance(items, list) or not items:
        problems.append("'questions' must be a non-empty list")
        items = []
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for position, item in enumerate(items, start=1):
        label = _label(item, position)
        found, question = _parse_question(item, label)
        problems.extend(found)
        if question is None:
            continue
        if question.id in seen:
            problems.append(f"{label}: duplicate id (also question #{seen[question.id]})")
            continue
        seen[question.id] = position
        if known_sources is not None:
            problems.extend(_unknown_sources(question, label, known_sources))
        questions.append(question)
    if problems:
        listed = problems[:MAX_LISTED_PROBLEMS]
        more = len(problems) - len(listed)
        raise QuestionSetError(
            f"{source}: " + "; ".join(listed) + (f"; and {more} more" if more else "")
        )
    name = data.get("name") if isinstance(data.get("name"), str) else ""
    digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
    return QuestionSet(name or Path(source).stem, tuple(questions), source, digest)


def _label(item: Any, position: int) -> str:
    if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]:
        return f"question '{item['id']}'"
    return f"question #{position}"


def _parse_question(item: Any, label: str) -> tuple[list[str], Question | None]:
    if not isinstance(item, dict):
        return [f"{label}: expected an object, got {type(item).__name__}"], None
    problems = [
        f"{label}: unknown field '{key}' (allowed: {', '.join(QUESTION_FIELDS)})"
        for key in item
        if key not in QUESTION_FIELDS
    ]
    for key in ("id", "question"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            problems.append(f"{label}: '{key}' must be a non-empty string")
    category = item.get("category")
    if category not in CATEGORIES:
        problems.append(f"{label}: bad category {category!r} (one of: {', '.join(CATEGORIES)})")
    expect = item.get("expect", DEFAULT_EXPECT.get(str(category), "answer"))
    if expect not in EXPECTS:
        problems.append(f"{label}: bad expect {expect!r} (one of: {', '.join(EXPECTS)})")
    lists: dict[str, tuple[str, ...]] = {}
    for key in _LIST_FIELDS:
        value = item.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            problems.append(f"{label}: '{key}' must be a list of non-empty strings")
            value = []
        lists[key] = tuple(value)
    groups = _groups(item.get("must_contain", []))
    if groups is None:
        problems.append(
            f"{label}: 'must_contain' must be a list whose entries are non-empty strings or "
            "non-empty lists of alternative strings"
        )
    for key in _TEXT_FIELDS:
        if not isinstance(item.get(key, ""), str):
            problems.append(f"{label}: '{key}' must be a string")
    if problems:
        return problems, None
    question = Question(
        id=item["id"].strip(),
        question=item["question"],
        category=str(category),
        expect=str(expect),
        attack=item.get("attack", ""),
        notes=item.get("notes", ""),
        must_contain=groups or (),
        **lists,
    )
    return _consistency(question, label), question


def _groups(value: Any) -> tuple[tuple[str, ...], ...] | None:
    """`must_contain` as groups of alternatives ("2nd" -> ("2nd",); ["2nd", "second"] stays a
    group), or None when it is malformed."""
    if not isinstance(value, list):
        return None
    groups = []
    for entry in value:
        group = [entry] if isinstance(entry, str) else entry
        if not isinstance(group, list) or not group:
            return None
        if not all(isinstance(v, str) and v.strip() for v in group):
            return None
        groups.append(tuple(group))
    return tuple(groups)


def missing_groups(groups: Iterable[tuple[str, ...]], text: str) -> list[tuple[str, ...]]:
    """The groups none of whose alternatives occurs in `text` (case-insensitively)."""
    lowered = text.lower()
    return [g for g in groups if not any(v.lower() in lowered for v in g)]


def describe_group(group: tuple[str, ...]) -> str:
    return group[0] if len(group) == 1 else " or ".join(f"'{v}'" for v in group)


def _consistency(question: Question, label: str) -> list[str]:
    """What each category needs to be gradable at all."""
    problems = []
    if question.category in ("grounding", "multi", "fact") and not question.expected_sources:
        problems.append(f"{label}: a {question.category} question needs 'expected_sources'")
    if question.category == "multi" and len(question.expected_sources) == 1:
        problems.append(f"{label}: a multi question needs at least two 'expected_sources'")
    if question.category == "fact" and not question.must_contain:
        problems.append(f"{label}: a fact question needs 'must_contain'")
    return problems


def _unknown_sources(question: Question, label: str, known: Collection[str]) -> Iterable[str]:
    for key in ("expected_sources", "allowed_sources"):
        for source in getattr(question, key):
            if source not in known:
                yield (
                    f"{label}: unknown source '{source}' in '{key}' "
                    "(not a page or section id of the index)"
                )


def index_source_ids(sections: Iterable[Any]) -> frozenset[str]:
    """Every id a question may name: each section id and each page id."""
    ids: set[str] = set()
    for section in sections:
        ids.add(section.id)
        ids.add(section.page_id)
    return frozenset(ids)
