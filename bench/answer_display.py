"""What a visitor reads of the answers: Markdown markers and HTML entities in the answer text
as served, and left after rendering (`sitecite.markup`, as `sitecite ask`, the lab and the
widget render it), per question set, with the three outcomes.

Runs each question through the pipeline that serves visitors and counts the answers whose
visible text holds a marker a reader would take for markup (emphasis or code markers around a
word, a list or heading marker at a line's start, an HTML character reference): in the raw
`answer` field, and in the text as rendered. The browser test (tests/test_display_browser.py)
checks the widget shows the rendered text word for word.

    python -m bench.answer_display [--set INDEX_DIR=QUESTIONS.json ...]

Without `--set`: the example site (its test index, built by the tests) and the jarvis and
timlrx dev halves on the indexes `python -m bench.site_answers` builds (or those under
$SITECITE_BENCH_INDEXES), where they exist.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

from bench._common import CACHE, REPO

RAW_MARKUP = re.compile(
    r"(?:^|[\s(])(?:\*{1,3}|_{1,3}|`)\S|\S(?:\*{1,3}|`)(?:$|[\s).,:;])"
    r"|^\s*(?:[-*+]|#{1,6})\s|&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]+);",
    re.IGNORECASE | re.MULTILINE,
)
SHARED_INDEXES = Path(os.environ.get("SITECITE_BENCH_INDEXES", CACHE / "sites"))


def default_sets() -> list[tuple[str, Path, Path]]:
    sets = [
        (
            "example",
            REPO / ".sitecite" / "test-example-index",
            REPO / "examples" / "questions.json",
        )
    ]
    for site in ("jarvis", "timlrx"):
        questions = REPO / "bench" / "questions" / f"{site}-dev.json"
        sets.append((f"{site} dev", SHARED_INDEXES / site, questions))
    return [entry for entry in sets if entry[1].exists() and entry[2].exists()]


def measure(index_dir: Path, questions_file: Path) -> dict[str, object]:
    from sitecite.config import load_settings
    from sitecite.markup import pointer_lead, to_text
    from sitecite.pipeline import Engine, answer

    engine = Engine.load(index_dir, load_settings({}, config_file=None, environ={}))
    data = json.loads(questions_file.read_text())
    questions = [q["question"] for q in (data["questions"] if isinstance(data, dict) else data)]
    raw = rendered = 0
    outcomes: Counter[str] = Counter()
    started = time.perf_counter()
    for question in questions:
        result, _ = answer(engine, question)
        outcome = str(result.outcome)
        outcomes[outcome] += 1
        shown = pointer_lead(result.answer) if outcome == "pointed" else result.answer
        raw += bool(RAW_MARKUP.search(result.answer))
        rendered += bool(RAW_MARKUP.search(to_text(shown)))
    return {
        "questions": len(questions),
        "raw": raw,
        "rendered": rendered,
        "outcomes": dict(outcomes),
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", default=[], metavar="INDEX_DIR=QUESTIONS")
    args = parser.parse_args()
    sets = [
        (Path(q).stem, Path(i), Path(q)) for i, q in (entry.split("=", 1) for entry in args.set)
    ] or default_sets()
    if not sets:
        sys.exit("no index and question set found; pass --set INDEX_DIR=QUESTIONS.json")
    print(
        "| set | questions | answered / pointed / refused | raw text with markup | "
        "rendered text with markup |"
    )
    print("| --- | --- | --- | --- | --- |")
    for name, index_dir, questions_file in sets:
        figures = measure(index_dir, questions_file)
        outcomes = figures["outcomes"]
        assert isinstance(outcomes, dict)
        split = " / ".join(str(outcomes.get(o, 0)) for o in ("answered", "pointed", "refused"))
        print(
            f"| {name} | {figures['questions']} | {split} | {figures['raw']} | "
            f"{figures['rendered']} |"
        )


if __name__ == "__main__":
    main()
