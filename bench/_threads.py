"""Single-query embedding latency at a given thread count, idle or beside a busy core.

The thread count is the embedder's own (onnxruntime fixes it when its session is made, so each
count gets its own embedder) and torch's (for the torch backend, set before every timing, and
only when torch is loaded)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from bench._common import percentiles_ms
from sitecite.embed import Embedder


def _spin() -> None:
    while True:
        pass


@contextmanager
def busy_core() -> Iterator[None]:
    """One process spinning on a core for the duration (stopped by its own handle afterwards)."""
    spinner = multiprocessing.get_context("spawn").Process(target=_spin, daemon=True)
    spinner.start()
    time.sleep(0.5)
    try:
        yield
    finally:
        spinner.terminate()
        spinner.join()


def by_condition(
    thread_counts: Sequence[int], measure: Callable[[int], Any]
) -> dict[str, dict[str, Any]]:
    """`measure(threads)` for every thread count, on an idle host and with one core busy:
    {"idle": {"1": ..., "2": ..., "load_1min": ...}, "one core busy": {...}}."""
    results: dict[str, dict[str, Any]] = {}
    for condition in ("idle", "one core busy"):
        row: dict[str, Any] = {}
        with busy_core() if condition != "idle" else contextlib.nullcontext():
            for threads in thread_counts:
                row[str(threads)] = measure(threads)
            row["load_1min"] = round(os.getloadavg()[0], 2)
        results[condition] = row
    return results


def set_torch_threads(threads: int) -> int:
    """Set torch's thread count if a torch-backed embedder loaded torch; the previous count (the
    default embedder runs on onnxruntime, whose count is fixed per embedder, without torch)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return threads
    previous = int(torch.get_num_threads())
    torch.set_num_threads(threads)
    return previous


def embedding_latency(
    embedder: Embedder, texts: Sequence[str], threads: int
) -> tuple[float, float]:
    """p50/p95 ms of `embed_query` one question at a time, as a server answers."""
    set_torch_threads(threads)
    for text in texts[:3]:
        embedder.embed_query(text)
    durations = []
    for text in texts:
        started = time.perf_counter()
        embedder.embed_query(text)
        durations.append(time.perf_counter() - started)
    return percentiles_ms(durations)


def batch_rate(embedder: Embedder, passages: Sequence[str], threads: int) -> float:
    """Passages per second embedded in batches, as an index build does."""
    set_torch_threads(threads)
    embedder.embed(list(passages[:8]))
    started = time.perf_counter()
    embedder.embed(list(passages))
    return len(passages) / (time.perf_counter() - started)


def thread_matrix(
    embedder_at: Callable[[int], Embedder],
    questions: Sequence[str],
    passages: Sequence[str],
    thread_counts: Sequence[int] = (1, 2),
) -> dict[str, dict[str, Any]]:
    """Per host condition ("idle", "one core busy") and thread count (`embedder_at(threads)` is
    the embedder running at that many): single-question latency [p50, p95] ms and batch
    passages/s; plus the load average seen."""

    def measure(threads: int) -> dict[str, Any]:
        embedder = embedder_at(threads)
        return {
            "query_ms": list(embedding_latency(embedder, questions, threads)),
            "batch_per_s": batch_rate(embedder, passages, threads),
        }

    original = set_torch_threads(1)
    try:
        return by_condition(thread_counts, measure)
    finally:
        set_torch_threads(original)
