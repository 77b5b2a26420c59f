"""Would the reader's judge rank a question's candidates better than the ranker alone?

The judge (train_judge.py) reads the question and one sentence together and is asked, at
serving, only about the lead. This measures whether it should also reorder the ranker's first
candidates: for every dev-half question of the ranker data (training/_ranker_data.py) with a
gold sentence among the first FIRST candidates the ranker puts first (admitted sections only,
as serving sees them), the share whose first candidate is gold when the candidates are ordered
by the ranker's score alone, and by the ranker's score plus `weight` times the judge's logit,
the judge being the one fitted without the question's site (its fold's, beside the site's fold
reader). Per site, and in total.

    python -m training.judge_rerank [--first N] [--weight W ...] [--json]

Run after `train_judge --write` (it reads the fold judges). About four minutes (210 s) for eight
candidates: one judge run (one thread) per question.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench._common import console

FIRST = 8
WEIGHTS = (0.5, 1.0, 2.0)


def judged_groups(first: int) -> list[dict[str, Any]]:
    """Each answerable question's first candidates: the ranker's scores, each candidate's
    held-out judge logit, and which are gold."""
    from sitecite.generate.features import FEATURES
    from sitecite.generate.ranker import default_ranker
    from training._ranker_data import collect
    from training._reader_data import fold_reader

    ranker = default_ranker()
    groups, _ = collect(True)
    out = []
    for group in groups:
        if group.origin == "squad" or not group.answerable:
            continue
        scores = ranker.scores(group.matrix, FEATURES)
        order = np.argsort(-scores, kind="stable")
        chosen = [int(i) for i in order if group.admitted[i]][:first]
        if not any(group.labels[i] for i in chosen):
            continue
        logits = fold_reader(group.site).judge_all(group.question, [group.texts[i] for i in chosen])
        out.append(
            {
                "site": group.site,
                "scores": scores[chosen],
                "judge": logits,
                "gold": np.array([bool(group.labels[i]) for i in chosen]),
            }
        )
    return out


def first_is_gold(found: Sequence[dict[str, Any]], weight: float) -> int:
    return sum(int(g["gold"][int(np.argmax(g["scores"] + weight * g["judge"]))]) for g in found)


def report(found: Sequence[dict[str, Any]], weights: Sequence[float]) -> dict[str, Any]:
    sites = sorted({g["site"] for g in found})
    rows = {}
    for site in [*sites, "all"]:
        mine = [g for g in found if site in ("all", g["site"])]
        rows[site] = {
            "questions": len(mine),
            "ranker": first_is_gold(mine, 0.0),
            **{f"judge x{w:g}": first_is_gold(mine, w) for w in weights},
        }
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first", type=int, default=FIRST, help="candidates the judge reads")
    parser.add_argument("--weight", type=float, nargs="*", default=list(WEIGHTS))
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows = report(judged_groups(args.first), args.weight)
    out = console()
    columns = list(rows["all"])
    out.print(f"{'site':<16}" + "".join(f"{c:>12}" for c in columns), highlight=False)
    for site, row in rows.items():
        out.print(f"{site:<16}" + "".join(f"{row[c]:>12}" for c in columns), highlight=False)
    out.print(f"first of {args.first} candidates; {time.perf_counter() - started:.0f} s")
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
