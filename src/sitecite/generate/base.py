"""What every generator receives (the exact admitted context) and the one method it implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from sitecite.embed import Embedder
from sitecite.index.store import Index
from sitecite.question import Reading, read
from sitecite.types import Draft, Section, Turn


@dataclass
class Context:
    """The question and exactly the sections admitted for it; nothing else reaches a generator.

    For a follow-up, `question` is what the answerer should cover (see sitecite.followup),
    `asked` the visitor's own words, `history` the earlier turns, oldest first, and `followup`
    how the question was read with them ("pointer", "ellipsis", or "" when it stands alone).
    `reading` is the question as the pipeline read it (sitecite.question), read here from
    `question` alone when the context was built without one."""

    question: str
    query_vector: np.ndarray
    index: Index
    rows: list[int]
    sections: list[Section]
    embedder: Embedder
    answer_kind: str = ""
    history: tuple[Turn, ...] = ()
    asked: str = ""
    followup: str = ""
    reading: Reading | None = None
    # the closest sections the gate left out, and the line of each nearest the question: a
    # reply that gives no direct answer may point at them after the admitted ones
    nearby: tuple[Section, ...] = ()
    nearby_lines: tuple[str, ...] = ()

    def read(self) -> Reading:
        """The question read once: the pipeline's reading, else one read from `question`."""
        if self.reading is None:
            self.reading = read(self.question, index=self.index)
        return self.reading


class Generator(ABC):
    """Turns a Context into a Draft. Subclasses implement `generate` only."""

    name: str = ""

    @abstractmethod
    def generate(self, context: Context) -> Draft:
        """Answer from the context, or return a refusal Draft with a reason."""

    def close(self) -> None:
        """Release connections (an LLM generator's HTTP clients); the default holds none."""
        return None
