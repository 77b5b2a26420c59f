"""The generated question set: candidates (a question and what makes it gradable or bait), the
questions dropped and why, and the set as JSON (docs/question-set.md) and as a printed report."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

# What the command's three counts ask for, and the question-set categories each one covers.
GROUPS = {
    "answerable": ("grounding", "fact", "multi"),
    "bait": ("abstention",),
    "adversarial": ("adversarial",),
}
DEFAULT_COUNTS = {"answerable": 20, "bait": 12, "adversarial": 8}  # 40: the set size
ID_PREFIX = {"grounding": "g", "fact": "f", "multi": "m", "abstention": "b", "adversarial": "x"}


@dataclass(frozen=True)
class Candidate:
    """One question and how it was made. A bait question carries what makes it unanswerable:
    the names the site must never write (`absent`), or the detail (`detail`: version, price,
    date) the site must never give about `entity`, or the words of a private matter (`private`)
    that must be nowhere on the site."""

    question: str
    category: str
    kind: str
    expected_sources: tuple[str, ...] = ()
    must_contain: tuple[tuple[str, ...], ...] = ()
    must_not_contain: tuple[str, ...] = ()
    attack: str = ""
    notes: str = ""
    absent: tuple[str, ...] = ()
    entity: str = ""
    detail: str = ""
    private: str = ""

    @property
    def group(self) -> str:
        return next(g for g, categories in GROUPS.items() if self.category in categories)

    def to_json(self, question_id: str) -> dict[str, Any]:
        item: dict[str, Any] = {
            "id": question_id,
            "question": self.question,
            "category": self.category,
        }
        if self.expected_sources:
            item["expected_sources"] = list(self.expected_sources)
        if self.must_contain:
            item["must_contain"] = [g[0] if len(g) == 1 else list(g) for g in self.must_contain]
        if self.must_not_contain:
            item["must_not_contain"] = list(self.must_not_contain)
        if self.attack:
            item["attack"] = self.attack
        item["notes"] = f"{self.kind}: {self.notes}" if self.notes else self.kind
        return item


@dataclass(frozen=True)
class Dropped:
    """A question the writer made and then left out, with the reason a person can check."""

    question: str
    group: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"question": self.question, "group": self.group, "reason": self.reason}


@dataclass
class GeneratedSet:
    name: str
    description: str
    questions: list[Candidate]
    dropped: list[Dropped] = field(default_factory=list)
    asked: dict[str, int] = field(default_factory=dict)
    writer: str = "offline"
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The set in the question-set format `sitecite eval` reads."""
        numbers: Counter[str] = Counter()
        items = []
        for candidate in self.questions:
            prefix = ID_PREFIX[candidate.category]
            numbers[prefix] += 1
            items.append(candidate.to_json(f"{prefix}-{numbers[prefix]:02d}"))
        return {"name": self.name, "description": self.description, "questions": items}

    def counts(self) -> Counter[str]:
        return Counter(candidate.group for candidate in self.questions)

    def to_text(self) -> str:
        """What was written, by group and kind, and what was dropped and why."""
        counts = self.counts()
        lines = [
            f"wrote {len(self.questions)} questions ({self.writer}, {self.seconds:.1f} s): "
            + ", ".join(f"{counts[g]} {g}" for g in GROUPS)
        ]
        for group in GROUPS:
            kinds = Counter(c.kind for c in self.questions if c.group == group)
            wanted = self.asked.get(group)
            short = (
                f" (asked for {wanted})" if wanted is not None and wanted > counts[group] else ""
            )
            detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
            lines.append(f"  {group}: {counts[group]}{short}" + (f" · {detail}" if detail else ""))
        if self.dropped:
            lines.append(f"dropped {len(self.dropped)}:")
            lines.extend(f"  - [{d.group}] {d.question} · {d.reason}" for d in self.dropped)
        return "\n".join(lines)
