"""Fit when to answer directly, and measure it on sites it never saw.

Every dev question of every site is answered as serving answers it with `direct_answers =
"any"`: the answer data's dev halves (training/answerdata, near misses as the questions to
refuse), the dev halves of the real sites' question sets and of the owner questions. Each
site's questions are answered with a ranker, an answerability model and a follower fitted on
the OTHER sites (training/train_ranker.py, training/train_answerable.py), so no row is read
off a model that saw its site. Each answer the generator would give is kept with its decision
features (the trace's `direct` check: its strategy, the answerability model's probability, how
its lead sentence stands among the candidates, what the question asks for, how many parts it
answers). An answer is right when it holds every key fact and cites an expected page
(bench.site_answers.grade); an unanswerable question answered is wrong.

The direct model, a logistic regression over those features, is fitted on all sites but one
and measured on the one left out, for each site in turn. Its threshold is the lowest at which,
pooled over the held-out sites, at most NEAR_MISSES of the unanswerable questions asked would
be answered directly: the wrong direct answers are mostly near misses answered (a question the
page is about but does not answer), and a bait answered is what a visitor forgives least. What
share of the direct answers it keeps are right is reported beside.
The table gives, per site, the answers the generator would give, how many are right, how
many the model keeps and how many of those are right, and the same for the rule it replaced
(profile facts, a page's summary, or a sentence holding the kind of thing asked for).

`--write` fits it on every row and writes `src/sitecite/data/answer_direct.json` with its
threshold; run it after `train_ranker`, `train_answerable` (it reads their cached rows) and
`train_judge` (each site's answers are judged by the judge fitted without it).
The answers are kept under .sitecite/bench/direct/ for `--reuse`.

    python -m training.train_direct [--write] [--reuse] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench._common import CACHE, REPO, console
from bench.site_answers import OWNER_SITES, SITES, answerdata_file, grade, question_file
from training import train_answerable, train_ranker
from training._answerdata import fitting_setup, site_engine
from training._reader_data import fold_reader, readers_version

NEAR_MISSES = 0.04  # of the unanswerable questions asked, at most this share answered directly
C = 0.3  # inverse regularisation strength
WEIGHTS = REPO / "src" / "sitecite" / "data" / "answer_direct.json"


@dataclass(frozen=True)
class Row:
    site: str
    id: str
    features: dict[str, float]
    right: bool
    answerable: bool
    rule: bool  # what the rule this model replaced decided


def question_sets(site: str, pages: frozenset[str]) -> list[Path]:
    """The site's dev questions: its answer data's dev half, its question set's, its owner
    questions'."""
    found = [answerdata_file(site, "dev", pages)]
    if site in SITES:
        found.append(question_file(site, "dev"))
    if site in OWNER_SITES:
        found.append(REPO / "bench" / "questions" / f"owner-{site}-dev.json")
    return [p for p in found if p is not None and p.exists()]


def held_out_generator(
    site: str, engine: Any, groups: list[Any], found: list[Any], direct: Any = None
) -> Any:
    """The extractive generator as serving makes it, but with the ranker, answerability model
    and follower fitted on the other sites; it answers every question it can directly, or,
    given a `direct` model, only those that model is sure of."""
    from sitecite.generate.answerable import default_answerability
    from sitecite.generate.extractive import ExtractiveGenerator
    from sitecite.generate.follow import default_follower

    others = [d for d in found if d.site != site]
    ranker = train_ranker.fit(
        [g for g in groups if g.site != site], train_ranker.FEATURE_SETS[train_ranker.CHOSEN]
    )
    follower = train_answerable.fit_follower(others)
    follower.about["threshold"] = default_follower().threshold  # chosen over held-out sites
    shipped = engine.generator
    return ExtractiveGenerator(
        shipped.sentence_threshold,
        shipped.max_sentences,
        shipped.coverage_threshold,
        ranker=ranker,
        answerability=train_answerable.fit_answerability(others),
        follower=follower,
        answerable_threshold=default_answerability().threshold,
        direct_answers="any" if direct is None else "sure",
        direct=direct,
        reader=fold_reader(site),
    )


