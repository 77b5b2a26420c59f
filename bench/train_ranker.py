"""Fit the answer-sentence ranker and measure it on a held-out SQuAD 2.0 split.

Candidates are exactly what the extractive generator ranks: every quotable sentence of the
sections retrieved for the question (top 8), with the features of `generate/features.py`.

- SQuAD 2.0 (../shared/data/abstention/squad2, 626 questions over 87 paragraphs of two
  articles): split by paragraph, so no paragraph is on both sides. A candidate is positive when
  it is a sentence of the question's own paragraph holding a gold answer; unanswerable
  questions give negatives.
- The real-site dev halves (bench/questions/*-dev.json): a candidate is positive when it is on an
  expected page and holds one of the question's key facts (`must_contain`). Test halves are
  never read here.

It prints top-1 accuracy (the best-ranked candidate is a positive) for today's heuristic (cosine
+ half the word coverage) and for rankers over growing feature sets: fitted on SQuAD's training
paragraphs and tested on its held-out ones, 5-fold cross-validated by paragraph on all of SQuAD,
and 5-fold cross-validated on the dev halves' questions (each fold fitted on SQuAD's training
paragraphs and the other folds). `--write` fits the chosen set on SQuAD's training paragraphs
and the dev halves and writes `src/sitecite/data/answer_ranker.json`. `--reuse` reads the
candidates collected by the previous run instead of retrieving again (after a change to the
fit, not to the features).

    python bench/train_ranker.py [--write] [--reuse] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CACHE, DATA, REPO, console, require  # noqa: E402

SITES = {"jarvis": DATA / "sites" / "jarvis", "timlrx": DATA / "sites" / "timlrx"}
QUESTIONS = REPO / "bench" / "questions"
WEIGHTS = REPO / "src" / "sitecite" / "data" / "answer_ranker.json"
HEURISTIC_COVERAGE_WEIGHT = 0.5  # today's score: cosine + 0.5 x coverage
TEST_SHARE = 0.5
K = 8
C = 0.1  # inverse regularisation strength of the pairwise logistic regression
# Feature sets compared on SQuAD and the dev halves; the shipped ranker uses CHOSEN.
FEATURE_SETS = {
    "fitted cosine + coverage": ("cosine", "coverage"),
    "+ lexical overlap": ("cosine", "coverage", "idf_overlap", "overlap"),
    "+ topicality": ("cosine", "coverage", "idf_overlap", "overlap", "topicality"),
    "+ question type": ("cosine", "coverage", "idf_overlap", "type_match", "asked_noun"),
    "+ page structure": (
        *("cosine", "coverage", "idf_overlap", "type_match", "asked_noun"),
        *("item", "summary", "section_cosine", "heading_overlap"),
    ),
    "every feature": None,
}
CHOSEN = "fitted cosine + coverage"


@dataclass
class Group:
    """One question's candidates: features, labels, and where it came from."""

    source: str  # "squad" or a site name
    key: str  # the SQuAD paragraph ("Title/3"), or the question id
    question: str
    matrix: np.ndarray
    labels: np.ndarray
    texts: list[str] = field(default_factory=list)


def is_test(key: str) -> bool:
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 16**8 < TEST_SHARE


def context_for(engine: Any, question: str, admit_all: bool) -> Any:
    """The Context the generator would get (every top-8 hit admitted, when `admit_all`)."""
    from sitecite.generate import Context
    from sitecite.retrieve import search
    from sitecite.screen import answer_kind

    vector = engine.embedder.embed_query(question)
    threshold = -1.0 if admit_all else engine.threshold
    hits = search(engine.index, vector, question, K, threshold, engine.settings.retrieve).hits
    sections = [h.section for h in hits if h.admitted]
    rows = [engine.index.row_of[s.id] for s in sections]
    return Context(
        question, vector, engine.index, rows, sections, engine.embedder, answer_kind(question)
    )


def group_for(engine: Any, source: str, key: str, question: str, positive: Any, admit_all: bool):
    """Features and labels of one question; `positive(section, text)` says what answers it."""
    from sitecite.generate.features import candidate_kinds, candidates_and_features

    context = context_for(engine, question, admit_all)
    kinds = candidate_kinds(question)
    candidates, matrix = candidates_and_features(context, context.query_vector, question, kinds)
    labels = np.array(
        [positive(context.sections[c.section_position], c.text) for c in candidates], dtype=int
    )
    return Group(source, key, question, matrix, labels, [c.text for c in candidates])


