"""Retrieval on the example site's own question set, before and after the tuned defaults.

SciFact chose RetrieveSettings' defaults; this checks they do not hurt the kind of site sitecite
is for. For the answerable categories (grounding, multi, fact) it prints the eval harness's
hit@8 (an expected source among the top 8), recall@8 (share of expected sources found) and
MRR, per setting, with bootstrap 95% intervals.

    python -m bench.site_retrieval [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench._common import CACHE, REPO, bootstrap_interval, console
from sitecite.cli.progress import RichReporter
from sitecite.config import DEFAULT_EMBEDDER, RetrieveSettings
from sitecite.embed import Embedder, get_embedder
from sitecite.eval.metrics import retrieval_metrics
from sitecite.eval.questions import Question, load_question_set
from sitecite.index.build import build_index
from sitecite.index.store import Index, load_index
from sitecite.retrieve import search
from sitecite.text import bm25_tokens

SITE = REPO / "examples" / "site"
QUESTIONS = REPO / "examples" / "questions.json"
INDEX_DIR = CACHE / "retrieval-site-index"
ANSWERABLE = ("grounding", "multi", "fact")
K = 8
METRICS = (f"hit@{K}", f"recall@{K}", "mrr")

# The defaults before issue 6 tuned them, kept to show the before/after on the example site.
BEFORE = RetrieveSettings(
    fusion="convex", alpha=0.5, rrf_k=60, candidates=100, stemmer="english", stopwords="en"
)


def with_tokenisation(index: Index, settings: RetrieveSettings) -> Index:
    """The index with its BM25 part rebuilt as index/build.py would with these stop words and
    stemmer, so documents and questions are tokenised alike whatever is on disk."""
    import bm25s

    retriever = bm25s.BM25()
    texts = [section.embed_text for section in index.sections]
    retriever.index(bm25_tokens(texts, settings.stopwords, settings.stemmer), show_progress=False)
    tokenizer = {"stopwords": settings.stopwords, "stemmer": settings.stemmer}
    manifest = {**index.manifest, "bm25": tokenizer}
    return dataclasses.replace(index, bm25=retriever, manifest=manifest)


def evaluate_site(
    index: Index, embedder: Embedder, settings: RetrieveSettings, questions: Sequence[Question]
) -> dict[str, object]:
    """The eval harness's retrieval metrics at k = 8, with bootstrap intervals."""
    index = with_tokenisation(index, settings)
    per_question = []
    for question in questions:
        vector = embedder.embed_query(question.question)
        retrieval = search(index, vector, question.question, K, -1.0, settings)
        hits = [
            {"id": h.section.id, "page_id": h.section.page_id, "admitted": True}
            for h in retrieval.hits
        ]
        per_question.append(retrieval_metrics(hits, question.expected_sources, ks=(K,)))
    summary: dict[str, object] = {"questions": len(per_question)}
    for name in METRICS:
        values = np.array([row[name] for row in per_question])
        low, high = bootstrap_interval(values)
        summary[name] = round(float(values.mean()), 4)
        summary[f"{name}_ci"] = [round(low, 4), round(high, 4)]
    return summary


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    return [
        q
        for q in load_question_set(path).questions
        if q.category in ANSWERABLE and q.expected_sources
    ]


def site_index(embedder: Embedder) -> Index:
    with RichReporter(transient=True) as reporter:
        build_index(SITE, INDEX_DIR, embedder, reporter=reporter)
    return load_index(INDEX_DIR, embedder.id)


def compare(
    embedder: Embedder, settings: dict[str, RetrieveSettings]
) -> dict[str, dict[str, object]]:
    index = site_index(embedder)
    questions = load_questions()
    return {
        name: evaluate_site(index, embedder, value, questions) for name, value in settings.items()
    }


def print_table(results: dict[str, dict[str, object]]) -> None:
    from rich.table import Table

    first = next(iter(results.values()))
    table = Table(title=f"Example site, answerable questions (n={first['questions']}), top {K}")
    for column in ("settings", f"hit@{K}", f"recall@{K}", "MRR"):
        table.add_column(column)
    for name, summary in results.items():
        cells = [
            f"{summary[key]:.3f} [{summary[key + '_ci'][0]:.2f}, {summary[key + '_ci'][1]:.2f}]"  # type: ignore[index]
            for key in METRICS
        ]
        table.add_row(name, *cells)
    console().print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object on the last line"
    )
    parser.add_argument("--threads", type=int, default=2, help="torch threads for embedding")
    args = parser.parse_args(argv)
    if not QUESTIONS.exists():
        sys.exit(f"no question set at {QUESTIONS}")
    embedder = get_embedder(DEFAULT_EMBEDDER, threads=args.threads)
    after = RetrieveSettings()
    results = compare(
        embedder,
        {
            "before (convex 0.5, stop words out)": BEFORE,
            "after (defaults)": after,
            "dense only": after.model_copy(update={"fusion": "dense"}),
            "BM25 only": after.model_copy(update={"fusion": "bm25"}),
        },
    )
    print_table(results)
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
