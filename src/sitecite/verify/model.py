"""The fitted support model: logistic regression over sitecite.verify.features, its weights in
a small JSON file shipped with the package (`support_model.json`, written by
`python bench/train_verifier.py` from the dev halves of the labelled replies; numpy only at
run time).

A claim whose probability of being unsupported reaches the model's threshold (chosen on the
dev halves, cross-validated) is dropped.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from sitecite.errors import SiteciteError
from sitecite.verify.features import FEATURES

MODEL_FILE = "support_model.json"


@dataclass(frozen=True)
class SupportModel:
    """Standardised features -> P(unsupported) by logistic regression."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    threshold: float
    layers: int  # the encoder layers its features were computed with
    about: dict[str, Any]

    def probability(self, features: np.ndarray) -> np.ndarray:
        """P(unsupported) for each row of `features` (columns in FEATURES order)."""
        z = (np.atleast_2d(features) - self.mean) / self.scale @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))

    def weakest(self, features: np.ndarray, count: int = 2) -> list[str]:
        """The features that pushed one claim most towards unsupported, for the Trace."""
        push = (features - self.mean) / self.scale * self.coef
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
            "layers": self.layers,
            "about": self.about,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SupportModel:
        features = tuple(str(f) for f in data["features"])
        if features != FEATURES:
            raise SiteciteError(
                f"{MODEL_FILE} was fitted on features {list(features)}, but this version "
                f"computes {list(FEATURES)}: run python bench/train_verifier.py"
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
            int(data["layers"]),
            dict(data.get("about", {})),
        )


@lru_cache(maxsize=1)
def shipped_model() -> SupportModel:
    """The model shipped in the package."""
    text = resources.files("sitecite.verify").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    return SupportModel.from_json(json.loads(text))
