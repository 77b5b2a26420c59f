"""`sitecite eval`: run a question set, compare two runs, or attach a note to a run.

    sitecite eval Q.json --index DIR [--out R.json] [--report lab.html] [--repeat N] [--resume]
                         [--fail-under 'hit@8=0.9,passed=0.95'] [--junit R.xml]
    sitecite eval compare RUN_A RUN_B [--index DIR] [--json]
    sitecite eval note RUN "TEXT" --index DIR

argparse cannot mix a positional file with subcommands, so the first word decides: `compare`
and `note` are actions, anything else is a question set (write `./compare` for a file of that name).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ACTIONS = ("compare", "note")
USAGE = """sitecite eval Q.json --index DIR [--out R.json] [--report lab.html] [--repeat N]
                     [--resume] [--fail-under 'hit@8=0.9,passed=0.95,adversarial=1.0']
                     [--junit R.xml]
       sitecite eval compare RUN_A RUN_B [--index DIR] [--json]
       sitecite eval note RUN "TEXT" --index DIR"""
EPILOG = """RUN is a run id from the history (printed by every run), `latest`, `previous`, `-N` (the
N-th newest finished run), or a results file written with --out. The history lives beside the
index in DIR.runs.sqlite; judge verdicts are cached in DIR.cache.sqlite.

--fail-under names: passed, a category (grounding, multi, fact, abstention, adversarial),
hit@K, recall@K, ndcg@K (K = 3, 5, 8), mrr, CATEGORY.METRIC (e.g. fact.hit@8), refusal,
false_refusals, faithful (judge), check:NAME. A missed bar exits with status 1 and one line."""


def add_eval_parser(sub: Any, command: Callable[[str], Callable[..., Any]]) -> None:
    parser = sub.add_parser(
        "eval",
        help="run a question set through the pipeline and grade it; compare runs; note runs",
        description="Evaluate: every question goes through the same pipeline that serves users, "
        "once (per repeat); retrieval metrics and answer checks are graded from that answer's "
        "own trace. Results are kept in a run history beside the index.",
        usage=USAGE,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "target",
        metavar="Q.json | compare | note",
        help="a question set (docs/question-set.md), or the action compare / note",
    )
    parser.add_argument(
        "words", nargs="*", metavar="RUN/TEXT", help="compare: RUN_A RUN_B; note: RUN TEXT"
    )
    parser.add_argument(
        "--index", help="index directory (required except to compare two results files)"
    )
    parser.add_argument("--out", help="write the results JSON here")
    parser.add_argument("--report", help="write the evaluation lab page (self-contained HTML) here")
    parser.add_argument(
        "--repeat", type=int, default=1, help="run each question N times; reports flaky ones"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the newest interrupted run of this question set and settings",
    )
    parser.add_argument("--fail-under", metavar="BARS", help="exit 1 if a figure is below its bar")
    parser.add_argument("--junit", help="write JUnit XML (one test case per question) here")
    parser.add_argument("--json", action="store_true", help="compare: print the comparison as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--k", type=int, help="number of sections to retrieve (default 8)")
    parser.add_argument("--threshold", type=float, help="override the calibrated gate threshold")
    parser.add_argument("--generator", choices=["extractive", "llm"])

    @command("eval")
    def cmd_eval(args: argparse.Namespace) -> int:
        if args.target == "compare":
            return _compare(args)
        if args.target == "note":
            return _note(args)
        return _run(args)


def _usage_error(message: str) -> int:
    from sitecite.errors import ConfigError

    raise ConfigError(f"eval: {message}")


def _run(args: argparse.Namespace) -> int:
    from sitecite.cli.options import settings_for
    from sitecite.eval import evaluate, missed_bars, write_junit
    from sitecite.eval.gate import parse_bars
    from sitecite.eval.history import RunStore
    from sitecite.eval.lab import lab_for_run

    if args.words:
        return _usage_error(f"unexpected arguments after the question set: {' '.join(args.words)}")
    if not args.index:
        return _usage_error("--index DIR is required to run a question set")
    if args.fail_under:
        parse_bars(args.fail_under)  # a typo in a bar should fail before the run, not after
    settings = settings_for(args)
    with _ProgressBar(args.quiet) as progress:
        report = evaluate(
            args.target,
            args.index,
            settings,
            repeat=args.repeat,
            resume=args.resume,
            progress=progress,
        )
    from rich.console import Console

    console = Console(stderr=False, width=max(100, Console().width))
    console.print(report.to_table())
    for warning in report.run.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)
    if report.run.get("resumed"):
        print(f"resumed run {report.run['id']}")
    elif args.resume:
        print("no interrupted run of this question set with these settings; ran a new one")
    if args.out:
        Path(args.out).write_text(
            json.dumps(report.to_json(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )
    if args.report:
        with RunStore.for_index(args.index) as store:
            Path(args.report).write_text(
                lab_for_run(store, report.run["id"], args.index), encoding="utf-8"
            )
    if args.junit:
        write_junit(report, args.junit)
    written = ", ".join(
        f"{what} {path}"
        for what, path in (("results", args.out), ("lab", args.report), ("junit", args.junit))
        if path
    )
    print(
        f"run {report.run['id']}: {report.summary['passed']}/{report.summary['total']} passed"
        + (f"; wrote {written}" if written else "")
    )
    if args.fail_under:
        missed = missed_bars(report.summary, args.fail_under)
        if missed:
            print(f"sitecite: eval below the bar: {'; '.join(missed)}", file=sys.stderr)
            return 1
    return 0


def _compare(args: argparse.Namespace) -> int:
    from sitecite.eval import compare_reports, load_report
    from sitecite.eval.history import RunStore

    if len(args.words) != 2:
        return _usage_error(
            "compare needs two runs: sitecite eval compare RUN_A RUN_B [--index DIR]"
        )
    store = RunStore.for_index(args.index) if args.index else None
    try:
        comparison = compare_reports(
            load_report(args.words[0], store), load_report(args.words[1], store)
        )
    finally:
        if store is not None:
            store.close()
    print(json.dumps(comparison.to_json(), indent=2) if args.json else comparison.to_text())
    return 0


def _note(args: argparse.Namespace) -> int:
    from sitecite.eval.history import RunStore

    if len(args.words) != 2:
        return _usage_error(
            'note needs a run and a text: sitecite eval note RUN "TEXT" --index DIR'
        )
    if not args.index:
        return _usage_error("--index DIR is required to find the run history")
    with RunStore.for_index(args.index) as store:
        run = store.add_note(args.words[0], args.words[1])
    print(f"noted on run {run['id']}")
    return 0


class _ProgressBar:
    """A rich progress bar on stderr while questions finish (disabled when not a terminal)."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> Callable[[int, int, dict[str, Any]], None]:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        enabled = not self.quiet and (
            sys.stderr.isatty() or bool(os.environ.get("SITECITE_PROGRESS"))
        )
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[last]}"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            disable=not enabled,
            transient=True,
        )
        self.bar.start()

        def advance(done: int, total: int, result: dict[str, Any]) -> None:
            if self.task is None:
                self.task = self.bar.add_task(
                    "evaluating", total=total, completed=done - 1, last=""
                )
            mark = "✓" if result["passed"] else "✗"
            self.bar.update(self.task, completed=done, last=f"{mark} {result['id']}")

        return advance

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()
