"""The parameter search behind RetrieveSettings' defaults, run on SciFact's TRAIN split only.

Score matrices (queries x abstracts) are computed once per tokenisation variant; each fusion
setting then goes through the same `fuse` and `top_k` that `search` calls, so what is chosen
here is exactly what sitecite runs. The chosen settings are printed beside RetrieveSettings'
defaults (src/sitecite/config.py), which were set from this search by hand.

    python -m training.tune_retrieval [--threads 2] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from bench._metrics import per_query, summarise
from sitecite.config import RetrieveSettings
from sitecite.retrieve import fuse, top_k
from sitecite.text import bm25_tokens
from sitecite.types import Section

DEPTH = 100


@dataclass(frozen=True)
class Tokenisation:
    """How BM25 sees documents and queries: stop words, stemmer and title repetitions."""

    stopwords: str = "en"
    stemmer: str = "english"
    title_repeats: int = 1

    def document_text(self, section: Section) -> str:
        return "\n".join([section.title] * self.title_repeats + [section.text])

    @property
    def label(self) -> str:
        return (
            f"stop={self.stopwords or '-'} stem={self.stemmer or '-'} title x{self.title_repeats}"
        )


def bm25_matrix(
    sections: list[Section],
    queries: list[str],
    tokenisation: Tokenisation,
    k1: float = 1.5,
    b: float = 0.75,
) -> np.ndarray:
    """BM25 scores of every query against every section, built like index/build.py builds it."""
    import bm25s

    retriever = bm25s.BM25(k1=k1, b=b)
    texts = [tokenisation.document_text(s) for s in sections]
    retriever.index(
        bm25_tokens(texts, tokenisation.stopwords, tokenisation.stemmer), show_progress=False
    )
    matrix = np.zeros((len(queries), len(sections)), dtype=np.float32)
    for row, tokens in enumerate(
        bm25_tokens(queries, tokenisation.stopwords, tokenisation.stemmer)
    ):
        ids = retriever.get_tokens_ids(tokens)
        if ids:
            matrix[row] = retriever.get_scores_from_ids(ids)
    return matrix


def rank(
    cosine: np.ndarray,
    bm25: np.ndarray,
    settings: RetrieveSettings,
    doc_ids: list[str],
    depth: int = DEPTH,
) -> list[str]:
    """One query's ranking, as `retrieve.search` computes it."""
    fused = fuse(cosine, bm25, settings)
    return [doc_ids[row] for row in top_k(fused, depth) if np.isfinite(fused[row])]


def evaluate(
    qids: list[str],
    cosine: np.ndarray,
    bm25: np.ndarray,
    settings: RetrieveSettings,
    doc_ids: list[str],
    qrels: dict[str, dict[str, int]],
) -> dict[str, np.ndarray]:
    rankings = {
        qid: rank(cosine[row], bm25[row], settings, doc_ids) for row, qid in enumerate(qids)
    }
    return per_query(rankings, {qid: qrels[qid] for qid in qids})


TOKENISATIONS = tuple(
    Tokenisation(stop, stem, repeats)
    for stem in ("english", "")
    for stop in ("en", "")
    for repeats in (1, 2, 3)
)
# bm25s' defaults first; the others need index/build.py to pass k1 and b (reported, not adopted).
BM25_PARAMETERS = ((1.5, 0.75), (0.9, 0.4), (1.2, 0.75), (1.2, 0.9), (2.0, 0.75))


def fusion_grid() -> Iterable[dict[str, Any]]:
    for candidates in (100, 1000):
        for alpha in np.round(np.arange(0.0, 1.0001, 0.05), 2):
            yield {"fusion": "convex", "alpha": float(alpha), "candidates": candidates}
        for rrf_k in (5, 10, 20, 40, 60, 100):
            yield {"fusion": "rrf", "rrf_k": rrf_k, "candidates": candidates}


Candidate = TypeVar("Candidate")


def best(
    results: list[tuple[Candidate, float]], tolerance: float = 0.0005
) -> tuple[Candidate, float]:
    """The highest score; among those within `tolerance` of it, the first listed (the simpler)."""
    top = max(score for _, score in results)
    return next(pair for pair in results if pair[1] >= top - tolerance)


def ndcg(
    qids: list[str],
    cosine: np.ndarray,
    bm25: np.ndarray,
    settings: RetrieveSettings,
    doc_ids: list[str],
    qrels: dict[str, dict[str, int]],
) -> float:
    return summarise(evaluate(qids, cosine, bm25, settings, doc_ids, qrels))["ndcg@10"]


@dataclass
class Choice:
    tokenisation: Tokenisation
    settings: RetrieveSettings
    train_ndcg: float


