"""Fitted linear models over named features: the answer-sentence ranker, and the models that
decide whether to answer at all and whether a second sentence adds to the first.

The ranker scores how likely each candidate sentence is to answer the question: a linear score
over the features of `generate/features.py`, fitted by `training/train_ranker.py` as a pairwise
logistic regression (the answering sentence against the others of the same question) on the
answer data of bench/answerdata and the real sites' dev halves. A score difference of d between
two sentences means the first answers with odds e^d to one against the second. The other two
are logistic regressions whose `probability` is compared with their fitted `threshold`
(`generate/answerable.py`, `generate/follow.py`). The runtime needs only their weights, shipped
as JSON in `sitecite/data`: standardise, dot product (numpy only).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.errors import SiteciteError
from sitecite.generate.features import FEATURES

WEIGHTS = "answer_ranker.json"


SIGNIFICANT = 8  # digits kept of a fitted number: refits differ from the 15th or so


def _rounded(value: Any) -> Any:
    """`value` with every float rounded to SIGNIFICANT significant digits."""
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT}g}")
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_rounded(item) for item in value]
    return value


@dataclass(frozen=True)
class Ranker:
    """Fitted weights over named features; `scores` ranks the rows of a feature matrix, and
    `probability` reads them as a logistic regression's."""

    features: tuple[str, ...]  # a subset of FEATURES, chosen when fitting
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    about: dict[str, Any]

    def scores(self, matrix: np.ndarray, names: Sequence[str] | None = None) -> np.ndarray:
        """One score per row of a matrix whose columns are the features `names` (by default the
        ranker's own, in its order)."""
        if matrix.shape[0] == 0:
            return np.zeros(0)
        if names is not None and tuple(names) != self.features:
            matrix = matrix[:, [list(names).index(name) for name in self.features]]
        return np.asarray(((matrix - self.mean) / self.scale) @ self.coef + self.intercept)

    def probability(self, matrix: np.ndarray) -> np.ndarray:
        """The logistic probability of each row (columns in the model's own order)."""
        return np.asarray(1.0 / (1.0 + np.exp(-self.scores(matrix))))

    @property
    def threshold(self) -> float:
        """The operating point chosen when fitting (a probability), 0.5 when none was."""
        return float(self.about.get("threshold", 0.5))

    def to_json(self) -> dict[str, Any]:
        """The weights as shipped, every number to SIGNIFICANT digits: a refit on the same rows
        writes the same bytes, whatever noise the last bits of the features carry."""
        return _rounded(
            {
                "features": list(self.features),
                "mean": self.mean.tolist(),
                "scale": self.scale.tolist(),
                "coef": self.coef.tolist(),
                "intercept": float(self.intercept),
                "about": self.about,
            }
        )

    @classmethod
    def from_json(
        cls, data: dict[str, Any], source: str = WEIGHTS, known: Sequence[str] = FEATURES
    ) -> Ranker:
        features = tuple(data.get("features", ()))
        unknown = [name for name in features if name not in known]
        if unknown or not features:
            raise SiteciteError(
                f"{source}: the ranker uses features this version does not compute "
                f"({', '.join(unknown) or 'none listed'}); refit it with "
                f"`python -m training.{_TRAINERS.get(Path(source).name, 'train_ranker')} --write`"
            )
        mean, scale, coef = (
            np.asarray(data[k], dtype=np.float64) for k in ("mean", "scale", "coef")
        )
        if any(a.shape != (len(features),) for a in (mean, scale, coef)):
            raise SiteciteError(f"{source}: mean, scale and coef need one value per feature")
        about = dict(data.get("about", {}))
        return cls(features, mean, scale, coef, float(data["intercept"]), about)


@lru_cache(maxsize=1)
def default_ranker() -> Ranker:
    """The ranker shipped with sitecite."""
    return shipped_model(WEIGHTS, FEATURES)


@lru_cache(maxsize=8)
def shipped_model(name: str, known: tuple[str, ...]) -> Ranker:
    """A model shipped in sitecite/data, over features among `known`."""
    text = resources.files("sitecite").joinpath("data", name).read_text(encoding="utf-8")
    return Ranker.from_json(json.loads(text), name, known)


def load_ranker(path: str | Path, known: Sequence[str] = FEATURES) -> Ranker:
    return Ranker.from_json(json.loads(Path(path).read_text(encoding="utf-8")), str(path), known)


# Which benchmark fits which shipped model (named in the error for an outdated model).
_TRAINERS = {
    "answerable.json": "train_answerable",
    "answer_follower.json": "train_answerable",
    "answer_direct.json": "train_direct",
}
