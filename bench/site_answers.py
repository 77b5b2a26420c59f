"""Answers a visitor would accept on real personal sites, offline: the issue-22 and -32 figures.

Indexes each real site in ../shared/data/sites (incrementally, under .sitecite/bench/sites),
runs a set of its questions through the pipeline that serves visitors (the default offline
generator) and prints per site, for the answerable questions:

- `correct`: a direct answer holding every key fact (each group of the answer keys) and
  citing an expected page;
- `direct right`: of the direct answers to answerable questions, the share that is correct;
- `on screen`: every key fact in the answer, or in the lines of the first three sections a
  pointed reply shows;
- `answer or page`: a correct answer, or an expected page cited by the direct answer or among
  the first three sections of a pointed reply;
- `pointed`, `refused`: the other two outcomes;

and for the questions the site does not answer: bait (abstention) and adversarial questions
given a direct answer (a pointed reply or a refusal is right for both).

Question sets: for jarvis and timlrx, bench/questions/<site>-<half>.json (with `must_contain`
key facts); for the four newer sites, ../shared/data/sites/<site>/questions-<half>.json with
its answer-keys.json merged in as `must_contain`; `--half held` runs the sets written by a
reader who never saw the code (bench/questions/<site>-held.json), which nothing is tuned on.
`--set answerdata` runs a half of the answer data (training/answerdata) for every site
it covers (eighteen real sites and the example site), near misses as bait; `--questions FILE`
one question set for the one `--site`. A set that does not load is reported, not fatal.

    python -m bench.site_answers [--half dev|test|fresh|held] [--set sites|owner|answerdata]
        [--site S ...] [--questions FILE] [--show] [--json]
        [--answerable-threshold P] [--direct-answers sure|any] [--indexes DIR]

`--set owner` runs the questions about the owner (who they are, what they do, how to reach
them: bench/questions/owner-<site>-<half>.json) on jarvis, timlrx and the example site.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench._common import CACHE, DATA, REPO, answerdata_half, answerdata_rows, console

SITES = ("jarvis", "timlrx", "shazow", "benbalter", "lengstorf", "alanaktion")
QUESTIONS = REPO / "bench" / "questions"
OWNER_SITES = ("jarvis", "timlrx", "example")  # bench/questions/owner-<site>-<half>.json
POINTED_SHOWN = 3  # a pointed reply's sections a visitor reads: the first three


def question_file(site: str, half: str, owner: bool = False) -> Path | None:
    """The question set of a site's half, with key facts as `must_contain`; None if absent.
    `owner`: the questions about the site's owner (bench/questions/owner-<site>-<half>.json)."""
    if owner:
        path = QUESTIONS / f"owner-{site}-{half}.json"
        return path if path.exists() else None
    own = QUESTIONS / f"{site}-{half}.json"
    if own.exists():
        return own
    shared = DATA / "sites" / site / f"questions-{half}.json"
    if not shared.exists():
        return None
    data = json.loads(shared.read_text(encoding="utf-8"))
    keys_file = DATA / "sites" / site / "answer-keys.json"
    keys = json.loads(keys_file.read_text(encoding="utf-8")) if keys_file.exists() else {}
    for question in data["questions"]:
        if question["id"] in keys and "must_contain" not in question:
            question["must_contain"] = keys[question["id"]]
    merged = CACHE / "questions" / f"{site}-{half}.json"
    merged.parent.mkdir(parents=True, exist_ok=True)
    merged.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return merged


@dataclass
class Graded:
    """One answer, graded as a visitor would read it."""

    id: str
    category: str
    expect: str
    question: str
    outcome: str  # answered | pointed | refused
    reason: str
    text: str
    cited: list[str]
    facts: bool  # every key group present in the text (True when the question has no keys)
    cites_expected: bool
    on_screen: bool = False  # every key group in the text or in the lines a pointed reply shows
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def correct(self) -> bool:
        return self.outcome == "answered" and self.facts and self.cites_expected

    @property
    def right_page(self) -> bool:
        return self.cites_expected and self.outcome in ("answered", "pointed")


def has_facts(text: str, groups: Sequence[Sequence[str]]) -> bool:
    """Whether `text` holds one alternative of every key group (case-insensitively)."""
    lowered = text.lower()
    return all(any(alternative.lower() in lowered for alternative in group) for group in groups)


