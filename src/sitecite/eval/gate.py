"""The CI gate: `--fail-under 'hit@8=0.9,passed=0.95,adversarial=1.0'` and `--junit R.xml`.

Names resolve against the summary: a retrieval metric (`hit@8`, `recall@5`, `ndcg@3`, `mrr`),
`passed` (the pass rate), a category (`adversarial`: that category's pass rate), a category's
metric (`fact.hit@8`), `refusal` (refused when expected), `false_refusals`, `faithful`
(the judge's rate) or `check:NAME`. Bars compare the point estimate.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from sitecite.errors import ConfigError
from sitecite.eval.questions import CATEGORIES


def _figure(block: Any) -> float | None:
    if isinstance(block, dict):
        value = block.get("rate", block.get("mean"))
        return None if value is None else float(value)
    return None if block is None else float(block)


def resolve(summary: dict[str, Any], name: str) -> float | None:
    """A named summary figure; an unknown name is a ConfigError that lists the known ones."""
    name = name.strip()
    if name in ("passed", "pass_rate"):
        return _figure(summary["pass_rate"])
    if name in CATEGORIES:
        block = summary["by_category"].get(name)
        return _figure(block["pass_rate"]) if block else None
    if "." in name and name.split(".", 1)[0] in CATEGORIES:
        category, metric = name.split(".", 1)
        block = summary["by_category"].get(category)
        return resolve(block, metric) if block else None
    if name == "refusal":
        return _figure(summary["refusal"]["refused_when_expected"])
    if name == "false_refusals":
        return _figure(summary["refusal"]["false_refusals"])
    if name == "faithful":
        return _figure(summary["judge"]["faithful"]) if summary.get("judge") else None
    if name.startswith("check:"):
        return _figure(summary["checks"].get(name[len("check:") :]))
    if "@" in name or name == "mrr":
        if name not in summary:
            raise ConfigError(
                f"--fail-under: unknown metric '{name}' (known: {', '.join(known_names(summary))})"
            )
        return _figure(summary[name])
    raise ConfigError(
        f"--fail-under: unknown name '{name}' (known: {', '.join(known_names(summary))})"
    )


def known_names(summary: dict[str, Any]) -> list[str]:
    metrics = [k for k in summary if "@" in k or k == "mrr"]
    return [
        "passed",
        *CATEGORIES,
        *metrics,
        "refusal",
        "false_refusals",
        "faithful",
        "check:NAME",
        "CATEGORY.METRIC",
    ]


def parse_bars(spec: str) -> list[tuple[str, float]]:
    """'hit@8=0.9,passed=0.95' -> [('hit@8', 0.9), ('passed', 0.95)]."""
    bars = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, sep, value = part.partition("=")
        try:
            bar = float(value)
        except ValueError:
            bar = float("nan")
        if not sep or not name.strip() or not 0.0 <= bar <= 1.0:
            raise ConfigError(
                f"--fail-under: expected NAME=VALUE with VALUE in [0, 1], got '{part}'"
            )
        bars.append((name.strip(), bar))
    if not bars:
        raise ConfigError("--fail-under: no bars given (e.g. 'hit@8=0.9,passed=0.95')")
    return bars


def missed_bars(summary: dict[str, Any], spec: str) -> list[str]:
    """One phrase per missed bar; empty when every bar is met. A figure with no data misses."""
    missed = []
    for name, bar in parse_bars(spec):
        value = resolve(summary, name)
        if value is None:
            missed.append(f"{name} has no data (bar {bar:g})")
        elif value + 1e-12 < bar:
            missed.append(f"{name} {value:.3f} < {bar:g}")
    return missed


def write_junit(report: Any, path: str | Path) -> None:
    """One testcase per question (classname = category); failed checks become the failure text."""
    questions = report.questions
    failures = sum(1 for q in questions if not q["passed"] and not q.get("error"))
    errors = sum(1 for q in questions if q.get("error"))
    total_seconds = sum(q.get("latency_ms", 0.0) for q in questions) / 1000.0
    suite = ET.Element(
        "testsuite",
        name=f"sitecite eval: {report.run.get('question_set', '')}",
        tests=str(len(questions)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        time=f"{total_seconds:.3f}",
        timestamp=str(report.run.get("started", "")),
    )
    properties = ET.SubElement(suite, "properties")
    for name in ("passed", "hit@8", "mrr", "refusal"):
        try:
            value = resolve(report.summary, name)
        except ConfigError:
            continue
        ET.SubElement(
            properties, "property", name=name, value="" if value is None else f"{value:.4f}"
        )
    ET.SubElement(properties, "property", name="run", value=str(report.run.get("id", "")))
    for question in questions:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"sitecite.{question['category']}",
            name=question["id"],
            time=f"{question.get('latency_ms', 0.0) / 1000.0:.3f}",
        )
        if question.get("error"):
            ET.SubElement(case, "error", message=question["error"][:200]).text = question["error"]
        elif not question["passed"]:
            failed = {
                n: c
                for n, c in question["checks"].items()
                if c.get("grades", True) and not c["passed"]
            }
            message = "; ".join(f"{n}: {c['detail']}" for n, c in failed.items()) or "failed"
            if question.get("flaky"):
                repeats = question.get("repeats", [])
                passes = sum(r["passed"] for r in repeats)
                message = f"flaky ({passes} of {len(repeats)} passed): {message}"
            ET.SubElement(
                case, "failure", message=message[:500]
            ).text = f"question: {question['question']}\nanswer: {question['answer']}\n{message}"
    ET.indent(suite)
    Path(path).write_text(
        ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n", encoding="utf-8"
    )
