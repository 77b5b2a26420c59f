"""The Embedder protocol: one abstract method per provider; the base class derives the rest."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np


class Embedder(ABC):
    """Turns texts into unit-length float32 vectors. Subclasses implement `embed_batch` only."""

    id: str = ""
    dim: int = 0
    batch_size: int = 32

    @abstractmethod
    def embed_batch(self, texts: list[str]) -> np.ndarray:
        """Embed one batch; rows need not be normalised."""

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Embed any number of texts in batches; returns an (n, dim) float32 unit-norm matrix."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            parts.append(np.asarray(self.embed_batch(batch), dtype=np.float32))
            if progress is not None:
                progress(len(batch))
        return normalise(np.vstack(parts))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


def normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)
