"""`sitecite eval`: argument parsing for the evaluation harness (issue 4 fills this in)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def add_eval_parser(sub: Any, command: Callable[[str], Callable[..., Any]]) -> None:
    parser = sub.add_parser("eval", help="run a question set through the pipeline and grade it",
                            description="Evaluate: retrieval metrics and answer checks from each trace.")
    parser.add_argument("questions", help="question set (DESIGN.md format)")
    parser.add_argument("--index", required=True)
    parser.add_argument("--out", help="write results JSON here")
    parser.add_argument("--report", help="write the evaluation lab HTML page here")

    @command("eval")
    def cmd_eval(args: argparse.Namespace) -> int:
        from sitecite.errors import SiteciteError

        raise SiteciteError("sitecite eval is not available yet in this build")