def rows_of(site: str, engine: Any, generator: Any) -> tuple[list[Row], int]:
    """Every answer the generator would give directly to the site's dev questions, and how
    many of the questions were unanswerable."""
    from sitecite.errors import SiteciteError
    from sitecite.eval.questions import index_source_ids, load_question_set
    from sitecite.pipeline import answer

    known = index_source_ids(engine.index.sections)
    rows = []
    unanswerable = 0
    for path in question_sets(site, engine.index.page_ids):
        try:
            questions = load_question_set(path, known).questions
        except SiteciteError as exc:
            console().print(f"{site}: {path.name} does not load ({str(exc)[:120]}); skipped")
            continue
        for question in questions:
            unanswerable += question.expect != "answer"
            result, trace = answer(engine, question.question, generator=generator)
            direct = next((c for c in trace.checks if c.name == "direct"), None)
            if result.refused or direct is None:
                continue
            features = dict(direct.data["features"])
            where = f"{path.stem}:{question.id}"
            answerable = question.expect == "answer"
            # an unanswerable question answered is wrong, whatever it cites
            right = answerable and grade(question, result).correct
            rows.append(Row(site, where, features, right, answerable, rule(features)))
    return rows, unanswerable


def collect(reuse: bool) -> tuple[list[Row], int]:
    """Every site's rows and the unanswerable questions asked, or the previous run's with
    `reuse` when the features are the same."""
    from sitecite.generate.extractive import DIRECT_FEATURES
    from training._decisions import decisions
    from training._ranker_data import FITTED_SITES
    from training._ranker_data import collect as ranker_groups

    names = " ".join((*DIRECT_FEATURES, *FITTED_SITES, readers_version(judges=True)))
    version = hashlib.sha256(names.encode()).hexdigest()
    saved = CACHE / "direct" / f"rows-{version[:12]}.pickle"
    if reuse and saved.exists():
        kept = pickle.loads(saved.read_bytes())
        return [Row(**row) for row in kept["rows"]], kept["unanswerable"]
    groups, _ = ranker_groups(True)
    found = decisions(True)
    settings, embedder = fitting_setup()
    rows: list[Row] = []
    unanswerable = 0
    for site in FITTED_SITES:
        engine = site_engine(site, embedder, settings)
        mine, asked = rows_of(site, engine, held_out_generator(site, engine, groups, found))
        rows += mine
        unanswerable += asked
        console().print(f"{site}: {len(rows)} answers so far", highlight=False)
    saved.parent.mkdir(parents=True, exist_ok=True)
    kept = {"rows": [asdict(row) for row in rows], "unanswerable": unanswerable}
    saved.write_bytes(pickle.dumps(kept))  # plain data
    return rows, unanswerable


def rule(features: dict[str, float]) -> bool:
    """The rule the model replaced, read off the decision features of a whole answer: every
    part answered, by profile facts, a page's summary or a sentence holding the kind of thing
    asked for, and not led by a page's date unless the question asks when it was written."""
    every_part = features["parts_answered"] >= 1.0
    sure = features["profile"] or features["overview"] or features["asks_kind"]
    return every_part and bool(sure) and not features["lead_dated"]


def matrix(rows: Sequence[Row], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[row.features[n] for n in names] for row in rows], dtype=np.float64)
    return x.reshape(len(rows), len(names)), np.array([row.right for row in rows], dtype=int)


def fit(rows: Sequence[Row], names: Sequence[str]) -> Any:
    x, y = matrix(rows, names)
    return train_answerable.fit_logistic(x, y, names, C)