def squad_groups(embedder: Any, settings: Any) -> list[Group]:
    import eval_squad2 as squad

    from sitecite.index.build import write_index
    from sitecite.index.store import load_index
    from sitecite.pipeline import Engine

    rows = squad.read_rows(require(squad.DATA, "SQuAD 2.0 sample"))
    index_dir = CACHE / "ranker" / "squad2"
    write_index(squad.sections_of(rows), index_dir, embedder)
    engine = Engine.for_index(load_index(index_dir, embedder.id), settings, embedder)
    groups = []
    for row in rows:
        answers = [a.lower() for a in row["answers"]]
        pid = squad.page_id(row)

        def positive(section: Any, text: str, pid: str = pid, answers: list[str] = answers) -> bool:
            return section.page_id == pid and any(a in text.lower() for a in answers)

        key = f"{row['title']}/{row['paragraph_index']}"
        groups.append(group_for(engine, "squad", key, row["question"], positive, True))
    return groups


def site_groups(embedder: Any, settings: Any, half: str = "dev") -> list[Group]:
    from sitecite.eval.metrics import matches
    from sitecite.eval.questions import load_question_set
    from sitecite.index.build import build_index
    from sitecite.pipeline import Engine

    groups = []
    for site, content in SITES.items():
        questions = QUESTIONS / f"{site}-{half}.json"
        if not questions.exists() or not content.exists():
            continue
        index_dir = CACHE / "ranker" / site
        build_index(require(content, f"the {site} site"), index_dir, embedder)
        engine = Engine.load(index_dir, settings)
        for q in load_question_set(questions).questions:
            if q.expect != "answer" or not q.must_contain:
                continue
            wordings = [w.lower() for g in q.must_contain for w in g]
            expected = q.expected_sources

            def positive(section: Any, text: str, w: list[str] = wordings, e: Any = expected):
                on_page = any(matches(s, section.id, section.page_id) for s in e)
                return on_page and any(x in text.lower() for x in w)

            groups.append(group_for(engine, site, q.id, q.question, positive, False))
    return groups


def _scorer(ranker: Any) -> Any:
    """The ranker's scores for matrices of every feature (what the groups hold)."""
    from sitecite.generate.features import FEATURES

    return lambda matrix: ranker.scores(matrix, FEATURES)


def heuristic_scores(matrix: np.ndarray) -> np.ndarray:
    from sitecite.generate.features import FEATURES

    cosine, coverage = FEATURES.index("cosine"), FEATURES.index("coverage")
    return matrix[:, cosine] + HEURISTIC_COVERAGE_WEIGHT * matrix[:, coverage]


def top1(groups: Sequence[Group], score: Any) -> tuple[int, int]:
    """(questions whose best-scored candidate is positive, questions with any positive)."""
    hits = total = 0
    for g in groups:
        if g.labels.any():
            total += 1
            hits += int(g.labels[int(np.argmax(score(g.matrix)))] == 1)
    return hits, total


