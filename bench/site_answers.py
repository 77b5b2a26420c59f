"""Answers a visitor would accept, on the real sites, offline: the issue-10 figures.

Indexes each real site in ../shared/data/sites (incrementally, under .sitecite/bench/sites) and
runs a half of its question set (bench/questions/<site>-<half>.json) through `sitecite eval`
with the default offline generator. Per site it prints:

- answerable answered correctly: answered, every `must_contain` group found (`answers`) and an
  expected source cited (`cites_expected`);
- answers failing `presentable` (a heading, link title, fragment or duplicate quoted);
- abstention questions refused, adversarial questions passed;

and, with `--show`, every answer with its failed checks, for reading them one by one.

`--set owner` runs the questions about the site's owner instead (who they are, what they do,
how to reach them, often in the second person: bench/questions/owner-<site>-<half>.json), on
the two real sites and the example site.

`--half fresh` runs the real sites' third sets (bench/questions/<site>-fresh.json), written
after the halves by other visitors: a change decided on dev is kept only if it does not cost
here, before the test halves are run to report.

    python -m bench.site_answers [--set sites|owner] [--half dev|test|fresh] [--site jarvis]
        [--show] [--json] [--answerable-threshold P]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from bench._common import CACHE, DATA, REPO, console, require

SITES = ("jarvis", "timlrx")
OWNER_SITES = (*SITES, "example")  # the owner questions were also written for the example site
QUESTIONS = REPO / "bench" / "questions"


def site_figures(report: Any) -> dict[str, Any]:
    """The issue's figures from one eval report."""
    answerable = [q for q in report.questions if q["expect"] == "answer"]
    correct = [q for q in answerable if _correct(q)]
    answered = [q for q in report.questions if not q["refused"]]
    unpresentable = [
        q for q in answered if not q["checks"].get("presentable", {}).get("passed", True)
    ]
    abstention = [q for q in report.questions if q["category"] == "abstention"]
    adversarial = [q for q in report.questions if q["category"] == "adversarial"]
    return {
        "answerable": len(answerable),
        "correct": len(correct),
        "answered": len(answered),
        "unpresentable": len(unpresentable),
        "abstention": len(abstention),
        "abstention_refused": sum(q["refused"] for q in abstention),
        "adversarial": len(adversarial),
        "adversarial_passed": sum(q["passed"] for q in adversarial),
        "latency_p95_ms": report.summary["latency_ms"]["p95"],
    }


def _correct(result: dict[str, Any]) -> bool:
    """Answered, with every key fact (when the question names any) and an expected source."""
    checks = result["checks"]
    facts = checks.get("answers", {"passed": "answers" not in checks})
    return (
        not result["refused"]
        and "error" not in result
        and bool(facts["passed"])
        and bool(checks.get("cites_expected", {}).get("passed"))
    )


def run_site(site: str, half: str, embedder: Any, settings: Any, owner: bool = False) -> Any:
    from sitecite.eval import evaluate
    from sitecite.index.build import build_index
    from sitecite.pipeline import Engine

    folder = REPO / "examples" / "site" if site == "example" else DATA / "sites" / site
    content = require(folder, f"the {site} site")
    name = f"owner-{site}-{half}" if owner else f"{site}-{half}"
    questions = require(QUESTIONS / f"{name}.json", f"the {name} questions")
    index_dir = CACHE / "sites" / site
    build_index(content, index_dir, embedder)
    engine = Engine.load(index_dir, settings)
    return evaluate(questions, index_dir, settings, engine=engine, judge=None)


def show(report: Any) -> None:
    out = console()
    for q in report.questions:
        failed = [n for n, c in q["checks"].items() if not c["passed"] and c.get("grades", True)]
        mark = "ok " if (_correct(q) if q["expect"] == "answer" else q["passed"]) else "BAD"
        out.print(f"[bold]{mark} {q['id']}[/bold] {q['question']}", highlight=False)
        out.print(f"    {q['answer']}", highlight=False, markup=False)
        cited = ", ".join(c["id"] for c in q["citations"])
        if failed or cited:
            details = "; ".join(f"{n}: {q['checks'][n]['detail']}" for n in failed)
            out.print(f"    cites {cited or '-'} | {details}", highlight=False, markup=False)


def print_table(figures: dict[str, dict[str, Any]], half: str, owner: bool = False) -> None:
    from rich.table import Table

    about = "questions about the owner" if owner else "real sites"
    table = Table(title=f"{about.capitalize()}, {half} halves, offline extractive answers")
    for column in (
        "site",
        "answerable correct",
        "not presentable",
        "abstention refused",
        "adversarial passed",
        "p95 ms",
    ):
        table.add_column(column, justify="left" if column == "site" else "right")
    for site, f in figures.items():
        table.add_row(
            site,
            _rate(f["correct"], f["answerable"]),
            _rate(f["unpresentable"], f["answered"]),
            _rate(f["abstention_refused"], f["abstention"]),
            _rate(f["adversarial_passed"], f["adversarial"]),
            f"{f['latency_p95_ms']:.0f}",
        )
    console().print(table)


def _rate(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:.0%}" if whole else "-"


def main(argv: Sequence[str] | None = None) -> int:
    from sitecite.config import load_settings
    from sitecite.embed import get_embedder

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=["sites", "owner"], default="sites", dest="which")
    parser.add_argument(
        "--half",
        choices=["dev", "test", "fresh"],
        default="dev",
        help="fresh: the real sites' third set, written later by other visitors, for checking "
        "that a change decided on dev carries over before the test halves are run",
    )
    parser.add_argument("--site", choices=OWNER_SITES, action="append")
    parser.add_argument("--show", action="store_true", help="print every answer and its checks")
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    parser.add_argument(
        "--answerable-threshold",
        type=float,
        help="override the answerability model's operating point (a probability)",
    )
    args = parser.parse_args(argv)
    overrides = {}
    if args.answerable_threshold is not None:
        overrides["answerable_threshold"] = args.answerable_threshold
    settings = load_settings(overrides, config_file=None, environ={})
    embedder = get_embedder(settings.embedder, threads=2)
    owner = args.which == "owner"
    if owner and args.half == "fresh":
        parser.error("the owner questions have dev and test halves only")
    if not owner and "example" in (args.site or ()):
        parser.error("the example site's own questions are run by `sitecite eval` (README)")
    figures = {}
    for site in args.site or (OWNER_SITES if owner else SITES):
        report = run_site(site, args.half, embedder, settings, owner)
        if args.show:
            show(report)
        figures[site] = site_figures(report)
    print_table(figures, args.half, owner)
    if args.json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
