"""Command line: argument parsing only; every command calls one library function.

Errors from the library (SiteciteError) become one line on stderr and an exit code.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from sitecite.errors import SiteciteError

DEFAULT_INDEX = ".sitecite/index"

Command = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, Command] = {}


def command(name: str) -> Callable[[Command], Command]:
    def register(function: Command) -> Command:
        COMMANDS[name] = function
        return function

    return register


@command("index")
def cmd_index(args: argparse.Namespace) -> int:
    from sitecite.cli.index import run_index
    from sitecite.cli.options import settings_for

    return run_index(args, settings_for(args, **_index_flags(args)))


def _index_flags(args: argparse.Namespace) -> dict[str, Any]:
    routes, catch_all = [], None
    for rule in args.route or []:
        if "=>" in rule:
            routes.append(rule)
        else:
            catch_all = rule  # a bare template: the old `--route '/blog/{page_id}'`
    return {
        "index.base_url": args.base_url,
        "index.route": catch_all,
        "index.routes": routes or None,
        "index.presets": False if args.no_presets else None,
        "index.anchors": getattr(args, "anchors", None),
        "index.sitemap": getattr(args, "sitemap", None),
    }


@command("ask")
def cmd_ask(args: argparse.Namespace) -> int:
    from sitecite.cli.options import settings_for
    from sitecite.intake import QuestionError, error_json, take_question
    from sitecite.pipeline import Engine, answer

    settings = settings_for(args)
    try:  # the server's limit and error, before the model is loaded
        question = take_question(args.question, settings.serve.max_question_chars)
    except QuestionError as error:
        if args.json:
            print(json.dumps(error_json(error), ensure_ascii=False, indent=2))
        raise
    engine = Engine.load(args.index, settings)
    result, trace = answer(engine, question)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
        return 0
    print(result.to_text(markdown=args.format == "markdown"))
    if args.trace:
        print(json.dumps(trace.to_json(), ensure_ascii=False, indent=2))
    return 0


@command("calibrate")
def cmd_calibrate(args: argparse.Namespace) -> int:
    from sitecite.calibrate import calibrate
    from sitecite.cli.options import settings_for
    from sitecite.pipeline import Engine

    engine = Engine.load(args.index, settings_for(args))
    report = calibrate(
        engine,
        questions=args.questions,
        false_accept=args.false_accept,
        support_false_accept=args.support_false_accept,
        store=not args.dry_run,
    )
    print(report.to_text())
    if args.json:
        print(json.dumps(report.to_json()))
    return 0


@command("demo")
def cmd_demo(args: argparse.Namespace) -> int:
    from sitecite.demo import run_demo

    return run_demo(
        index_dir=args.index,
        host=args.host,
        port=args.port,
        serve=not args.no_serve,
        out=sys.stdout,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sitecite",
        description="Answer questions about a person from their own website, with a citation on "
        "every claim, or say plainly that the site doesn't say.",
        epilog="Every command, flag and setting, and the JSON and HTTP contracts: docs/ in the "
        "repository (docs/cli.md, docs/settings.md, docs/answer.md, docs/http.md).",
    )
    parser.add_argument("--config", help="settings file (default: ./sitecite.toml if present)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser(
        "demo",
        help="index the bundled example site and serve it (or print answers)",
        description="Index the bundled example site if needed, then serve it.",
    )
    demo.add_argument(
        "--index", default=DEFAULT_INDEX + "-example", help="where to keep the example index"
    )
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--port", type=int, default=8000)
    demo.add_argument(
        "--no-serve", action="store_true", help="ask three example questions and exit"
    )

    _add_index_parser(sub)

    ask = sub.add_parser(
        "ask",
        help="answer one question with citations, or refuse",
        description="Answer one question from an index.",
    )
    ask.add_argument("question")
    ask.add_argument("--index", required=True)
    ask.add_argument("--json", action="store_true", help="print the answer JSON (docs/answer.md)")
    ask.add_argument(
        "--format",
        choices=["text", "markdown"],
        default="text",
        help="text (default): the answer as clean text; markdown: as written, sources as links",
    )
    ask.add_argument("--trace", action="store_true", help="also print the full trace")
    ask.add_argument("--k", type=int, help="number of sections to retrieve (default 8)")
    ask.add_argument("--threshold", type=float, help="override the calibrated gate threshold")
    ask.add_argument("--generator", choices=["extractive", "llm"])

    calibrate = sub.add_parser(
        "calibrate",
        help="choose the gate thresholds from on- and off-topic questions",
        description="Score on-topic questions (a question set, or the site's own "
        "headings) and the bundled off-topic list; store thresholds.",
    )
    calibrate.add_argument("--index", required=True)
    calibrate.add_argument(
        "--questions", help="question set (docs/question-set.md) for on-topic questions"
    )
    calibrate.add_argument(
        "--false-accept",
        type=float,
        default=0.2,
        help="section gate: target false-accept rate when the distributions overlap (default 0.2)",
    )
    calibrate.add_argument(
        "--support-false-accept",
        type=float,
        default=0.05,
        help="share of should-refuse questions (question set and off-topic list) "
        "that may still get an answer (default 0.05)",
    )
    calibrate.add_argument(
        "--dry-run", action="store_true", help="print, do not store in the manifest"
    )
    calibrate.add_argument("--json", action="store_true")

    _add_eval_parser(sub)
    _add_serve_parser(sub)
    _add_gaps_parser(sub)
    _add_questions_parser(sub)
    return parser


def _add_index_parser(sub: Any) -> None:
    from sitecite.cli.index import add_index_parser

    add_index_parser(sub)


def _add_eval_parser(sub: Any) -> None:
    from sitecite.cli.eval import add_eval_parser

    add_eval_parser(sub, command)


def _add_serve_parser(sub: Any) -> None:
    from sitecite.cli.serve import add_serve_parser

    add_serve_parser(sub, command)


def _add_gaps_parser(sub: Any) -> None:
    from sitecite.cli.gaps import add_gaps_parser

    add_gaps_parser(sub, command)


def _add_questions_parser(sub: Any) -> None:
    from sitecite.cli.questions import add_questions_parser

    add_questions_parser(sub, command)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 0
    try:
        return COMMANDS[args.command](args)
    except SiteciteError as error:
        code = getattr(error, "code", "")  # a question's error carries the HTTP API's code
        print(f"sitecite: error: {code + ': ' if code else ''}{error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("sitecite: interrupted", file=sys.stderr)
        return 130
