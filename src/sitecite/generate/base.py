"""What every generator receives (the exact admitted context) and the one method it implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from sitecite.embed import Embedder
from sitecite.index.store import Index
from sitecite.text import stem
from sitecite.types import Draft, Section


@dataclass
class Context:
    """The question and exactly the sections admitted for it; nothing else reaches a generator."""

    question: str
    query_vector: np.ndarray
    index: Index
    rows: list[int]
    sections: list[Section]
    embedder: Embedder
    answer_kind: str = ""

    def absent_words(self, candidates: list[str], threshold: float) -> list[str]:
        """Words of the question that neither occur on the site nor have a close neighbour there."""
        vocabulary = self.index.vocabulary
        missing = [w for w in dict.fromkeys(candidates) if stem(w) not in vocabulary and w not in vocabulary]
        if not missing or self.index.word_vectors.shape[0] == 0:
            return []
        vectors = self.embedder.embed(missing)
        nearest = (vectors @ self.index.word_vectors.T).max(axis=1)
        return [w for w, score in zip(missing, nearest, strict=True) if score < threshold]


class Generator(ABC):
    """Turns a Context into a Draft. Subclasses implement `generate` only."""

    name: str = ""

    @abstractmethod
    def generate(self, context: Context) -> Draft:
        """Answer from the context, or return a refusal Draft with a reason."""
