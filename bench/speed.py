"""Speed and scale: per-stage query latency from 125 to 1,000,000 sections, in one table.

For each size: p50/p95 of query embedding (bundled MiniLM, 1 thread), exact dense search
(matrix-vector product + top 8), BM25, fusion and the whole `retrieve.search`; the pure-Python
cosine loop the project replaces (where it finishes: up to 100,000) and its ratio to the dense
search; the optional HNSW index (faiss, `retrieve.ann = "hnsw"`) with its recall@10 against
exact search; and memory per section. Then index build throughput and an unchanged rebuild on
the example site (real model), and query embedding at 1 and 2 threads, idle and with one
core busy. Synthetic sections are derived from SciFact (see bench/_synthetic.py).

`--sites` times instead a full index build (real model, every core) of each real site of
../shared/data/sites, from a copy without its question sets: ingestion alone, then the whole
build, with the sections and texts embedded.

    python -m bench.speed [--sizes 125,10000,100000,1000000] [--queries 200] [--json]
    python -m bench.speed --sites [jarvis,timlrx,shazow,benbalter,lengstorf,alanaktion]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench._common import REPO, console, percentiles_ms
from bench._scifact_data import build_scifact_index, load_scifact, query_vectors
from bench._synthetic import Base, bm25_bytes, make_base, synthetic_index
from bench._threads import embedding_latency, set_torch_threads, thread_matrix
from sitecite.config import DEFAULT_EMBEDDER, RetrieveSettings
from sitecite.embed import Embedder, get_embedder
from sitecite.index.build import build_index
from sitecite.index.store import Index, load_index
from sitecite.retrieve import (
    HNSW_EF_CONSTRUCTION,
    HNSW_EF_SEARCH,
    HNSW_M,
    approximate_dense_scores,
    bm25_scores,
    cosine_loop_search,
    dense_scores,
    fuse,
    hnsw_graph,
    search,
    top_k,
)

K = 8
BUDGET_MS = 50.0  # a search slower than this at p95 is no longer "fast enough" for a live widget
LOOP_QUERIES = {125: 50, 10_000: 10, 100_000: 3}  # the pure-Python loop: 2.6 s a query at 100k
ANN_FROM = 10_000
SITE = REPO / "examples" / "site"


def timed(call: Callable[[int], object], count: int) -> list[float]:
    """Durations of call(0..count-1), after two warm-up calls."""
    call(0)
    call(1 % count)
    durations = []
    for i in range(count):
        started = time.perf_counter()
        call(i)
        durations.append(time.perf_counter() - started)
    return durations


def blas_threads(count: int) -> Any:
    """Limit numpy's BLAS pool (threadpoolctl ships with scikit-learn); a no-op without it."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(count, user_api="blas")


def measure_size(
    index: Index,
    vectors: np.ndarray,
    texts: Sequence[str],
    settings: RetrieveSettings,
    embed_ms: tuple[float, float],
) -> dict[str, Any]:
    """Latency of each stage on one index; `vectors` and `texts` are the queries."""
    n, count = len(index.sections), len(texts)
    row: dict[str, Any] = {"sections": n, "embed": list(embed_ms)}
    row["dense"] = percentiles_ms(
        timed(lambda i: top_k(dense_scores(index.vectors, vectors[i]), K), count)
    )
    row["bm25"] = percentiles_ms(timed(lambda i: bm25_scores(index, texts[i]), count))
    row["fusion"] = fusion_latency(index, vectors, texts, settings)
    row["search"] = percentiles_ms(
        timed(lambda i: search(index, vectors[i], texts[i], K, -1.0, settings), count)
    )
    if n in LOOP_QUERIES:
        loops = min(LOOP_QUERIES[n], count)
        rows, queries = index.vectors.tolist(), vectors[:loops].tolist()
        loop = percentiles_ms(timed(lambda i: cosine_loop_search(rows, queries[i], K), loops))
        agree = all(
            cosine_loop_search(rows, queries[i], K)
            == list(top_k(dense_scores(index.vectors, vectors[i]), K))
            for i in range(min(3, loops))
        )
        row["python_loop"] = loop
        row["loop_over_dense"] = loop[0] / row["dense"][0]
        row["loop_agrees"] = agree
        del rows
    row["vector_bytes"] = index.vectors.nbytes / n
    row["bm25_bytes"] = bm25_bytes(index.bm25) / n
    if n >= ANN_FROM:
        row.update(measure_hnsw(index, vectors[:count], texts, settings))
    return row