def tune(
    sections: list[Section],
    qids: list[str],
    queries: list[str],
    cosine: np.ndarray,
    qrels: dict[str, dict[str, int]],
    say: Callable[[str], None] = print,
) -> Choice:
    """Three stages on the train split: tokenisation, then BM25 k1/b, then the fusion function."""
    doc_ids = [s.id for s in sections]
    base = RetrieveSettings(fusion="convex", alpha=0.5, candidates=100)
    say(
        f"stage 1: BM25 tokenisation (BM25 alone | fused with {base.fusion} alpha={base.alpha}); "
        "* = title repeated, which index/build.py cannot do by default yet: reported, not chosen"
    )
    adoptable: list[tuple[Tokenisation, float]] = []
    matrices = {}
    for tokenisation in TOKENISATIONS:
        settings = base.model_copy(
            update={"stopwords": tokenisation.stopwords, "stemmer": tokenisation.stemmer}
        )
        bm25 = bm25_matrix(sections, queries, tokenisation)
        alone = ndcg(
            qids, cosine, bm25, settings.model_copy(update={"fusion": "bm25"}), doc_ids, qrels
        )
        fused = ndcg(qids, cosine, bm25, settings, doc_ids, qrels)
        if tokenisation.title_repeats == 1:
            adoptable.append((tokenisation, fused))
            matrices[tokenisation] = bm25
        mark = " " if tokenisation.title_repeats == 1 else "*"
        say(f" {mark}{tokenisation.label:32} {alone:.4f} | {fused:.4f}")
    tokenisation, _ = best(adoptable)
    base = base.model_copy(
        update={"stopwords": tokenisation.stopwords, "stemmer": tokenisation.stemmer}
    )

    say("stage 2: BM25 k1, b (bm25s fixes them at index time; reported only)")
    for k1, b in BM25_PARAMETERS:
        bm25 = bm25_matrix(sections, queries, tokenisation, k1, b)
        alone = ndcg(qids, cosine, bm25, base.model_copy(update={"fusion": "bm25"}), doc_ids, qrels)
        say(f"  k1={k1} b={b}: {alone:.4f} | {ndcg(qids, cosine, bm25, base, doc_ids, qrels):.4f}")

    say("stage 3: fusion function, weight and candidate depth")
    bm25 = matrices[tokenisation]
    results: list[tuple[dict[str, Any], float]] = []
    for overrides in fusion_grid():
        score = ndcg(qids, cosine, bm25, base.model_copy(update=overrides), doc_ids, qrels)
        results.append((overrides, score))
    for fusion, knob in (("convex", "alpha"), ("rrf", "rrf_k")):
        for depth in sorted({o["candidates"] for o, _ in results}):
            line = " ".join(
                f"{o[knob]}:{v:.4f}"
                for o, v in results
                if o["fusion"] == fusion and o["candidates"] == depth
            )
            say(f"  {fusion} by {knob}, candidates {depth}: {line}")
    overrides, score = best(results)
    return Choice(tokenisation, base.model_copy(update=overrides), score)


def main(argv: list[str] | None = None) -> int:
    from bench._scifact_data import build_scifact_index, load_scifact, query_vectors
    from sitecite.config import DEFAULT_EMBEDDER
    from sitecite.embed import get_embedder

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2, help="embedding threads")
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = parser.parse_args(argv)
    data = load_scifact()
    embedder = get_embedder(DEFAULT_EMBEDDER, threads=args.threads)
    index, _ = build_scifact_index(data, embedder)
    all_ids = list(data.queries)  # every query, as bench.scifact embeds them (one cache)
    embedded = query_vectors(embedder, [data.queries[q] for q in all_ids])
    vectors = dict(zip(all_ids, embedded, strict=True))
    qids, qrels = data.split("train")
    queries = [data.queries[q] for q in qids]
    cosine = np.stack([vectors[q] for q in qids]) @ index.vectors.T
    choice = tune(data.sections, qids, queries, cosine, qrels)
    chosen = choice.settings.model_dump()
    shipped = RetrieveSettings().model_dump()
    differ = {k: (v, shipped[k]) for k, v in chosen.items() if shipped.get(k) != v}
    print(
        f"chosen on train ({len(qids)} queries): {choice.tokenisation.label}, {chosen} -> "
        f"nDCG@10 {choice.train_ndcg:.4f}; shipped defaults "
        + ("match" if not differ else f"differ (chosen, shipped): {differ}")
    )
    if args.json:
        print(json.dumps({"chosen": chosen, "train_ndcg": choice.train_ndcg, "differ": differ}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
