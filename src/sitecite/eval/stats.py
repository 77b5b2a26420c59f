"""Honest statistics: Wilson intervals for rates, bootstrap intervals for means, percentiles,
and McNemar's exact test for paired pass/fail outcomes of two runs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Z95 = 1.959963984540054
BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class Rate:
    """k successes out of n, with a 95% Wilson score interval."""

    k: int
    n: int

    @property
    def rate(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def interval(self) -> tuple[float | None, float | None]:
        return wilson(self.k, self.n)

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "rate": _round(self.rate),
            "low": _round(low),
            "high": _round(high),
            "k": self.k,
            "n": self.n,
        }


@dataclass(frozen=True)
class Mean:
    """A mean of per-question values with a 95% percentile-bootstrap interval."""

    values: tuple[float, ...]

    @property
    def mean(self) -> float | None:
        return float(np.mean(self.values)) if self.values else None

    def to_json(self) -> dict[str, Any]:
        low, high = bootstrap_mean(self.values)
        return {
            "mean": _round(self.mean),
            "low": _round(low),
            "high": _round(high),
            "n": len(self.values),
        }


def wilson(k: int, n: int, z: float = Z95) -> tuple[float | None, float | None]:
    """Wilson score interval for a proportion; (None, None) when there is nothing to estimate."""
    if n <= 0:
        return None, None
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)  # exact at the ends, not 0.9999999999999999
    return low, high


def bootstrap_mean(
    values: Sequence[float], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> tuple[float | None, float | None]:
    """Percentile bootstrap 95% interval of the mean (seeded, so reruns print the same figures)."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return None, None
    if data.size == 1 or np.all(data == data[0]):
        return float(data[0]), float(data[0])
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (linear interpolation, as numpy's default); None for no values."""
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if len(values) else None


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pairs (binomial test at p = 1/2)."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1)) / 2**n
    return min(1.0, 2 * tail)


def _round(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(value, digits)