def fusion_latency(
    index: Index, vectors: np.ndarray, texts: Sequence[str], settings: RetrieveSettings
) -> tuple[float, float]:
    """Fusion alone, on score arrays computed beforehand (freed on return: 1.6 GB at 1M)."""
    cosine = [dense_scores(index.vectors, v) for v in vectors[: len(texts)]]
    lexical = [bm25_scores(index, t) for t in texts]
    return percentiles_ms(
        timed(lambda i: top_k(fuse(cosine[i], lexical[i], settings), K), len(texts))
    )


def overlap(first: Sequence[object], second: Sequence[object]) -> float:
    return len(set(first) & set(second)) / max(len(first), 1)


def graph_bytes(graph: Any) -> int:
    """The HNSW index's own memory: its copy of the vectors plus the link lists."""
    links = graph.hnsw.neighbors.size() * 4 + graph.hnsw.offsets.size() * 8
    return int(graph.ntotal * graph.d * 4 + links + graph.hnsw.levels.size() * 4)


def measure_hnsw(
    index: Index, vectors: np.ndarray, texts: Sequence[str], settings: RetrieveSettings
) -> dict[str, Any]:
    """Build time, memory, latency and recall against exact search of `ann = "hnsw"`."""
    try:
        import faiss  # noqa: F401
    except ImportError:
        return {"hnsw": "faiss not installed: pip install 'sitecite[ann]'"}
    started = time.perf_counter()
    graph = hnsw_graph(index.vectors)
    built = time.perf_counter() - started
    depth, count = settings.candidates, len(texts)
    ann = settings.model_copy(update={"ann": "hnsw"})

    def approximate(i: int) -> list[int]:
        return top_k(approximate_dense_scores(index.vectors, vectors[i], depth), K).tolist()

    def hits(i: int, how: RetrieveSettings) -> list[str]:
        return [h.section.id for h in search(index, vectors[i], texts[i], K, -1.0, how).hits]

    recall = [
        overlap(
            top_k(approximate_dense_scores(index.vectors, vectors[i], depth), 10).tolist(),
            top_k(dense_scores(index.vectors, vectors[i]), 10).tolist(),
        )
        for i in range(count)
    ]
    agreement = [overlap(hits(i, ann), hits(i, settings)) for i in range(min(count, 50))]
    return {
        "hnsw_build_s": built,
        "hnsw_bytes": graph_bytes(graph) / len(index.sections),
        "hnsw_dense": percentiles_ms(timed(approximate, count)),
        "hnsw_search": percentiles_ms(timed(lambda i: hits(i, ann), count)),
        "hnsw_recall@10": float(np.mean(recall)),
        "hnsw_fused_agreement@8": float(np.mean(agreement)),
    }


def crossover(rows: list[dict[str, Any]], key: str = "search") -> dict[str, Any]:
    """First size whose p95 exceeds the budget, and the size where a straight line through the
    measured p95s crosses it (exact search is linear in the number of sections)."""
    over = next((r["sections"] for r in rows if r[key][1] > BUDGET_MS), None)
    estimate = None
    for low, high in zip(rows, rows[1:], strict=False):
        (n1, p1), (n2, p2) = (low["sections"], low[key][1]), (high["sections"], high[key][1])
        if p1 <= BUDGET_MS < p2:
            estimate = int(n1 + (BUDGET_MS - p1) * (n2 - n1) / (p2 - p1))
    return {"budget_ms": BUDGET_MS, "first_size_over": over, "estimated_sections": estimate}


def build_throughput(embedder: Embedder) -> dict[str, Any]:
    """Full build and unchanged rebuild of the example site with the real model. The builder
    embeds sections, their sentences and the site's vocabulary words (for the name checks)."""
    with tempfile.TemporaryDirectory() as scratch:
        target = f"{scratch}/index"
        full = build_index(SITE, target, embedder, rebuild=True)
        words = len(load_index(target, with_bm25=False).words)
        again = build_index(SITE, target, embedder)
    texts = full.embedded + full.sentences_embedded + words
    return {
        "sections": full.sections,
        "sentences": full.sentences_embedded,
        "words": words,
        "seconds": full.seconds,
        "sections_per_s": full.sections / full.seconds,
        "texts_per_s": texts / full.seconds,
        "rebuild_seconds": again.seconds,
        "rebuild_embedded": again.embedded + again.sentences_embedded,
    }


