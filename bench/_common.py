"""Shared pieces of the benchmarks: where the data lives, a rich progress reporter, intervals."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / ".." / "shared" / "data"
# indexes, question sets and fits the benchmarks keep; bench.side_by_side gives an earlier
# commit's run a cache of its own, so two trees never rebuild each other's indexes
CACHE = Path(os.environ.get("SITECITE_BENCH_CACHE") or REPO / ".sitecite" / "bench")


SITES = DATA / "sites"
# The question sets beside each site describe it; they are not the site's content.
NOT_SITE = ("questions-*.json", "answer-keys.json", "SOURCE.txt", "LICENSE*")


ANSWERDATA = REPO / "training" / "answerdata"


def answerdata_half(site: str, question: str) -> str:
    """The half ("dev" or "test") an answer-data question belongs to, by a hash of its site and
    wording: the reader's thresholds are chosen on the dev halves, its figures reported on the
    test halves (training/train_reader.py and bench.site_answers agree through this)."""
    import hashlib

    digest = hashlib.sha256(f"{site}|{question}".encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "test"


def answerdata_rows(paths: Sequence[Path] | None = None) -> list[tuple[str, int, dict[str, Any]]]:
    """Every line of the answer-data files (all of training/answerdata by default) as (file
    stem, line number, row); blank lines are skipped, a line that is no JSON object raises
    with its file and line. The one reader of the files: the bench's question sets and the
    fits' items are both made from it."""
    import json

    found = []
    for path in paths or sorted(ANSWERDATA.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path.name}:{number}: not JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise ValueError(f"{path.name}:{number}: not a JSON object")
            found.append((path.stem, number, row))
    return found


def site_copy(site: str, target: Path) -> Path:
    """A copy of a shared real site without its question sets, as an owner's folder holds it."""
    import shutil

    source = require(SITES / site, f"the shared site '{site}'")
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(*NOT_SITE))
    return target


def require(path: Path, what: str) -> Path:
    """Exit with a message naming the missing data instead of a traceback."""
    if not path.exists():
        sys.exit(f"{what} not found at {path.resolve()}; the benchmark needs ../shared/data")
    return path


def bootstrap_interval(
    values: Sequence[float] | np.ndarray,
    statistic: Callable[[np.ndarray], float] = np.mean,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap 95% interval of a per-query statistic (mean by default)."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, data.size, size=(resamples, data.size))
    if statistic is np.mean:
        stats = data[picks].mean(axis=1)
    else:
        stats = np.array([statistic(data[row]) for row in picks])
    low, high = np.percentile(stats, [2.5, 97.5])
    return float(low), float(high)


def console() -> Console:
    """A rich console wide enough for the benchmark tables even when output is redirected."""
    return Console(width=150) if not sys.stdout.isatty() else Console()


def percentiles_ms(seconds: Sequence[float]) -> tuple[float, float]:
    """p50 and p95 of durations given in seconds, in milliseconds."""
    values = np.asarray(seconds, dtype=np.float64) * 1000.0
    p50, p95 = np.percentile(values, [50, 95])
    return float(p50), float(p95)


def question_context(engine: Any, question: str) -> tuple[Any, Any]:
    """The question's vector and the context `pipeline.answer` would build for it (read as
    serving reads it, the owner's profile and named sections admitted, planted instructions
    quarantined), or None for the context when nothing passes the gate."""
    from sitecite.pipeline import generator_context, retrieve_for_answer

    found = retrieve_for_answer(engine, question)
    if not found.admitted:
        return found.query_vector, None
    context, _ = generator_context(engine, found)
    return context.query_vector, context
