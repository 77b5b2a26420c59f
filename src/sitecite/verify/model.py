"""The fitted support models: logistic regression over the features of
sitecite.verify.features (and, for quoted sentences, sitecite.verify.quoted), their weights
in small JSON files shipped with the package: `support_model.json` for sentences that cite
without quotes, `quoted_model.json` for those that hand over their quotes, written by
`python -m training.train_verifier --write` (and `--quoted`) from the dev halves of the
labelled replies; numpy only at run time.

A claim whose probability of being unsupported reaches its model's threshold (chosen on the
dev halves, cross-validated) is dropped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from sitecite.errors import SiteciteError
from sitecite.verify.features import LEXICAL, RELATIVE
from sitecite.verify.quoted import QUOTED, RELATIVE_QUOTED
from sitecite.verify.support_reader import READ

MODEL_FILE = "support_model.json"  # for sentences that cite without quotes
QUOTED_MODEL_FILE = "quoted_model.json"  # for sentences that hand over their quotes
KNOWN = (
    *LEXICAL,
    *(f"relative_{n}" for n in RELATIVE),
    "claims",
    *QUOTED,
    *(f"relative_{n}" for n in RELATIVE_QUOTED),
    READ,
)


@dataclass(frozen=True)
class SupportModel:
    """Standardised features -> P(unsupported) by logistic regression."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    threshold: float
    about: dict[str, Any]

    def matrix(self, claims: Sequence[dict[str, float]]) -> np.ndarray:
        """Its features of each claim, one row each, in its order."""
        return np.asarray([[c[f] for f in self.features] for c in claims], dtype=np.float64)

    def probability(self, claims: Sequence[dict[str, float]]) -> np.ndarray:
        """P(unsupported) of each claim."""
        if not claims:
            return np.zeros(0)
        z = (self.matrix(claims) - self.mean) / self.scale @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))

    def weakest(self, claim: dict[str, float], count: int = 2) -> list[str]:
        """The features that pushed one claim most towards unsupported, for the Trace."""
        push = (self.matrix([claim])[0] - self.mean) / self.scale * self.coef
        order = np.argsort(-push)[:count]
        return [self.features[i] for i in order if push[i] > 0]

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "mean": [round(float(v), 6) for v in self.mean],
            "scale": [round(float(v), 6) for v in self.scale],
            "coef": [round(float(v), 6) for v in self.coef],
            "intercept": round(self.intercept, 6),
            "threshold": round(self.threshold, 4),
            "about": self.about,
        }

    @classmethod
    def blank(cls, features: tuple[str, ...]) -> SupportModel:
        """A model that reads `features` and finds nothing unsupported (for recording them)."""
        zeros, ones = np.zeros(len(features)), np.ones(len(features))
        return cls(features, zeros, ones, zeros, -30.0, 1.0, {})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SupportModel:
        features = tuple(str(f) for f in data["features"])
        unknown = [f for f in features if f not in KNOWN]
        if unknown:
            raise SiteciteError(
                f"{MODEL_FILE} reads features this version does not compute: {unknown} "
                "(refit it: python -m training.train_verifier --write)"
            )
        arrays = [np.asarray(data[k], dtype=np.float64) for k in ("mean", "scale", "coef")]
        if any(len(a) != len(features) for a in arrays) or not math.isfinite(data["intercept"]):
            raise SiteciteError(f"{MODEL_FILE}: weights do not match its {len(features)} features")
        return cls(
            features,
            arrays[0],
            np.where(arrays[1] > 0, arrays[1], 1.0),
            arrays[2],
            float(data["intercept"]),
            float(data["threshold"]),
            dict(data.get("about", {})),
        )


@lru_cache(maxsize=2)
def shipped_model(name: str = MODEL_FILE) -> SupportModel:
    """A model shipped in the package: MODEL_FILE or QUOTED_MODEL_FILE."""
    text = resources.files("sitecite.verify").joinpath(name).read_text(encoding="utf-8")
    return SupportModel.from_json(json.loads(text))
