"""`sitecite questions`: argument parsing and the printed report (sitecite.questions works)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from sitecite.questions.model import DEFAULT_COUNTS


def add_questions_parser(sub: Any, command: Callable[[str], Callable[..., Any]]) -> None:
    parser = sub.add_parser(
        "questions",
        help="write a question set that tries to break the site (answerable, bait, attacks)",
        description="Write a question set (docs/question-set.md) for `sitecite eval`: "
        "answerable questions from the site's sections, bait the site does not answer (each "
        "checked against the index) and adversarial questions about the owner.",
    )
    parser.add_argument("--index", required=True, help="the index to write questions for")
    parser.add_argument("--out", required=True, metavar="Q.json", help="where to write the set")
    for category in ("answerable", "bait", "adversarial"):
        default = DEFAULT_COUNTS[category]
        parser.add_argument(
            f"--{category}",
            type=int,
            default=default,
            help=f"{category} questions (default {default})",
        )
    parser.add_argument(
        "--seed", type=int, default=0, help="picks among the candidates (default 0)"
    )
    parser.add_argument(
        "--llm",
        action="store_true",
        help="let the configured LLM (llm.* settings) write the questions; bait is still "
        "checked against the index",
    )

    @command("questions")
    def cmd_questions(args: argparse.Namespace) -> int:
        from sitecite.config import load_settings
        from sitecite.questions.generate import Plan
        from sitecite.questions.run import write_questions

        plan = Plan(args.answerable, args.bait, args.adversarial, args.seed)
        settings = load_settings({}, getattr(args, "config", None))
        made = write_questions(args.index, args.out, plan, settings, llm=args.llm)
        print(made.to_text())
        print(f"wrote {args.out}; run it with: sitecite eval {args.out} --index {args.index}")
        return 0
