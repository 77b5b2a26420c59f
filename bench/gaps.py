"""How well content-gap grouping finds topics (not a test): BEIR SciFact's test claims, grouped
by `sitecite.eval.gaps.cluster`, against the abstract each claim is judged against.

Claims that one abstract answers stand for questions that one missing page would answer: a
pair about the same abstract should share a group, a pair about different abstracts should
not. Pairwise precision, recall and F1 are printed for a range of cosine thresholds on the
dev split (abstracts with an even id) and, for the threshold chosen there, on the held-out
split (odd ids), with the number of groups found against the number of abstracts.

    python bench/gaps.py [--json]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from _common import DATA, console, require

from sitecite.embed import get_embedder
from sitecite.eval.gaps import GROUP_THRESHOLD, cluster, embed_questions

SCIFACT = DATA / "retrieval" / "scifact"
THRESHOLDS = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75)


def pairwise(groups: Sequence[Sequence[int]], labels: Sequence[str]) -> dict[str, float]:
    """Pairwise precision, recall and F1 of a grouping against true labels."""
    found = {pair for group in groups for pair in combinations(sorted(group), 2)}
    truth = {(i, j) for i, j in combinations(range(len(labels)), 2) if labels[i] == labels[j]}
    both = len(found & truth)
    precision = both / len(found) if found else 1.0
    recall = both / len(truth) if truth else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def claims() -> list[tuple[str, str]]:
    """(claim, the first abstract judged for it) for every test claim."""
    root = require(SCIFACT, "SciFact")
    texts = {}
    with (root / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            query = json.loads(line)
            texts[query["_id"]] = query["text"]
    first: dict[str, str] = {}
    with (root / "qrels" / "test.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            first.setdefault(row["query-id"], row["corpus-id"])
    return [(texts[q], doc) for q, doc in first.items() if q in texts]


def split(rows: list[tuple[str, str]], parity: int) -> tuple[list[str], list[str]]:
    chosen = sorted((claim, doc) for claim, doc in rows if int(doc) % 2 == parity)
    return [claim for claim, _ in chosen], [doc for _, doc in chosen]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = claims()
    embedder = get_embedder("sentence-transformers/all-MiniLM-L6-v2", threads=1)
    out = console()
    results: dict[str, Any] = {"dev": {}, "default_threshold": GROUP_THRESHOLD}
    dev_questions, dev_labels = split(rows, 0)
    dev_vectors = embed_questions(dev_questions, embedder)
    out.print(f"dev: {len(dev_questions)} claims about {len(set(dev_labels))} abstracts (even ids)")
    for threshold in THRESHOLDS:
        groups = cluster(dev_vectors, threshold)
        scores = pairwise(groups, dev_labels)
        results["dev"][str(threshold)] = {**scores, "groups": len(groups)}
        out.print(
            f"  threshold {threshold:.2f}: precision {scores['precision']:.3f} recall "
            f"{scores['recall']:.3f} F1 {scores['f1']:.3f}, {len(groups)} groups"
        )
    best = max(THRESHOLDS, key=lambda t: results["dev"][str(t)]["f1"])
    test_questions, test_labels = split(rows, 1)
    groups = cluster(embed_questions(test_questions, embedder), best)
    scores = pairwise(groups, test_labels)
    results["best_dev_threshold"] = best
    results["test"] = {
        **scores,
        "threshold": best,
        "groups": len(groups),
        "abstracts": len(set(test_labels)),
        "questions": len(test_questions),
    }
    out.print(
        f"test (odd ids, threshold {best:.2f} chosen on dev): {len(test_questions)} claims, "
        f"precision {scores['precision']:.3f} recall {scores['recall']:.3f} F1 "
        f"{scores['f1']:.3f}; {len(groups)} groups for {len(set(test_labels))} abstracts"
    )
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
