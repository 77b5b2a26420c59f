"""How well content-gap grouping finds topics (not a test): visitors' questions about three
sites, grouped by `sitecite.owner.gaps.cluster`, against the page each question is about.

Questions that one page answers stand for questions that one missing page would answer: a
pair about the same page should share a group, a pair about different pages should not.
The questions are the answerable ones of the question sets, written by people playing the
sites' visitors (the example site's, and bench/questions' for jarvis and timlrx), labelled by
their first expected page; each set is grouped on its own and pairs are pooled. Pairwise
precision, recall and F1 are printed for a range of cosine thresholds on the dev sets
(examples/calibration.json and the *-dev halves) and, for the threshold chosen there, on the
held-out ones (examples/questions.json and the *-test halves).

    python -m bench.gaps [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

from bench._common import REPO, console
from sitecite.embed import Embedder, get_embedder
from sitecite.owner.gaps import GROUP_THRESHOLD, cluster, embed_questions

SETS = {
    "dev": (
        REPO / "examples" / "calibration.json",
        REPO / "bench" / "questions" / "jarvis-dev.json",
        REPO / "bench" / "questions" / "timlrx-dev.json",
    ),
    "test": (
        REPO / "examples" / "questions.json",
        REPO / "bench" / "questions" / "jarvis-test.json",
        REPO / "bench" / "questions" / "timlrx-test.json",
    ),
}
THRESHOLDS = (0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75)


def labelled(path: Path) -> tuple[list[str], list[str]]:
    """The answerable questions of a set, in the order group_gaps uses, and their pages."""
    questions = json.loads(path.read_text())["questions"]
    rows = sorted(
        (q["question"], q["expected_sources"][0].split("#", 1)[0])
        for q in questions
        if q.get("expected_sources")
    )
    return [text for text, _ in rows], [page for _, page in rows]


def pair_counts(groups: Sequence[Sequence[int]], labels: Sequence[str]) -> tuple[int, int, int]:
    """(pairs grouped together, pairs about one page, pairs both)."""
    found = {pair for group in groups for pair in combinations(sorted(group), 2)}
    truth = {(i, j) for i, j in combinations(range(len(labels)), 2) if labels[i] == labels[j]}
    return len(found), len(truth), len(found & truth)


def evaluate(sets: Sequence[tuple[Any, list[str]]], threshold: float) -> dict[str, float]:
    found = truth = both = groups = 0
    for vectors, labels in sets:
        grouping = cluster(vectors, threshold)
        f, t, b = pair_counts(grouping, labels)
        found, truth, both, groups = found + f, truth + t, both + b, groups + len(grouping)
    precision = both / found if found else 1.0
    recall = both / truth if truth else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    pages = sum(len(set(labels)) for _, labels in sets)
    return {"precision": precision, "recall": recall, "f1": f1, "groups": groups, "pages": pages}


def load(split: str, embedder: Embedder) -> list[tuple[Any, list[str]]]:
    loaded = []
    for path in SETS[split]:
        questions, labels = labelled(path)
        loaded.append((embed_questions(questions, embedder), labels))
    return loaded


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    embedder = get_embedder("sentence-transformers/all-MiniLM-L6-v2", threads=1)
    out = console()
    dev = load("dev", embedder)
    results: dict[str, Any] = {"dev": {}, "default_threshold": GROUP_THRESHOLD}
    questions = sum(len(labels) for _, labels in dev)
    out.print(f"dev: {questions} questions about {evaluate(dev, 1.0)['pages']} pages")
    for threshold in THRESHOLDS:
        scores = evaluate(dev, threshold)
        results["dev"][str(threshold)] = scores
        out.print(
            f"  threshold {threshold:.2f}: precision {scores['precision']:.3f} recall "
            f"{scores['recall']:.3f} F1 {scores['f1']:.3f}, {scores['groups']} groups"
        )
    best = max(THRESHOLDS, key=lambda t: results["dev"][str(t)]["f1"])
    test = load("test", embedder)
    scores = evaluate(test, best)
    results["best_dev_threshold"] = best
    results["test"] = {**scores, "threshold": best}
    out.print(
        f"test (threshold {best:.2f}, chosen on dev): "
        f"{sum(len(labels) for _, labels in test)} questions, precision "
        f"{scores['precision']:.3f} recall {scores['recall']:.3f} F1 {scores['f1']:.3f}; "
        f"{scores['groups']} groups for {scores['pages']} pages"
    )
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