SHARED_SITES = "jarvis,timlrx,shazow,benbalter,lengstorf,alanaktion"


def site_build_times(names: Sequence[str], embedder: Embedder) -> list[dict[str, Any]]:
    """Ingestion and full index build time of each shared site, from a clean copy."""
    from _common import site_copy

    from sitecite.ingest import load_site

    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            root = site_copy(name, Path(scratch) / name)
            started = time.perf_counter()
            load_site(root)
            ingest = time.perf_counter() - started
            report = build_index(root, f"{scratch}/{name}-index", embedder, rebuild=True)
            rows.append(
                {
                    "site": name,
                    "sections": report.sections,
                    "sentences": report.sentences_embedded,
                    "ingest_s": ingest,
                    "build_s": report.seconds,
                    "load_1min": os.getloadavg()[0],
                }
            )
            console().print(
                f"{name:12} {report.sections:>5} sections {report.sentences_embedded:>6} "
                f"sentences  ingest {ingest:5.1f} s  index {report.seconds:6.1f} s  "
                f"(load {os.getloadavg()[0]:.1f})"
            )
    return rows


def fmt(pair: Sequence[float] | None) -> str:
    if not pair:
        return "-"
    return f"{pair[0]:.3g} / {pair[1]:.3g}"


def print_report(
    rows: list[dict[str, Any]],
    cross: dict[str, Any],
    build: dict[str, Any],
    threads: dict[str, dict[str, Any]],
    load: tuple[float, float],
) -> None:
    from rich.table import Table

    out = console()
    table = Table(title=f"Query latency, ms p50 / p95 (top {K}; exact search unless marked HNSW)")
    columns = (
        "sections",
        "embed",
        "dense",
        "BM25",
        "fusion",
        "search",
        "Python loop",
        "loop ÷ dense",
        "HNSW dense",
        "HNSW search",
        "HNSW R@10",
        "bytes/section",
    )
    for column in columns:
        table.add_column(column, justify="right")
    for r in rows:
        ratio = f"{r['loop_over_dense']:,.0f}×" if "loop_over_dense" in r else "-"
        memory = f"{r['vector_bytes']:.0f} + {r['bm25_bytes']:.0f}"
        if "hnsw_bytes" in r:
            memory += f" (+{r['hnsw_bytes']:.0f})"
        table.add_row(
            f"{r['sections']:,}",
            fmt(r["embed"]),
            fmt(r["dense"]),
            fmt(r["bm25"]),
            fmt(r["fusion"]),
            fmt(r["search"]),
            fmt(r.get("python_loop")),
            ratio,
            fmt(r.get("hnsw_dense")),
            fmt(r.get("hnsw_search")),
            f"{r['hnsw_recall@10']:.3f}" if "hnsw_recall@10" in r else "-",
            memory,
        )
    out.print(table)
    out.print(
        "bytes/section: float32 vectors + BM25 sparse scores (+ the HNSW index: its copy of the "
        "vectors and its links). Python loop agrees with the dense top 8: "
        f"{all(r.get('loop_agrees', True) for r in rows)}."
    )
    builds = ", ".join(
        f"{r['sections']:,}: {r['hnsw_build_s']:.0f} s" for r in rows if "hnsw_build_s" in r
    )
    if builds:
        agreement = ", ".join(
            f"{r['sections']:,}: {r['hnsw_fused_agreement@8']:.3f}"
            for r in rows
            if "hnsw_fused_agreement@8" in r
        )
        out.print(
            f"HNSW (M={HNSW_M}, efConstruction={HNSW_EF_CONSTRUCTION}, efSearch={HNSW_EF_SEARCH}) "
            f"build time: {builds}; "
            f"fused top 8 shared with exact search: {agreement}"
        )
    if cross["first_size_over"] is None:
        out.print(f"Exact search stays under p95 {BUDGET_MS:.0f} ms at every measured size.")
    else:
        out.print(
            f"Crossover: exact search first exceeds p95 {BUDGET_MS:.0f} ms at "
            f"{cross['first_size_over']:,} sections (linear estimate: about "
            f"{cross['estimated_sections'] or 0:,}); HNSW is the option past that."
        )
    if build:
        out.print(
            f"Index build, example site, real model: {build['sections']} sections + "
            f"{build['sentences']} sentences + {build['words']} words "
            f"in {build['seconds']:.1f} s = "
            f"{build['sections_per_s']:.1f} sections/s ({build['texts_per_s']:.0f} texts/s); "
            f"unchanged rebuild {build['rebuild_seconds']:.2f} s, embedded "
            f"{build['rebuild_embedded']}."
        )
    if threads:
        print_threads(threads)
    out.print(
        f"Host: {os.cpu_count()} cores; load average at start {load[0]:.2f}, at end {load[1]:.2f}."
    )


