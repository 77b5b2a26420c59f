"""The summary a terminal shows after `sitecite eval`: rich tables with every interval."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table


def fmt_rate(block: dict[str, Any] | None, percent: bool = True) -> tuple[str, str, str]:
    """(value, interval, n) cells for a Rate or Mean JSON block."""
    if not block:
        return "–", "", ""
    value = block.get("rate", block.get("mean"))
    if value is None:
        return "–", "", str(block.get("n", 0))
    scale, unit = (100.0, "%") if percent else (1.0, "")
    digits = 1 if percent else 3
    shown = f"{value * scale:.{digits}f}{unit}"
    if "k" in block:
        shown = f"{shown} ({block['k']}/{block['n']})"
    low, high = block.get("low"), block.get("high")
    interval = (
        f"{low * scale:.{digits}f}–{high * scale:.{digits}f}{unit}"
        if low is not None and high is not None
        else ""
    )
    return shown, interval, str(block.get("n", ""))


def summary_table(report: Any) -> Group:
    summary, run = report.summary, report.run
    title = (
        f"sitecite eval · run {run.get('id', '?')} · {run.get('question_set', '')} · "
        f"{summary['total']} questions"
        + (f" × {run['repeat']}" if run.get("repeat", 1) > 1 else "")
    )
    table = Table(title=title, title_justify="left")
    for column in ("figure", "value", "95% interval", "n"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    rows: list[tuple[str, dict[str, Any] | None, bool]] = [
        ("passed", summary["pass_rate"], True),
        *((name, summary[name], True) for name in ("hit@3", "hit@5", "hit@8")),
        *((name, summary[name], False) for name in ("recall@8", "ndcg@8", "mrr")),
        ("refused when expected", summary["refusal"]["refused_when_expected"], True),
        ("false refusals", summary["refusal"]["false_refusals"], True),
    ]
    if "adversarial" in summary["by_category"]:
        rows.append(("adversarial held", summary["by_category"]["adversarial"]["pass_rate"], True))
    judge = summary.get("judge")
    if judge:
        rows.append(("judge: faithful answers", judge["faithful"], True))
    for name, block, percent in rows:
        table.add_row(name, *fmt_rate(block, percent))
    outcomes = summary.get("outcomes")
    if outcomes:
        table.add_row(
            "answered / pointed / refused", outcome_text(outcomes), "", str(summary["total"])
        )
    if judge:
        table.add_row(
            "judge: could not grade",
            str(judge["could_not_grade"]),
            "",
            str(judge["graded"] + judge["could_not_grade"]),
        )
    latency = summary["latency_ms"]
    if latency.get("p50") is not None:
        table.add_row(
            "latency p50 / p95",
            f"{latency['p50']:.1f} / {latency['p95']:.1f} ms",
            "",
            str(latency["n"]),
        )
    tokens = summary["tokens"]
    if tokens.get("prompt_mean") is not None:
        table.add_row(
            "tokens prompt / output (mean)",
            f"{tokens['prompt_mean']:.0f} / {tokens['output_mean']:.0f}",
            "",
            str(tokens["prompt"]["n"]),
        )
    if summary.get("flaky"):
        table.add_row("flaky", ", ".join(summary["flaky"]), "", str(len(summary["flaky"])))
    return Group(table, category_table(summary))


def category_table(summary: dict[str, Any]) -> Table:
    table = Table(title="by category", title_justify="left")
    columns = ("category", "passed", "95% interval", "hit@8", "MRR", "answered / pointed / refused")
    for column in columns:
        table.add_column(column, justify="left" if column == "category" else "right")
    for category, block in summary["by_category"].items():
        passed, interval, _ = fmt_rate(block["pass_rate"])
        hit = fmt_rate(block.get("hit@8"))[0] if "hit@8" in block else ""
        mrr = fmt_rate(block.get("mrr"), percent=False)[0] if "mrr" in block else ""
        outcomes = block.get("outcomes")
        shown = outcome_text(outcomes) if outcomes else fmt_rate(block["refused"])[0] + " refused"
        table.add_row(category, passed, interval, hit, mrr, shown)
    return table


def outcome_text(outcomes: dict[str, int]) -> str:
    """ "12 / 3 / 5": how many were answered, pointed and refused."""
    return " / ".join(str(outcomes.get(name, 0)) for name in ("answered", "pointed", "refused"))
