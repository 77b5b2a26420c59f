"""An evaluation Report: the run, its summary with intervals, and every question's result. It
renders itself as JSON (docs/results.md) and a rich table; `eval.gate` writes it as JUnit XML
and `eval.lab.render_lab` as the lab page (the lab reads the run history and comparisons, which
read reports, so a report cannot import it).

With `--repeat N` a question passes only if it passed every time; a question that passed some
times and failed others is *flaky* and listed as such.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sitecite.eval.metrics import KS
from sitecite.eval.questions import CATEGORIES
from sitecite.eval.stats import Mean, Rate, percentile

OUTCOMES = ("answered", "pointed", "refused")  # types.Outcome, in the order they are shown
RANKING_METRICS = tuple(f"{m}@{k}" for m in ("recall", "ndcg") for k in KS) + ("mrr",)
HIT_METRICS = tuple(f"hit@{k}" for k in KS)


def outcome_of(result: dict[str, Any]) -> str:
    """A result's outcome; runs recorded before outcomes existed were answered or refused."""
    if result.get("outcome"):
        return str(result["outcome"])
    if result.get("error"):
        return "error"
    return "refused" if result.get("refused") else "answered"


def count_outcomes(results: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many results were answered, pointed and refused (errors are listed apart)."""
    counts = dict.fromkeys(OUTCOMES, 0)
    for result in results:
        outcome = outcome_of(result)
        if outcome in counts:
            counts[outcome] += 1
    return counts


def combine_repeats(results: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per question: the first repeat's details; passed only if every repeat passed."""
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for result in results:
        grouped[result["id"]].append(result)
    combined = []
    for attempts in grouped.values():
        attempts.sort(key=lambda r: r.get("repeat", 0))
        entry = dict(attempts[0])
        outcomes = [bool(r["passed"]) for r in attempts]
        entry["passed"] = all(outcomes)
        entry["flaky"] = len(set(outcomes)) > 1
        if len(attempts) > 1:
            entry["repeats"] = [
                {
                    "repeat": r.get("repeat", 0),
                    "passed": r["passed"],
                    "outcome": outcome_of(r),
                    "refused": r["refused"],
                    "answer": r["answer"],
                    "latency_ms": r["latency_ms"],
                }
                for r in attempts
            ]
            entry["metrics"] = _mean_metrics([r["metrics"] for r in attempts])
        combined.append(entry)
    return combined


def _mean_metrics(per_repeat: Sequence[dict[str, float]]) -> dict[str, float]:
    if not per_repeat or not per_repeat[0]:
        return {}
    means = {name: sum(m[name] for m in per_repeat) / len(per_repeat) for name in per_repeat[0]}
    for name in HIT_METRICS:  # a hit must hold every time, like a pass
        if name in means:
            means[name] = float(all(m[name] == 1.0 for m in per_repeat))
    return means


def summarise(
    questions: Sequence[dict[str, Any]], attempts: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """The summary block: rates with Wilson intervals, means with bootstrap intervals."""
    summary: dict[str, Any] = {
        "total": len(questions),
        "passed": sum(q["passed"] for q in questions),
        "pass_rate": _rate(q["passed"] for q in questions).to_json(),
        "outcomes": count_outcomes(questions),
    }
    summary.update(_retrieval(questions))
    summary["by_category"] = {
        category: _category(members)
        for category in CATEGORIES
        if (members := [q for q in questions if q["category"] == category])
    }
    summary["refusal"] = _refusal(questions)
    summary["bait"] = _bait(questions)
    attacks = sorted({str(q["attack"]) for q in questions if q.get("attack")})
    summary["attacks"] = {
        a: _rate(q["passed"] for q in questions if q.get("attack") == a).to_json() for a in attacks
    }
    summary["checks"] = _checks(questions)
    latencies = [a["latency_ms"] for a in attempts if not a.get("error")]
    summary["latency_ms"] = {
        "p50": percentile(latencies, 50),
        "p95": percentile(latencies, 95),
        **Mean(tuple(latencies)).to_json(),
    }
    prompt = tuple(float(a["tokens"]["prompt"]) for a in attempts)
    output = tuple(float(a["tokens"]["output"]) for a in attempts)
    summary["tokens"] = {
        "prompt_mean": Mean(prompt).mean,
        "output_mean": Mean(output).mean,
        "prompt": Mean(prompt).to_json(),
        "output": Mean(output).to_json(),
        "prompt_total": int(sum(prompt)),
        "output_total": int(sum(output)),
    }
    summary["judge"] = _judge(attempts)
    summary["attempts"] = {
        "n": len(attempts),
        "pass_rate": _rate(a["passed"] for a in attempts).to_json(),
    }
    summary["flaky"] = [q["id"] for q in questions if q.get("flaky")]
    summary["errors"] = [q["id"] for q in questions if q.get("error")]
    return summary


def _rate(outcomes: Iterable[bool]) -> Rate:
    values = [bool(v) for v in outcomes]
    return Rate(sum(values), len(values))


def _retrieval(questions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    scored = [q["metrics"] for q in questions if q.get("metrics")]
    block: dict[str, Any] = {"retrieval_questions": len(scored)}
    for name in HIT_METRICS:
        block[name] = _rate(m[name] == 1.0 for m in scored).to_json()
    for name in RANKING_METRICS:
        block[name] = Mean(tuple(m[name] for m in scored)).to_json()
    return block


def _category(members: Sequence[dict[str, Any]]) -> dict[str, Any]:
    block = {
        "total": len(members),
        "passed": sum(q["passed"] for q in members),
        "pass_rate": _rate(q["passed"] for q in members).to_json(),
        "refused": _rate(q["refused"] for q in members).to_json(),
        "outcomes": count_outcomes(members),
    }
    if any(q.get("metrics") for q in members):
        block.update(_retrieval(members))
    return block


def _refusal(questions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    should_refuse = [q for q in questions if q["expect"] == "refuse"]
    should_answer = [q for q in questions if q["expect"] == "answer"]
    return {
        "refused_when_expected": _rate(q["refused"] for q in should_refuse).to_json(),
        "answered_when_expected": _rate(not q["refused"] for q in should_answer).to_json(),
        "false_refusals": _rate(q["refused"] for q in should_answer).to_json(),
        "reasons": dict(
            sorted(_count(q["refusal_reason"] for q in questions if q["refused"]).items())
        ),
    }


def _bait(questions: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Abstention questions (bait: the site does not answer them) and how many were answered
    anyway: the lab's "baited N times, answered M"."""
    baited = [q for q in questions if q["category"] == "abstention"]
    return {"asked": len(baited), "answered": sum(not q["refused"] for q in baited)}


def _checks(questions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for question in questions:
        for name, check in question["checks"].items():
            outcomes[name].append(bool(check["passed"]))
    return {name: _rate(values).to_json() for name, values in sorted(outcomes.items())}


def _judge(attempts: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    judged = [a for a in attempts if a.get("judge") is not None]
    if not judged:
        return None
    graded = [a for a in judged if not a["judge"].get("could_not_grade")]
    answered = [a for a in graded if not a["refused"]]
    refused = [
        a for a in graded if a["refused"] and a["judge"].get("correctly_refused") is not None
    ]
    return {
        "graded": len(graded),
        "could_not_grade": len(judged) - len(graded),
        "could_not_grade_ids": [a["id"] for a in judged if a["judge"].get("could_not_grade")],
        "faithful": _rate(
            a["judge"]["faithful"] and not a["judge"]["hallucinated_claims"] for a in answered
        ).to_json(),
        "answers_with_hallucinated_claims": sum(
            bool(a["judge"]["hallucinated_claims"]) for a in answered
        ),
        "correct_refusals": _rate(a["judge"]["correctly_refused"] for a in refused).to_json(),
        "cached": sum(bool(a["judge"].get("cached")) for a in graded),
    }


def _count(values: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for value in values:
        counts[value or "unknown"] += 1
    return dict(counts)


@dataclass
class Report:
    """One evaluation run, ready to render."""

    run: dict[str, Any]
    summary: dict[str, Any]
    questions: list[dict[str, Any]]
    notes: list[dict[str, Any]] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @classmethod
    def from_results(
        cls,
        run: dict[str, Any],
        attempts: Sequence[dict[str, Any]],
        notes: Sequence[dict[str, Any]] = (),
    ) -> Report:
        questions = combine_repeats(attempts)
        return cls(run, summarise(questions, attempts), questions, list(notes), list(attempts))

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "summary": self.summary,
            "questions": self.questions,
            "notes": self.notes,
        }

    def value(self, name: str) -> float | None:
        """A summary figure by name (see `sitecite.eval.gate.resolve`)."""
        from sitecite.eval.gate import resolve

        return resolve(self.summary, name)

    def to_table(self) -> Any:
        from sitecite.eval.tables import summary_table

        return summary_table(self)
