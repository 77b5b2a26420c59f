"""Fit when an extractive answer is given directly, and measure it on each site left out.

Every question of the dev halves of the six real sites (and the owner questions of jarvis,
timlrx and the example site) is answered as serving answers it with `direct_answers = "any"`,
so each answer the generator would give is kept with its decision features (the trace's
`direct` check: its strategy, the answerability model's probability, how its lead sentence
stands, whether it holds the kind of thing asked for, how many parts it answers). An answer
is right when it holds every key fact and cites an expected page (bench.site_answers.grade);
a bait or adversarial question answered is wrong.

A logistic regression over those features is fitted on all sites but one and measured on the
one left out, for each site in turn. The threshold is the lowest at which the answers given
directly, pooled over the left-out sites, are right at least PRECISION of the time: the
issue's bar is 80%, and a margin keeps it on sites none of these are. With `--write` the model
fitted on every site is written to src/sitecite/data/direct_answer.json with that threshold.

    python -m training.train_direct [--write] [--indexes DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench._common import CACHE, REPO, console
from bench.site_answers import SITES, grade, question_file, site_content
from training.train_answerable import fit_logistic

DATA_DIR = REPO / "src" / "sitecite" / "data"
WEIGHTS = DATA_DIR / "direct_answer.json"
PRECISION = 0.85
C = 0.3
OWNER_SETS = ("jarvis", "timlrx", "example")  # bench/questions/owner-<site>-dev.json


@dataclass(frozen=True)
class Row:
    site: str
    id: str
    features: dict[str, float]
    right: bool


def question_sets(site: str) -> list[Path]:
    """The dev sets of a site: its half of the real sites' questions, its owner questions."""
    found = [] if site == "example" else [question_file(site, "dev")]
    owner = REPO / "bench" / "questions" / f"owner-{site}-dev.json"
    return [p for p in (*found, owner if site in OWNER_SETS else None) if p is not None]


def engine(site: str, embedder: Any, settings: Any, indexes: Path | None) -> Any:
    from sitecite.index.build import build_index
    from sitecite.pipeline import Engine

    if indexes is not None:
        return Engine.load(indexes / site, settings)
    content = REPO / "examples" / "site" if site == "example" else site_content(site)
    index_dir = CACHE / "sites" / site
    build_index(content, index_dir, embedder)
    return Engine.load(index_dir, settings)


def rows_of(site: str, embedder: Any, settings: Any, indexes: Path | None) -> list[Row]:
    """Every answer the generator would give directly on the site's dev sets."""
    from sitecite.errors import SiteciteError
    from sitecite.eval.questions import index_source_ids, load_question_set
    from sitecite.pipeline import answer

    site_engine = engine(site, embedder, settings, indexes)
    known = index_source_ids(site_engine.index.sections)
    rows = []
    for path in question_sets(site):
        try:
            questions = load_question_set(path, known).questions
        except SiteciteError as exc:
            console().print(f"{site}: {path.name} does not load ({str(exc)[:120]}); skipped")
            continue
        for question in questions:
            result, trace = answer(site_engine, question.question)
            direct = next((c for c in trace.checks if c.name == "direct"), None)
            if result.refused or direct is None:
                continue
            graded = grade(question, result)
            rows.append(Row(site, question.id, dict(direct.data["features"]), graded.correct))
    return rows


def matrix(rows: Sequence[Row], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[row.features[n] for n in names] for row in rows], dtype=np.float64)
    return x.reshape(len(rows), len(names)), np.array([row.right for row in rows], dtype=int)


def held_out(rows: Sequence[Row], names: Sequence[str]) -> np.ndarray:
    """Each row's probability from a model fitted on the other sites' rows."""
    probability = np.zeros(len(rows))
    sites = sorted({row.site for row in rows})
    for site in sites:
        train = [r for r in rows if r.site != site]
        test = [i for i, r in enumerate(rows) if r.site == site]
        x, y = matrix(train, names)
        model = fit_logistic(x, y, names, C)
        probability[test] = model.probability(matrix([rows[i] for i in test], names)[0])
    return probability


def threshold_for(probability: np.ndarray, right: np.ndarray, precision: float) -> float:
    """The lowest threshold whose answers are right at least `precision` of the time."""
    for t in sorted(set(np.round(probability, 4))):
        given = probability >= t
        if given.any() and right[given].mean() >= precision:
            return float(t)
    return 1.0


def report(rows: Sequence[Row], probability: np.ndarray, threshold: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for site in sorted({row.site for row in rows}):
        mine = [i for i, r in enumerate(rows) if r.site == site]
        right = np.array([rows[i].right for i in mine])
        given = probability[mine] >= threshold
        out[site] = {
            "answers": len(mine),
            "right_if_all_given": int(right.sum()),
            "given": int(given.sum()),
            "given_right": int(right[given].sum()),
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from sitecite.config import load_settings
    from sitecite.embed import get_embedder
    from sitecite.generate.extractive import DIRECT_FEATURES

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the model fitted on all")
    parser.add_argument("--indexes", type=Path, help="prebuilt indexes DIR/<site>")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    settings = load_settings({"direct_answers": "any"}, config_file=None, environ={})
    embedder = get_embedder(settings.embedder, threads=2)
    rows: list[Row] = []
    for site in (*SITES, "example"):
        rows += rows_of(site, embedder, settings, args.indexes)
    names = DIRECT_FEATURES
    probability = held_out(rows, names)
    right = np.array([row.right for row in rows], dtype=int)
    threshold = threshold_for(probability, right, PRECISION)
    figures = report(rows, probability, threshold)
    from rich.table import Table

    table = Table(title=f"Direct answers, each site left out (threshold {threshold:.2f})")
    for column in ("site", "answers", "right if all given", "given", "given right"):
        table.add_column(column, justify="left" if column == "site" else "right")
    for site, f in figures.items():
        table.add_row(
            site, *(str(f[k]) for k in ("answers", "right_if_all_given", "given", "given_right"))
        )
    console().print(table)
    if args.write:
        x, y = matrix(rows, names)
        model = fit_logistic(x, y, names, C)
        about = {
            **model.about,
            "threshold": threshold,
            "precision": PRECISION,
            "trained_on": "dev halves of the six real sites; owner dev sets of jarvis, timlrx, "
            "example (training/train_direct.py)",
        }
        WEIGHTS.write_text(json.dumps({**model.to_json(), "about": about}, indent=1) + "\n")
        console().print(f"wrote {WEIGHTS.relative_to(REPO)}")
    if args.json:
        print(json.dumps({"threshold": threshold, "sites": figures}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
