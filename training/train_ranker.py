"""Fit the answer-sentence ranker and measure it on sites it never saw.

The candidates and their labels are training/_ranker_data.py's: every quotable sentence of the top
8 sections retrieved for a question, positive when it is a gold answer sentence (answer data),
holds a key fact on an expected page (the real sites' dev halves), or holds SQuAD's answer span.

Top-1 accuracy (the best-ranked candidate is a positive, over questions with a positive among
their candidates) is reported:

- leave one site out: for each site of the answer data (eighteen real sites and the example
  site), fitted on the other sites' answer data (dev halves) and dev question sets, tested on
  its own: the honest estimate for a site never seen;
- on SQuAD 2.0's held-out paragraphs (split by paragraph, fitted on the sites and SQuAD's other
  paragraphs), beside today's heuristic (cosine + half the word coverage) and round 1's shipped
  ranker (fitted cosine + coverage).

`--write` fits the chosen feature set on every site's answer data and dev halves and writes
`src/sitecite/data/answer_ranker.json`. `--reuse` reads the candidates of the previous run when
the features have not changed.

    python -m training.train_ranker [--write] [--reuse] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from bench._common import REPO, console
from training._ranker_data import FITTED_SITES, Group, collect

SITES = FITTED_SITES
WEIGHTS = REPO / "src" / "sitecite" / "data" / "answer_ranker.json"
HEURISTIC_COVERAGE_WEIGHT = 0.5  # the first scoring: cosine + 0.5 x coverage
ROUND_1 = {  # round 1's shipped ranker: fitted cosine + coverage, standardised
    "features": ("cosine", "coverage"),
    "mean": (0.29215167795281366, 0.5272262793470068),
    "scale": (0.16583187630196908, 0.13851579502465486),
    "coef": (0.7578793663488417, 0.8701491237902903),
}
C = 0.1  # inverse regularisation strength of the pairwise logistic regression
PAIRS_PER_QUESTION = 60
CLOSENESS = ("cosine", "coverage", "idf_overlap", "context_idf", "heading_idf")
ADDS = (
    *("novelty", "restates", "new_detail", "lead_in", "question_mark", "after_lead_in"),
    "planned",
)
EXPECTED = (
    *("number_for_count", "date_for_when", "place_for_where", "name_for_which"),
    *("reason_for_why", "step_for_how"),
)
STRUCTURE = (
    *("section_cosine", "section_rank", "position", "prev_cosine", "next_cosine"),
    *("item", "row", "fact", "summary", "first_person", "length", "topicality"),
)
# Feature sets compared; the shipped ranker uses CHOSEN.
FEATURE_SETS: dict[str, tuple[str, ...] | None] = {
    "fitted cosine + coverage": ("cosine", "coverage"),
    "+ rarity-weighted overlap with sentence and heading": CLOSENESS,
    "+ what it adds": (*CLOSENESS, *ADDS),
    "+ expected answer type": (*CLOSENESS, *ADDS, *EXPECTED),
    "+ section, position, neighbours, kind": (*CLOSENESS, *ADDS, *EXPECTED, *STRUCTURE),
    "every feature": None,
    "the reader alone": ("reader",),
    "+ the reader (generate/reader.py)": (*CLOSENESS, *ADDS, *EXPECTED, "reader"),
}
CHOSEN = "+ the reader (generate/reader.py)"


def columns(names: Sequence[str] | None) -> tuple[tuple[str, ...], list[int]]:
    from sitecite.generate.features import FEATURES

    chosen = tuple(names or FEATURES)
    return chosen, [FEATURES.index(name) for name in chosen]


def scorer(ranker: Any) -> Callable[[np.ndarray], np.ndarray]:
    """Scores for matrices holding every feature (what the groups hold)."""
    from sitecite.generate.features import FEATURES

    return lambda matrix: ranker.scores(matrix, FEATURES)


def heuristic(matrix: np.ndarray) -> np.ndarray:
    _, (cosine, coverage) = columns(("cosine", "coverage"))
    return matrix[:, cosine] + HEURISTIC_COVERAGE_WEIGHT * matrix[:, coverage]


def round_one() -> Any:
    from sitecite.generate.ranker import Ranker

    arrays = (np.asarray(ROUND_1[k], dtype=np.float64) for k in ("mean", "scale", "coef"))
    return Ranker(ROUND_1["features"], *arrays, 0.0, {})  # type: ignore[arg-type]


def shipped() -> Any:
    """The ranker as shipped now (what a --write replaces); it may have seen the sites."""
    from sitecite.generate.ranker import load_ranker

    return load_ranker(WEIGHTS)


def top1(groups: Sequence[Group], score: Callable[[np.ndarray], np.ndarray]) -> tuple[int, int]:
    """(questions whose best-scored candidate is positive, questions with any positive)."""
    hits = total = 0
    for g in groups:
        if g.labels.any():
            total += 1
            hits += int(g.labels[int(np.argmax(score(g.matrix)))] == 1)
    return hits, total


def pairs(matrices: Sequence[tuple[np.ndarray, np.ndarray]], seed: int = 0) -> np.ndarray:
    """Within each question, (positive - negative) differences: a ranking is learnt from
    comparisons inside a question, never across them; each question gives at most
    PAIRS_PER_QUESTION, so every question weighs about the same."""
    rng = np.random.default_rng(seed)
    differences = []
    for matrix, labels in matrices:
        positive, negative = matrix[labels == 1], matrix[labels == 0]
        chosen = [(i, j) for i in range(len(positive)) for j in range(len(negative))]
        if len(chosen) > PAIRS_PER_QUESTION:
            chosen = [chosen[k] for k in rng.choice(len(chosen), PAIRS_PER_QUESTION, False)]
        differences.extend(positive[i] - negative[j] for i, j in chosen)
    return np.asarray(differences)


def fit(groups: Sequence[Group], names: Sequence[str] | None = None, c: float = C) -> Any:
    """A linear score over the named features, fitted as a pairwise logistic regression
    (RankNet's linear case) on standardised features."""
    from sklearn.linear_model import LogisticRegression

    from sitecite.generate.ranker import Ranker

    chosen, index = columns(names)
    usable = [g for g in groups if g.labels.any() and not g.labels.all()]
    everything = np.vstack([g.matrix[:, index] for g in usable])
    mean, scale = everything.mean(axis=0), everything.std(axis=0)
    scale[scale == 0] = 1.0
    differences = pairs([((g.matrix[:, index] - mean) / scale, g.labels) for g in usable])
    x = np.vstack([differences, -differences])
    y = np.r_[np.ones(len(differences)), np.zeros(len(differences))]
    model = LogisticRegression(C=c, fit_intercept=False, max_iter=5000).fit(x, y)
    about = {"pairs": len(differences), "questions": len(usable)}
    return Ranker(chosen, mean, scale, model.coef_[0], 0.0, about)


def leave_one_site_out(
    groups: Sequence[Group], names: Sequence[str] | None, c: float = C
) -> dict[str, tuple[int, int]]:
    """Top-1 on each site's questions, fitted on the other sites' questions."""
    found = {}
    for site in SITES:
        train = [g for g in groups if g.site != site]
        found[site] = top1([g for g in groups if g.site == site], scorer(fit(train, names, c)))
    return found


def is_squad_test(key: str) -> bool:
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 16**8 < 0.5


def run(groups: list[Group], write: bool) -> dict[str, Any]:
    sites = [g for g in groups if g.site in SITES]
    squad_train = [g for g in groups if g.site == "squad" and not is_squad_test(g.key)]
    squad_test = [g for g in groups if g.site == "squad" and is_squad_test(g.key)]
    rows: dict[str, Any] = {}
    for name, score in (("heuristic (cosine + 0.5 coverage)", heuristic),):
        rows[name] = _fixed_row(sites, squad_test, score)
    rows["round 1's ranker (as shipped)"] = _fixed_row(sites, squad_test, scorer(round_one()))
    rows["the shipped ranker (read, not refitted)"] = _fixed_row(
        sites, squad_test, scorer(shipped())
    )
    for name, names in FEATURE_SETS.items():
        row = leave_one_site_out(sites, names)
        row["squad"] = top1(squad_test, scorer(fit([*sites, *squad_train], names)))
        rows[name] = row
    result: dict[str, Any] = {"sets": rows, "chosen": CHOSEN}
    if write:
        ranker = fit(sites, FEATURE_SETS[CHOSEN])
        loso = rows[CHOSEN]
        ranker.about.update(
            trained_on=TRAINED_ON,
            leave_one_site_out_top1={s: round(loso[s][0] / loso[s][1], 4) for s in SITES},
        )
        WEIGHTS.write_text(json.dumps(ranker.to_json(), indent=1) + "\n")
        result["weights"] = dict(
            zip(ranker.features, np.round(ranker.coef, 3).tolist(), strict=True)
        )
    return result


TRAINED_ON = (
    "dev halves of the answer data (training/answerdata) of every site it covers; dev halves "
    "of jarvis, timlrx and of the owner questions (jarvis, timlrx, example)"
)


def _fixed_row(sites: list[Group], squad: list[Group], score: Any) -> dict[str, Any]:
    row = {site: top1([g for g in sites if g.site == site], score) for site in SITES}
    row["squad"] = top1(squad, score)
    return row


def print_table(result: dict[str, Any], mapping: dict[str, Any]) -> None:
    from rich.table import Table

    out = console()
    out.print(f"gold sentences found in the index, per site: {mapping}", highlight=False)
    names = list(result["sets"])
    table = Table(title="Answer-sentence ranker: top-1 accuracy, each site held out")
    table.add_column("site")
    for n, _ in enumerate(names, start=1):
        table.add_column(f"({n})", justify="right")
    for site in (*SITES, "all sites", "squad"):
        cells = []
        for name in names:
            row = result["sets"][name]
            pooled = tuple(sum(row[s][i] for s in SITES) for i in (0, 1))
            pair = row.get(site, pooled)
            cells.append(_rate(*pair, short=True))
        table.add_row("SQuAD held-out" if site == "squad" else site, *cells)
    out.print(table)
    for n, name in enumerate(names, start=1):
        mark = " (shipped by --write)" if name == result["chosen"] else ""
        out.print(f"({n}) {name}{mark}", highlight=False)
    if "weights" in result:
        out.print(f"shipped weights (standardised): {result['weights']}", highlight=False)


def _rate(hits: int, total: int, short: bool = False) -> str:
    if not total:
        return "-"
    return f"{hits / total:.1%}" if short else f"{hits}/{total} = {hits / total:.1%}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {WEIGHTS.name}")
    parser.add_argument("--reuse", action="store_true", help="reuse the collected candidates")
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = parser.parse_args(argv)
    groups, mapping = collect(args.reuse)
    result = run(groups, args.write)
    print_table(result, mapping)
    if args.json:
        print(json.dumps({**result, "mapping": mapping}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