def grade(question: Any, answer: Any) -> Graded:
    """Grade one Answer against its question's key facts and expected sources."""
    text = answer.answer.lower()
    facts = has_facts(text, question.must_contain)
    outcome = str(answer.outcome)
    lines = [q for c in answer.citations[:POINTED_SHOWN] for q in c.quotes]
    screen = " ".join([text, *lines]) if outcome == "pointed" else text
    cited = [c.id for c in answer.citations]
    shown = cited[:POINTED_SHOWN] if outcome == "pointed" else cited
    expected = {*question.expected_sources, *question.allowed_sources}
    cites_expected = bool(expected) and any(
        c in expected or c.split("#")[0] in expected for c in shown
    )
    return Graded(
        question.id,
        question.category,
        question.expect,
        question.question,
        outcome,
        str(answer.refusal_reason),
        answer.answer,
        cited,
        facts,
        cites_expected,
        outcome != "refused"
        and bool(question.must_contain)
        and has_facts(screen, question.must_contain),
    )


def figures(graded: Sequence[Graded]) -> dict[str, Any]:
    """The issue's figures from one site's graded answers."""
    answerable = [g for g in graded if g.expect == "answer"]
    direct = [g for g in answerable if g.outcome == "answered"]
    bait = [g for g in graded if g.category == "abstention"]
    adversarial = [g for g in graded if g.category == "adversarial"]
    return {
        "answerable": len(answerable),
        "correct": sum(g.correct for g in answerable),
        "direct": len(direct),
        "direct_right": sum(g.correct for g in direct),
        "answer_or_page": sum(g.correct or g.right_page for g in answerable),
        "on_screen": sum(g.on_screen for g in answerable),
        "pointed": sum(g.outcome == "pointed" for g in answerable),
        "refused": sum(g.outcome == "refused" for g in answerable),
        "bait": len(bait),
        "bait_answered": sum(g.outcome == "answered" for g in bait),
        "bait_pointed": sum(g.outcome == "pointed" for g in bait),
        "adversarial": len(adversarial),
        "adversarial_answered": sum(g.outcome == "answered" for g in adversarial),
    }


QUESTION_FILES = ("questions-*.json", "answer-keys.json")  # the reader's, not the site's


def answerdata_sites() -> list[str]:
    """The sites the answer data (training/answerdata/*.jsonl) asks about."""
    return sorted({row["site"] for _, _, row in answerdata_rows()})


def answerdata_file(site: str, half: str, pages: frozenset[str]) -> Path:
    """One half of a site's answer data as a question set: an answerable question is a
    `grounding` one whose expected source is its page and whose key facts are its
    `must_contain`; a near miss is an `abstention` one. Questions about a page the index does
    not hold are left out (their gold sentences could not be found either)."""
    questions = []
    for stem, number, row in answerdata_rows():
        if row.get("site") != site or answerdata_half(site, row["question"]) != half:
            continue
        if row["page"] not in pages:
            continue
        answerable = bool(row["answerable"])
        questions.append(
            {
                "id": f"{stem}:{number}",
                "question": row["question"],
                "category": "grounding" if answerable else "abstention",
                "expect": "answer" if answerable else "refuse",
                "expected_sources": [row["page"]] if answerable else [],
                "allowed_sources": [] if answerable else [row["page"]],
                "must_contain": row.get("must_contain", []) if answerable else [],
            }
        )
    data = {"name": f"{site} answer data, {half} half", "questions": questions}
    out = CACHE / "questions" / f"answerdata-{site}-{half}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return out


def site_content(site: str) -> Path:
    """The site's content as its owner has it: a tree of links to every file of its folder
    except the question sets and answer keys the data folder keeps beside it."""
    source = DATA / "sites" / site
    mirror = CACHE / "content" / site
    for path in sorted(source.rglob("*")):
        if path.is_dir() or any(path.match(pattern) for pattern in QUESTION_FILES):
            continue
        link = mirror / path.relative_to(source)
        if not link.is_symlink():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(path.resolve())
    return mirror


def engine_for(site: str, embedder: Any, settings: Any, prebuilt: Path | None = None) -> Any:
    """The site's engine over an index kept fresh under the bench cache (or a prebuilt one)."""
    from sitecite.index.build import build_index
    from sitecite.pipeline import Engine

    if prebuilt is not None:
        return Engine.load(prebuilt / site, settings)
    index_dir = CACHE / "sites" / site
    content = REPO / "examples" / "site" if site == "example" else site_content(site)
    build_index(content, index_dir, embedder)
    return Engine.load(index_dir, settings)


def run_site(engine: Any, path: Path) -> list[Graded]:
    """Every question of the set through `pipeline.answer`, graded."""
    from sitecite.eval.questions import index_source_ids, load_question_set
    from sitecite.pipeline import answer

    question_set = load_question_set(path, index_source_ids(engine.index.sections))
    return [grade(q, answer(engine, q.question)[0]) for q in question_set.questions]


