"""Questions about a whole page, answered with and without the overview rule, for a blind judge.

For every page of the two real sites and the example site whose title is short enough to be
a starter question (the questions `serve/starters.py` offers are of this kind), one question
in one of three phrasings ("Tell me about X", "What is the X post about?", "Give me an
overview of X") is answered twice by the extractive generator: with `overview` on (the page's
summary leads) and off (the ranker alone). Where the answers differ, `--out DIR` writes

- `ab.jsonl`: question, the page's text and the two answers in a random order per question,
  for a judge who never sees which is which;
- `key.json`: which of A and B is the overview rule's (kept from the judge).

The judge writes `judged.jsonl` beside them (`id`, `acceptable_A`, `acceptable_B`, `better`:
A, B or tie); `--score DIR` prints how often each side was acceptable and preferred.

    python -m bench.overview_answers --out DIR
    python -m bench.overview_answers --score DIR [--json]
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench._common import console

FORMS = ("Tell me about {}", "What is the {} post about?", "Give me an overview of {}")
MAX_TITLE_CHARS = 60
PAGE_TEXT_CHARS = 4000


def pairs(site: str) -> list[dict[str, Any]]:
    """The site's page questions whose two answers differ, in the judge's A/B form."""
    from bench.followup import engine_for
    from sitecite.generate.extractive import ExtractiveGenerator
    from sitecite.pipeline import answer

    engine = engine_for(site, _embedder())
    plain = copy.copy(engine.generator)  # the same generator with the overview rule off
    assert isinstance(plain, ExtractiveGenerator)
    plain.overview = False
    pages: dict[str, list[Any]] = {}
    for section in engine.index.sections:
        if not section.page_id.startswith("_") and section.title:
            pages.setdefault(section.page_id, []).append(section)
    rows = []
    for n, (page, sections) in enumerate(sorted(pages.items())):
        title = sections[0].title
        if len(title) > MAX_TITLE_CHARS:
            continue
        question = FORMS[n % len(FORMS)].format(title)
        rule = answer(engine, question)[0].answer
        ranker = answer(engine, question, generator=plain)[0].answer
        if rule == ranker:
            continue
        key = hashlib.sha1(f"{site} {page}".encode()).hexdigest()[:8]
        first = random.Random(key).random() < 0.5  # is A the rule's answer?
        text = "\n\n".join(f"## {s.heading or '(top)'}\n{s.text}" for s in sections)
        rows.append(
            {
                "id": key,
                "site": site,
                "question": question,
                "page_title": title,
                "page_text": text[:PAGE_TEXT_CHARS],
                "answer_A": rule if first else ranker,
                "answer_B": ranker if first else rule,
                "_rule": "A" if first else "B",
            }
        )
    return rows


def _embedder() -> Any:
    from sitecite.embed import get_embedder

    return get_embedder("sentence-transformers/all-MiniLM-L6-v2", threads=1)


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rows = [row for site in ("jarvis", "timlrx", "example") for row in pairs(site)]
    key = {row["id"]: row.pop("_rule") for row in rows}
    with (out / "ab.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    (out / "key.json").write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
    console().print(f"{len(rows)} questions whose answers differ, written to {out}")


def score(folder: Path) -> dict[str, Any]:
    key = json.loads((folder / "key.json").read_text(encoding="utf-8"))
    sites = {}
    ab = folder / "ab.jsonl"
    for line in ab.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        sites[row["id"]] = row["site"]
    result: dict[str, Any] = {"questions": 0, "rule_acceptable": 0, "ranker_acceptable": 0}
    result.update({"rule_better": 0, "ranker_better": 0, "tie": 0, "sites": {}})
    for line in (folder / "judged.jsonl").read_text(encoding="utf-8").splitlines():
        verdict = json.loads(line)
        rule = key[verdict["id"]]
        ranker = "B" if rule == "A" else "A"
        site = result["sites"].setdefault(sites[verdict["id"]], [0, 0, 0])
        site[0] += 1
        site[1] += bool(verdict[f"acceptable_{rule}"])
        site[2] += bool(verdict[f"acceptable_{ranker}"])
        result["questions"] += 1
        result["rule_acceptable"] += bool(verdict[f"acceptable_{rule}"])
        result["ranker_acceptable"] += bool(verdict[f"acceptable_{ranker}"])
        better = verdict["better"]
        side = "tie" if better == "tie" else "rule_better" if better == rule else "ranker_better"
        result[side] += 1
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write ab.jsonl and key.json here")
    parser.add_argument("--score", type=Path, help="score judged.jsonl in this folder")
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = parser.parse_args(argv)
    if args.out:
        write(args.out)
    if args.score:
        result = score(args.score)
        n = result["questions"]
        console().print(
            f"{n} questions judged: acceptable with the overview rule {result['rule_acceptable']}"
            f"/{n}, with the ranker alone {result['ranker_acceptable']}/{n}; preferred: rule "
            f"{result['rule_better']}, ranker {result['ranker_better']}, tie {result['tie']}; "
            f"per site (questions, rule acceptable, ranker acceptable): {result['sites']}",
            highlight=False,
        )
        if args.json:
            print(json.dumps(result))
    if not (args.out or args.score):
        parser.error("give --out DIR or --score DIR")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
