"""`sitecite gaps`: argument parsing and the text report; sitecite.owner.gaps does the work."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def add_gaps_parser(sub: Any, command: Callable[[str], Callable[..., Any]]) -> None:
    parser = sub.add_parser(
        "gaps",
        help="what visitors asked that the site could not answer, grouped into topics",
        description="Read the question log that `sitecite serve` keeps beside the index and "
        "show questions asked, answer and refusal rates, the content gaps (refused and "
        "thumbs-down questions grouped by topic, each with the closest section and a "
        "suggestion), feedback and the most cited pages.",
    )
    parser.add_argument("--index", required=True, help="the index the log belongs to")
    parser.add_argument(
        "--since", default="30d", help="period: 30d, 12h, 2w, or a date like 2026-01-31"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--export",
        metavar="Q.json",
        help="write the unanswered questions as a question set for `sitecite eval`",
    )
    parser.add_argument("--log", help="the log, as serve.log: sqlite:///PATH")

    @command("gaps")
    def cmd_gaps(args: argparse.Namespace) -> int:
        from sitecite.config import load_settings
        from sitecite.errors import InputError
        from sitecite.owner import QuestionLog, log_path
        from sitecite.owner.gaps import gaps_report, parse_since
        from sitecite.pipeline import Engine

        since = parse_since(args.since)
        settings = load_settings({"serve.log": args.log}, getattr(args, "config", None))
        path = log_path(settings.serve.log, args.index)
        if path is None or not path.exists():
            where = path or "nowhere (serve.log is off)"
            raise InputError(
                f"no question log at {where}: `sitecite serve --index {args.index}` keeps one "
                "while it serves"
            )
        engine = Engine.load(args.index, settings)
        with QuestionLog(path) as store:
            report = gaps_report(
                store.asks(since), engine.index, engine.embedder, since, store=store
            )
        if args.export:
            question_set = report.to_question_set()
            Path(args.export).write_text(
                json.dumps(question_set, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
            )
        if args.json:
            print(json.dumps(report.to_json(), ensure_ascii=False))
        else:
            print(report_text(report.to_json()))
        if args.export:
            count = len(report.to_question_set()["questions"])
            print(f"wrote {count} unanswered questions to {args.export}")
        return 0


def report_text(report: dict[str, Any]) -> str:
    """The report as a person reads it in a terminal."""
    asked = report["asked"]
    rate = f" ({report['answered'] / asked:.0%} answered)" if asked else ""
    lines = [
        f"{asked} questions from {report['since'][:16]} to {report['until'][:16]} UTC: "
        f"{report['answered']} answered, {report.get('pointed', 0)} pointed to the closest "
        f"sections, {report['refused']} refused{rate}, "
        f"{report['followups']} follow-ups",
    ]
    feedback = report["feedback"]
    if feedback:
        reasons = ", ".join(
            f"{key.removeprefix('down:') or 'no reason'} {n}"
            for key, n in sorted(feedback.items())
            if key.startswith("down:")
        )
        lines.append(
            f"feedback: {feedback.get('up', 0)} up, {feedback.get('down', 0)} down"
            + (f" ({reasons})" if reasons else "")
        )
    lines.append("")
    lines.append(f"Content gaps ({len(report['gaps'])}):" if report["gaps"] else "No content gaps.")
    for number, gap in enumerate(report["gaps"], start=1):
        closest = gap["closest_section"]
        lines.append(
            f"{number}. asked {gap['size']}x · {gap['suggestion']} · closest: {closest['id']} "
            f"(cosine {closest['score']:.2f})"
        )
        lines.extend(f"     - {question}" for question in gap["examples"])
    if report["top_cited"]:
        lines.append("")
        lines.append("Most cited pages:")
        lines.extend(f"  {row['answers']:>5}  {row['page_id']}" for row in report["top_cited"])
    return "\n".join(lines)