def print_threads(threads: dict[str, dict[str, Any]]) -> None:
    from rich.table import Table

    table = Table(
        title="MiniLM embedding by threads: one question (ms p50 / p95) | batch (passages/s)"
    )
    for column in ("host", "1 thread", "2 threads", "load avg (1 min)"):
        table.add_column(column, justify="right")
    for condition, row in threads.items():
        cells = [f"{fmt(row[t]['query_ms'])} | {row[t]['batch_per_s']:.0f}/s" for t in ("1", "2")]
        table.add_row(condition, *cells, f"{row['load_1min']:.2f}")
    console().print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="125,10000,100000,1000000")
    parser.add_argument("--queries", type=int, default=200, help="queries timed per size")
    parser.add_argument(
        "--skip", default="", help="comma-separated parts to leave out: threads,build"
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object on the last line"
    )
    parser.add_argument(
        "--sites",
        nargs="?",
        const=SHARED_SITES,
        help="time the index build of the shared real sites instead (comma-separated)",
    )
    args = parser.parse_args(argv)
    if args.sites:
        console().print(f"Host: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
        embedder = get_embedder(DEFAULT_EMBEDDER, threads=os.cpu_count() or 1)
        rows = site_build_times(args.sites.split(","), embedder)
        if args.json:
            print(json.dumps({"sites": rows}))
        return 0
    skip = set(args.skip.split(","))
    load_start = os.getloadavg()[0]

    data = load_scifact()
    embedder = get_embedder(DEFAULT_EMBEDDER, threads=1)
    index, _ = build_scifact_index(data, embedder)
    qids, _ = data.split("test")
    texts = [data.queries[q] for q in qids][: args.queries]
    all_ids = list(data.queries)
    cached = dict(
        zip(all_ids, query_vectors(embedder, [data.queries[q] for q in all_ids]), strict=True)
    )
    vectors = np.stack([cached[q] for q in qids][: args.queries])

    passages = [s.embed_text for s in index.sections[:64]]
    threads = (
        {}
        if "threads" in skip
        else thread_matrix(
            lambda threads: get_embedder(DEFAULT_EMBEDDER, threads=threads), texts[:60], passages
        )
    )
    embed_ms = (
        tuple(threads["idle"]["1"]["query_ms"])
        if threads
        else embedding_latency(embedder, texts[:60], 1)
    )
    build = (
        {}
        if "build" in skip
        else build_throughput(get_embedder(DEFAULT_EMBEDDER, threads=os.cpu_count() or 1))
    )
    set_torch_threads(1)
    base: Base = make_base(index.vectors, [s.embed_text for s in index.sections])
    del index
    settings = RetrieveSettings()
    rows = []
    with blas_threads(1):  # as a server should run: one BLAS thread per request
        for size in (int(s) for s in args.sizes.split(",")):
            started = time.perf_counter()
            synthetic = synthetic_index(base, size)
            elapsed = time.perf_counter() - started
            console().print(f"[dim]{size:,} synthetic sections built in {elapsed:.0f} s[/]")
            rows.append(measure_size(synthetic, vectors, texts, settings, embed_ms))
            del synthetic
            gc.collect()
    cross = crossover(rows)
    print_report(rows, cross, build, threads, (load_start, os.getloadavg()[0]))
    if args.json:
        print(json.dumps({"sizes": rows, "crossover": cross, "build": build, "threads": threads}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