def pairs(groups: Sequence[Group], limit: int = 60, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Within each question, (positive - negative) differences labelled 1 and their negations
    labelled 0: a ranking is learnt from comparisons inside a question, never across them."""
    rng = np.random.default_rng(seed)
    differences = []
    for g in groups:
        positive, negative = g.matrix[g.labels == 1], g.matrix[g.labels == 0]
        if not len(positive) or not len(negative):
            continue
        chosen = [(i, j) for i in range(len(positive)) for j in range(len(negative))]
        if len(chosen) > limit:
            chosen = [chosen[k] for k in rng.choice(len(chosen), limit, replace=False)]
        differences.extend(positive[i] - negative[j] for i, j in chosen)
    matrix = np.asarray(differences)
    return np.vstack([matrix, -matrix]), np.r_[np.ones(len(matrix)), np.zeros(len(matrix))]


def fit(groups: Sequence[Group], names: Sequence[str] | None = None, c: float = C) -> Any:
    """A linear scoring function over the named features (all by default), fitted as pairwise
    logistic regression (RankNet's linear case) on standardised features."""
    from sklearn.linear_model import LogisticRegression

    from sitecite.generate.features import FEATURES
    from sitecite.generate.ranker import Ranker

    names = tuple(names or FEATURES)
    columns = [FEATURES.index(name) for name in names]
    everything = np.vstack([g.matrix[:, columns] for g in groups if len(g.labels)])
    mean, scale = everything.mean(axis=0), everything.std(axis=0)
    scale[scale == 0] = 1.0
    scaled = [
        Group(g.source, g.key, g.question, (g.matrix[:, columns] - mean) / scale, g.labels)
        for g in groups
    ]
    differences, labels = pairs(scaled)
    model = LogisticRegression(C=c, fit_intercept=False, max_iter=5000).fit(differences, labels)
    about = {"pairs": int(len(labels) // 2), "questions": sum(bool(g.labels.any()) for g in groups)}
    return Ranker(names, mean, scale, model.coef_[0], 0.0, about)


def cross_validate(
    groups: Sequence[Group], fold_of: Any, names: Sequence[str] | None = None
) -> tuple[int, int, int]:
    """(ranker hits, heuristic hits, questions) over all folds; `fold_of(key)` names a fold."""
    ranker_hits = heuristic_hits = total = 0
    for fold in sorted({fold_of(g.key) for g in groups}):
        train = [g for g in groups if fold_of(g.key) != fold]
        held = [g for g in groups if fold_of(g.key) == fold]
        ranker = fit(train, names)
        hits, count = top1(held, _scorer(ranker))
        ranker_hits += hits
        heuristic_hits += top1(held, heuristic_scores)[0]
        total += count
    return ranker_hits, heuristic_hits, total


def collect(reuse: bool) -> tuple[list[Group], list[Group]]:
    """SQuAD's and the dev halves' candidate groups, or the previous run's with `reuse`."""
    import pickle

    saved = CACHE / "ranker" / "groups.pickle"
    if reuse and saved.exists():
        return pickle.loads(saved.read_bytes())  # type: ignore[no-any-return]
    from sitecite.config import load_settings
    from sitecite.embed import get_embedder

    settings = load_settings({}, config_file=None, environ={})
    embedder = get_embedder(settings.embedder, threads=2)
    groups = (squad_groups(embedder, settings), site_groups(embedder, settings))
    saved.write_bytes(pickle.dumps(groups))
    return groups


def _fold(key: str, folds: int = 5) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % folds


def site_cv(train: Sequence[Group], sites: Sequence[Group], names: Any) -> tuple[int, int]:
    """Top-1 on the dev halves' questions, 5-fold: each fold fitted on SQuAD's training
    paragraphs and the other folds (counted twice: they are the questions sitecite is for)."""
    hits = total = 0
    for fold in range(5):
        rest = [g for g in sites if _fold(g.key) != fold]
        ranker = fit([*train, *rest, *rest], names)
        found, count = top1([g for g in sites if _fold(g.key) == fold], _scorer(ranker))
        hits, total = hits + found, total + count
    return hits, total


def run(write: bool, reuse: bool = False) -> dict[str, Any]:
    squad, sites = collect(reuse)
    train = [g for g in squad if not is_test(g.key)]
    test = [g for g in squad if is_test(g.key)]
    _, heuristic_hits, questions = cross_validate(squad, _fold)
    rows: dict[str, Any] = {
        "heuristic (cos + 0.5 cov)": {
            "squad_test": top1(test, heuristic_scores),
            "squad_cv": (heuristic_hits, questions),
            "site_cv": top1(sites, heuristic_scores),
        }
    }
    for name, names in FEATURE_SETS.items():
        ranker = fit(train, names)
        folds = cross_validate(squad, _fold, names)
        rows[name] = {
            "squad_test": top1(test, _scorer(ranker)),
            "squad_cv": (folds[0], folds[2]),
            "site_cv": site_cv(train, sites, names),
        }
    result = {"sets": rows, "chosen": CHOSEN, "features": list(FEATURE_SETS[CHOSEN])}
    if write:
        ranker = fit([*train, *sites, *sites], FEATURE_SETS[CHOSEN])
        hits, total = rows[CHOSEN]["squad_test"]
        ranker.about.update(
            trained_on="SQuAD 2.0 training paragraphs and the real-site dev halves",
            squad_test_top1=round(hits / total, 4),
        )
        WEIGHTS.write_text(json.dumps(ranker.to_json(), indent=1) + "\n")
    return result


def print_table(result: dict[str, Any]) -> None:
    from rich.table import Table

    table = Table(
        title="Answer-sentence ranker: top-1 accuracy (the best-ranked candidate holds the answer)"
    )
    for column in ("scoring", "SQuAD held-out paragraphs", "SQuAD 5-fold", "site dev 5-fold"):
        table.add_column(column, justify="left" if column == "scoring" else "right")
    for name, row in result["sets"].items():
        mark = " (shipped)" if name == result["chosen"] else ""
        table.add_row(name + mark, *(_rate(*row[k]) for k in ("squad_test", "squad_cv", "site_cv")))
    console().print(table)


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} = {hits / total:.1%}" if total else "-"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {WEIGHTS.name}")
    parser.add_argument("--reuse", action="store_true", help="reuse the collected candidates")
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = parser.parse_args(argv)
    result = run(args.write, args.reuse)
    print_table(result)
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
