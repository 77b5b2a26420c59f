"""`sitecite eval compare RUN_A RUN_B`: which questions flipped, and is the change more than noise?

Two runs of the same questions are paired data, so the right test is McNemar's exact test on
the discordant questions (passed in one run only), not a comparison of two pass rates'
intervals. A run is a run id in the history (or `latest`, `previous`, `-N`), or a results
JSON file written with `--out`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitecite.errors import SiteciteError
from sitecite.eval.history import RunStore
from sitecite.eval.report import Report, combine_repeats
from sitecite.eval.stats import mcnemar_exact

SIGNIFICANCE = 0.05


@dataclass
class Comparison:
    a: dict[str, Any]
    b: dict[str, Any]
    fixed: list[dict[str, Any]] = field(default_factory=list)  # failed in A, passed in B
    broke: list[dict[str, Any]] = field(default_factory=list)  # passed in A, failed in B
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    paired: int = 0
    passed_a: int = 0
    passed_b: int = 0

    @property
    def p_value(self) -> float:
        return mcnemar_exact(len(self.fixed), len(self.broke))

    @property
    def verdict(self) -> str:
        if not self.fixed and not self.broke:
            return "no question changed outcome"
        direction = "better" if len(self.fixed) > len(self.broke) else "worse"
        test = f"McNemar exact p = {self.p_value:.3f}"
        if len(self.fixed) == len(self.broke):
            return f"as many fixed as broken: no change ({test})"
        if self.p_value < SIGNIFICANCE:
            return f"B is {direction} beyond noise ({test} < {SIGNIFICANCE})"
        return f"B looks {direction}, but within noise ({test} ≥ {SIGNIFICANCE})"

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "paired": self.paired,
            "passed_a": self.passed_a,
            "passed_b": self.passed_b,
            "fixed": self.fixed,
            "broke": self.broke,
            "only_a": self.only_a,
            "only_b": self.only_b,
            "p_value": self.p_value,
            "significant": self.p_value < SIGNIFICANCE,
            "verdict": self.verdict,
        }

    def to_text(self) -> str:
        lines = [
            *(
                f"{name}: run {run['id']} ({run.get('started', '')}, {run.get('question_set', '')})"
                for name, run in (("A", self.a), ("B", self.b))
            ),
            f"{self.paired} questions in both: passed {self.passed_a} → {self.passed_b}",
        ]
        for title, flips in (
            ("fixed (failed in A, passed in B)", self.fixed),
            ("broke (passed in A, failed in B)", self.broke),
        ):
            if flips:
                lines.append(f"{title}: {len(flips)}")
                lines.extend(
                    f"  {f['id']:<10} {f['category']:<12} {f['question']}"
                    + (f"\n  {'':<10} {'':<12} now: {f['why']}" if f.get("why") else "")
                    for f in flips
                )
        for title, ids in (("only in A", self.only_a), ("only in B", self.only_b)):
            if ids:
                lines.append(f"{title}: {', '.join(ids)}")
        lines.append(self.verdict)
        return "\n".join(lines)


def compare_reports(a: Report, b: Report) -> Comparison:
    """Pair the two runs' questions by id and list every flip."""
    first = {q["id"]: q for q in a.questions}
    second = {q["id"]: q for q in b.questions}
    comparison = Comparison(_describe(a), _describe(b))
    comparison.only_a = [qid for qid in first if qid not in second]
    comparison.only_b = [qid for qid in second if qid not in first]
    for qid, before in first.items():
        after = second.get(qid)
        if after is None:
            continue
        comparison.paired += 1
        comparison.passed_a += bool(before["passed"])
        comparison.passed_b += bool(after["passed"])
        if bool(before["passed"]) != bool(after["passed"]):
            flip = {
                "id": qid,
                "category": after["category"],
                "question": after["question"],
                "before": bool(before["passed"]),
                "after": bool(after["passed"]),
                "why": _why(after),
            }
            (comparison.fixed if after["passed"] else comparison.broke).append(flip)
    return comparison


def _why(question: dict[str, Any]) -> str:
    failed = [
        f"{name}: {check['detail']}"
        for name, check in question["checks"].items()
        if check.get("grades", True) and not check["passed"]
    ]
    return "; ".join(failed)


def _describe(report: Report) -> dict[str, Any]:
    return {
        "id": report.run.get("id"),
        "started": report.run.get("started"),
        "question_set": report.run.get("question_set"),
        "git_commit": report.run.get("git_commit"),
    }


def load_report(reference: str, store: RunStore | None) -> Report:
    """A run from the history by reference, or from a results JSON file."""
    path = Path(reference)
    if path.suffix == ".json" or (path.exists() and path.is_file()):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return Report(data["run"], data["summary"], data["questions"], data.get("notes", []))
        except (OSError, ValueError, KeyError) as exc:
            raise SiteciteError(
                f"{path}: not a results file written by `sitecite eval --out` ({exc})"
            ) from exc
    if store is None:
        raise SiteciteError(
            f"'{reference}' is not a results file; pass --index DIR to look it up in the history"
        )
    return report_from_history(store, reference)


def report_from_history(store: RunStore, reference: str) -> Report:
    run = store.get(reference)
    attempts = store.results(run["id"])
    info = {**run["info"], "id": run["id"], "status": run["status"]}
    if run["summary"] is not None:
        return Report(
            info, run["summary"], combine_repeats(attempts), store.notes(run["id"]), attempts
        )
    return Report.from_results(info, attempts, store.notes(run["id"]))
