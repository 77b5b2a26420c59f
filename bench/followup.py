"""Follow-up questions (not a test): two-turn conversations answered with and without the
previous turn, through `answer` as served, with the extractive generator.

For each conversation the first question is answered alone; the second is answered alone
(the baseline: what sitecite did before it kept conversations) and with the first turn as
history. A turn passes when it is answered, cites one of its expected pages, and contains
each of its `must_contain` strings (an entry may list alternatives; case-insensitive).
The control: every conversation's first question is asked again after another
conversation's first turn, and must come out exactly as it does alone.

    python -m bench.followup                      # the dev conversations (tune on these)
    python -m bench.followup --split test --json  # the held-out ones

The real sites are indexed into .sitecite/bench/ once and calibrated from their headings.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from bench._common import CACHE, DATA, REPO, console, require
from sitecite.calibrate import calibrate
from sitecite.config import load_settings
from sitecite.embed import Embedder, get_embedder
from sitecite.index.build import build_index
from sitecite.index.store import read_manifest
from sitecite.pipeline import Engine, answer
from sitecite.types import Answer, Turn

QUESTIONS = REPO / "bench" / "questions"
SITES = {
    "example": (REPO / "examples" / "site", REPO / "examples" / "calibration.json"),
    "jarvis": (DATA / "sites" / "jarvis", None),
    "timlrx": (DATA / "sites" / "timlrx", None),
}


def engine_for(site: str, embedder: Embedder) -> Engine:
    """The site's index (built and calibrated once, then reused) and its engine."""
    content, calibration = SITES[site]
    require(content, f"the {site} site")
    index_dir = CACHE / f"followup-{site}-index"
    build_index(content, index_dir, embedder)
    settings = load_settings({}, config_file=None, environ={})
    engine = Engine.load(index_dir, settings)
    if embedder.id not in read_manifest(index_dir).get("thresholds", {}):
        calibrate(engine, calibration)
        engine = Engine.load(index_dir, settings)
    return engine


def passes(result: Answer, turn: dict[str, Any]) -> bool:
    """Answered, citing an expected page, with every must_contain entry (or an alternative)."""
    if result.refused:
        return False
    text = result.answer.lower()
    for entry in turn.get("must_contain", []):
        options = entry if isinstance(entry, list) else [entry]
        if not any(option.lower() in text for option in options):
            return False
    expected = set(turn.get("expected_sources", []))
    cited = {c.id.split("#", 1)[0] for c in result.citations} | {c.id for c in result.citations}
    return not expected or bool(expected & cited)


def found(result: Answer, turn: dict[str, Any]) -> bool:
    """Whether retrieval admitted a section of an expected page (what resolution can fix)."""
    expected = set(turn.get("expected_sources", []))
    admitted = {h.section.page_id for h in result.retrieved if h.admitted}
    admitted |= {h.section.id for h in result.retrieved if h.admitted}
    return bool(expected & admitted)


def turn_of(result: Answer) -> Turn:
    """The turn as the widget sends it back: the question as resolved, the cited ids."""
    return Turn(
        result.resolved_question or result.question,
        result.answer,
        tuple(c.id for c in result.citations),
    )


def run_site(engine: Engine, conversations: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    firsts = [answer(engine, c["turns"][0]["question"])[0] for c in conversations]
    for position, conversation in enumerate(conversations):
        first_turn, second_turn = conversation["turns"]
        first = firsts[position]
        alone = answer(engine, second_turn["question"])[0]
        followed, trace = answer(engine, second_turn["question"], history=[turn_of(first)])
        other = conversations[(position + 1) % len(conversations)]["turns"][0]["question"]
        control_alone = firsts[(position + 1) % len(conversations)]
        control = answer(engine, other, history=[turn_of(first)])[0]
        rows.append(
            {
                "id": conversation["id"],
                "first_passed": passes(first, first_turn),
                "alone_passed": passes(alone, second_turn),
                "followed_passed": passes(followed, second_turn),
                "alone_found": found(alone, second_turn),
                "followed_found": found(followed, second_turn),
                "resolved": followed.resolved_question,
                "followup": trace.checks[0].detail if trace.checks else "",
                "answer": followed.answer[:160],
                "control_same": control.answer == control_alone.answer
                and control.refused == control_alone.refused,
                "control_resolved": bool(control.resolved_question),
            }
        )
    return rows


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)

    def count(key: str) -> int:
        return sum(bool(r[key]) for r in rows)

    return {
        "conversations": n,
        "first_passed": count("first_passed"),
        "second_alone_passed": count("alone_passed"),
        "second_with_history_passed": count("followed_passed"),
        "second_resolved": sum(bool(r["resolved"]) for r in rows),
        "second_alone_found": count("alone_found"),
        "second_with_history_found": count("followed_found"),
        "control_unchanged": count("control_same"),
        "control_resolved": count("control_resolved"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=["dev", "test"], default="dev")
    parser.add_argument("--json", action="store_true", help="one JSON object as the last line")
    parser.add_argument("--verbose", action="store_true", help="every conversation's outcome")
    args = parser.parse_args()
    data = json.loads((QUESTIONS / f"conversations-{args.split}.json").read_text())
    embedder = get_embedder("sentence-transformers/all-MiniLM-L6-v2", threads=1)
    by_site: dict[str, list[dict[str, Any]]] = {}
    for conversation in data["conversations"]:
        by_site.setdefault(conversation["site"], []).append(conversation)
    rows: list[dict[str, Any]] = []
    for site, conversations in by_site.items():
        print(f"{site}: {len(conversations)} conversations ...", file=sys.stderr)
        rows.extend(run_site(engine_for(site, embedder), conversations))
    out = console()
    if args.verbose:
        for row in rows:
            mark = "PASS" if row["followed_passed"] else "fail"
            alone = "pass" if row["alone_passed"] else "fail"
            where = f"found {row['alone_found']:d}->{row['followed_found']:d}"
            out.print(
                f"{mark} (alone {alone}, {where}) {row['id']}: {row['followup']}\n"
                f"    {row['answer']}"
            )
    summary = summarise(rows)
    n = summary["conversations"]
    out.print(
        f"{args.split}: {n} conversations. Second question passed alone "
        f"{summary['second_alone_passed']}/{n}, with the first turn as history "
        f"{summary['second_with_history_passed']}/{n} ({summary['second_resolved']} read as "
        f"follow-ups). An expected page admitted: alone {summary['second_alone_found']}/{n}, "
        f"with history {summary['second_with_history_found']}/{n}. First questions passed "
        f"{summary['first_passed']}/{n}. Control: "
        f"{summary['control_unchanged']}/{n} unrelated questions answered exactly as alone "
        f"({summary['control_resolved']} wrongly read as follow-ups)."
    )
    if args.json:
        print(json.dumps({"split": args.split, **summary, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