def held_out(rows: Sequence[Row], names: Sequence[str]) -> np.ndarray:
    """Each row's probability from a model fitted on the other sites' rows."""
    probability = np.zeros(len(rows))
    for site in sorted({row.site for row in rows}):
        test = [i for i, r in enumerate(rows) if r.site == site]
        model = fit([r for r in rows if r.site != site], names)
        probability[test] = model.probability(matrix([rows[i] for i in test], names)[0])
    return probability


def threshold_for(probability: np.ndarray, unanswerable: np.ndarray, allowed: float) -> float:
    """The lowest threshold at which at most `allowed` unanswerable questions are answered."""
    for t in sorted(set(np.round(probability, 4))):
        if unanswerable[probability >= t].sum() <= allowed:
            return float(t)
    return 1.0


def report(rows: Sequence[Row], probability: np.ndarray, threshold: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for site in sorted({row.site for row in rows}):
        mine = [i for i, r in enumerate(rows) if r.site == site]
        right = np.array([rows[i].right for i in mine], dtype=bool)
        bait = np.array([not rows[i].answerable for i in mine], dtype=bool)
        given = probability[mine] >= threshold
        before = np.array([rows[i].rule for i in mine], dtype=bool)
        out[site] = {
            "answers": len(mine),
            "right_if_all_given": int(right.sum()),
            "given": int(given.sum()),
            "given_right": int(right[given].sum()),
            "given_unanswerable": int(bait[given].sum()),
            "rule": int(before.sum()),
            "rule_right": int(right[before].sum()),
            "rule_unanswerable": int(bait[before].sum()),
        }
    return out


COLUMNS = {
    "answers": "answers",
    "right_if_all_given": "right if all given",
    "given": "model gives",
    "given_right": "right",
    "given_unanswerable": "near misses",
    "rule": "rule gave",
    "rule_right": "right",
    "rule_unanswerable": "near misses",
}


def print_table(figures: dict[str, Any], threshold: float) -> None:
    from rich.table import Table

    title = (
        f"Direct answers, each site left out (model threshold {threshold:.2f}: at most "
        f"{NEAR_MISSES:.0%} of the unanswerable questions answered)"
    )
    table = Table(title=title)
    for column in ("site", *COLUMNS.values()):
        table.add_column(column, justify="left" if column == "site" else "right")
    for site, f in [*figures.items(), ("all sites", _total(figures))]:
        table.add_row(site, *(str(f[k]) for k in COLUMNS))
    console().print(table)


def _total(figures: dict[str, Any]) -> dict[str, int]:
    return {k: sum(f[k] for f in figures.values()) for k in COLUMNS}


def main(argv: Sequence[str] | None = None) -> int:
    from sitecite.generate.extractive import DIRECT_FEATURES

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {WEIGHTS.name}")
    parser.add_argument("--reuse", action="store_true", help="the previous run's answers")
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = parser.parse_args(argv)
    rows, unanswerable = collect(args.reuse)
    names = DIRECT_FEATURES
    probability = held_out(rows, names)
    bait = np.array([not row.answerable for row in rows], dtype=bool)
    threshold = threshold_for(probability, bait, NEAR_MISSES * unanswerable)
    figures = report(rows, probability, threshold)
    print_table(figures, threshold)
    total = _total(figures)
    console().print(
        f"held out: {total['given_right']}/{total['given']} direct answers right "
        f"(the rule: {total['rule_right']}/{total['rule']}); unanswerable questions answered "
        f"{total['given_unanswerable']}/{unanswerable} (the rule: "
        f"{total['rule_unanswerable']}/{unanswerable})",
        highlight=False,
    )
    if args.write:
        model = fit(rows, names)
        model.about.update(
            threshold=threshold,
            near_misses=NEAR_MISSES,
            unanswerable_asked=unanswerable,
            trained_on="dev halves of the answer data of every site it covers, of jarvis's "
            "and timlrx's question sets and of the owner questions, answered with models "
            "fitted on the other sites",
            leave_one_site_out=total,
        )
        WEIGHTS.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    if args.json:
        print(json.dumps({"threshold": threshold, "unanswerable": unanswerable, "sites": figures}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