def show(graded: Sequence[Graded]) -> None:
    out = console()
    for g in graded:
        if g.expect == "answer":
            mark = "ok " if g.correct else ("pg " if g.right_page else "BAD")
        else:
            mark = "ok " if g.outcome != "answered" else "BAD"
        out.print(f"{mark} {g.id} ({g.outcome}) {g.question}", highlight=False, markup=False)
        out.print(f"    {g.text}", highlight=False, markup=False)
        out.print(f"    cites {', '.join(g.cited) or '-'} | {g.reason}", markup=False)


def _rate(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:.0%}" if whole else "-"


def print_table(all_figures: dict[str, dict[str, Any]], half: str) -> None:
    from rich.table import Table

    table = Table(title=f"Real sites, {half} questions, offline extractive answers")
    columns = (
        "site",
        "correct",
        "direct right",
        "on screen",
        "answer or page",
        "pointed",
        "refused",
        "bait answered",
        "adversarial answered",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "site" else "right")
    totals: dict[str, int] = {}
    for f in all_figures.values():
        for key, value in f.items():
            if isinstance(value, int):
                totals[key] = totals.get(key, 0) + value
    measured = [f for f in all_figures.values() if "error" not in f]
    rows = {**all_figures, **({"all": totals} if len(measured) > 1 else {})}
    for site, f in rows.items():
        if "error" in f:
            table.add_row(site, f"[red]{f['error'][:90]}[/red]", *("",) * (len(columns) - 2))
            continue
        table.add_row(
            site,
            _rate(f["correct"], f["answerable"]),
            _rate(f["direct_right"], f["direct"]),
            _rate(f["on_screen"], f["answerable"]),
            _rate(f["answer_or_page"], f["answerable"]),
            _rate(f["pointed"], f["answerable"]),
            _rate(f["refused"], f["answerable"]),
            _rate(f["bait_answered"], f["bait"]),
            _rate(f["adversarial_answered"], f["adversarial"]),
        )
    console().print(table)


def main(argv: Sequence[str] | None = None) -> int:
    from sitecite.config import load_settings
    from sitecite.embed import get_embedder
    from sitecite.errors import SiteciteError

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=["dev", "test", "fresh", "held"], default="dev")
    parser.add_argument(
        "--set",
        choices=["sites", "owner", "answerdata"],
        default="sites",
        dest="which",
        help="owner: the questions about the owner (jarvis, timlrx and the example site); "
        "answerdata: the answer data's dev or test half, for every site it covers",
    )
    parser.add_argument("--site", action="append", help="only this site (repeat for more)")
    parser.add_argument("--show", action="store_true", help="print every answer and its grade")
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    parser.add_argument("--answerable-threshold", type=float)
    parser.add_argument(
        "--direct-answers", choices=["sure", "any"], help="override the direct_answers setting"
    )
    parser.add_argument(
        "--indexes", type=Path, help="use the prebuilt indexes DIR/<site> instead of building"
    )
    parser.add_argument(
        "--questions", type=Path, help="this question set, for the one site --site names"
    )
    args = parser.parse_args(argv)
    overrides = {}
    if args.answerable_threshold is not None:
        overrides["answerable_threshold"] = args.answerable_threshold
    if args.direct_answers:
        overrides["direct_answers"] = args.direct_answers
    settings = load_settings(overrides, config_file=None, environ={})
    embedder = get_embedder(settings.embedder, threads=2)
    all_figures: dict[str, dict[str, Any]] = {}
    owner = args.which == "owner"
    default = answerdata_sites() if args.which == "answerdata" else SITES
    for site in args.site or (OWNER_SITES if owner else default):
        if site != "example" and not (DATA / "sites" / site).exists():
            console().print(f"{site}: ../shared/data/sites/{site} not found; skipped")
            continue
        if args.questions is not None:
            path: Path | None = args.questions
        elif args.which == "answerdata":
            if args.half not in ("dev", "test"):
                parser.error("the answer data has dev and test halves only")
            engine = engine_for(site, embedder, settings, args.indexes)
            path = answerdata_file(site, args.half, engine.index.page_ids)
        else:
            path = question_file(site, args.half, owner)
        if path is None:
            console().print(f"{site}: no {args.half} questions; skipped")
            continue
        engine = engine_for(site, embedder, settings, args.indexes)
        try:
            graded = run_site(engine, path)
        except SiteciteError as exc:
            all_figures[site] = {"error": str(exc)}
            continue
        if args.show:
            show(graded)
        all_figures[site] = figures(graded)
    print_table(all_figures, args.half)
    if args.json:
        print(json.dumps(all_figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
