"""The answer-sentence ranker: how likely each candidate sentence is to answer the question.

A linear score over the features of `generate/features.py`, fitted by `bench/train_ranker.py`
as a pairwise logistic regression (the answering sentence against the others of the same
question) on SQuAD 2.0's training paragraphs (the sentence holding the answer span is the
positive) and on the real-site dev question sets (sentences holding a key fact of an expected
page), never on the example site. The runtime needs only its weights, shipped as
`data/answer_ranker.json`: standardise, dot product. A score difference of d between two
sentences means the first answers with odds e^d to one against the second.
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


@dataclass(frozen=True)
class Ranker:
    """Fitted weights over named features; `scores` ranks the rows of a feature matrix."""

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

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "coef": self.coef.tolist(),
            "intercept": self.intercept,
            "about": self.about,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], source: str = WEIGHTS) -> Ranker:
        features = tuple(data.get("features", ()))
        unknown = [name for name in features if name not in FEATURES]
        if unknown or not features:
            raise SiteciteError(
                f"{source}: the ranker uses features this version does not compute "
                f"({', '.join(unknown) or 'none listed'}); refit it with "
                "`python bench/train_ranker.py --write`"
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
    text = resources.files("sitecite").joinpath("data", WEIGHTS).read_text(encoding="utf-8")
    return Ranker.from_json(json.loads(text))


def load_ranker(path: str | Path) -> Ranker:
    return Ranker.from_json(json.loads(Path(path).read_text(encoding="utf-8")), str(path))
