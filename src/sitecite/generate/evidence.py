"""Reading a question for evidence: its proper names, its focus words, its parts, and how much
of it a sentence covers (with the site's vocabulary vectors stored in the index)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from sitecite.generate.base import Context
from sitecite.question import CONTRACTION
from sitecite.text import STOPWORDS, words

# Words that frame a question rather than say what it is about.
QUESTION_WORDS = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "does",
        "did",
        "do",
        "is",
        "are",
        "was",
        "were",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "has",
        "have",
        "had",
        "tell",
        "know",
        "like",
        "kind",
        "sort",
        "type",
        "thing",
        "things",
        "anything",
        "something",
        "someone",
        "anyone",
        "ever",
        "really",
        "actually",
        "exactly",
        "roughly",
        "currently",
        "still",
        "yet",
        "much",
        "many",
        "long",
        "often",
        "get",
        "got",
        "go",
        "going",
        "make",
        "made",
        "say",
        "said",
        "said",
        "think",
        "thought",
        "mean",
        "use",
        "used",
        "need",
        "want",
        "give",
        "show",
        "describe",
        "explain",
        "mention",
        "mentioned",
        "talk",
        "talked",
        "site",
        "website",
        "page",
        "her",
        "his",
        "their",
        "she",
        "he",
        "they",
        "him",
        "them",
    ]
)


class WordCoverage:
    """How much of the question's focus a sentence covers, word by word, using the site's
    vocabulary vectors stored in the index: only question words the site never uses are
    embedded, usually none or one or two, in one small call."""

    def __init__(self, context: Context, focus: list[str]) -> None:
        self.focus = list(dict.fromkeys(focus))
        self.rows = context.index.word_rows
        self.word_vectors = context.index.word_vectors
        self.focus_vectors: np.ndarray | None = None
        if self.focus and self.word_vectors.shape[0] > 0:
            unknown = [w for w in self.focus if w not in self.rows]
            embedded: Any = context.embedder.embed(unknown) if unknown else []
            fresh = dict(zip(unknown, embedded, strict=True))
            self.focus_vectors = np.vstack(
                [fresh[w] if w in fresh else self.word_vectors[self.rows[w]] for w in self.focus]
            )

    def of(self, sentence: str) -> float:
        return self.of_words({w for w in words(sentence) if w in self.rows})

    def of_words(self, present: frozenset[str] | set[str]) -> float:
        """Coverage by a sentence given as its words that are in the site's vocabulary."""
        if not self.focus:
            return 1.0
        if self.focus_vectors is None or not present:
            return sum(w in present for w in self.focus) / len(self.focus)
        similarity = self.focus_vectors @ self.word_vectors[[self.rows[w] for w in present]].T
        best = [
            1.0 if word in present else float(similarity[i].max())
            for i, word in enumerate(self.focus)
        ]
        return sum(best) / len(best)

    def of_many(self, sentences: Sequence[frozenset[str]]) -> np.ndarray:
        """`of_words` of many sentences (each given as its vocabulary words) at once: one
        product with the words they use, then a masked maximum per sentence and focus word."""
        if not self.focus or not sentences:
            return np.ones(len(sentences)) if not self.focus else np.zeros(0)
        if self.focus_vectors is None:
            return np.array([self.of_words(present) for present in sentences])
        union = sorted(set().union(*sentences))
        if not union:
            return np.zeros(len(sentences))
        column = {word: i for i, word in enumerate(union)}
        similarity = self.focus_vectors @ self.word_vectors[[self.rows[w] for w in union]].T
        uses = np.zeros((len(sentences), len(union)), dtype=bool)
        for n, present in enumerate(sentences):
            uses[n, [column[w] for w in present]] = True
        best = np.where(uses[:, None, :], similarity[None, :, :], -np.inf).max(axis=2)
        exact = np.array([[word in present for word in self.focus] for present in sentences])
        best = np.where(exact, 1.0, best)
        best[~uses.any(axis=1)] = 0.0  # a sentence with no vocabulary word covers nothing
        return np.asarray(best.mean(axis=1))


def focus_words(question: str, subject: frozenset[str] = frozenset()) -> list[str]:
    """The words a question is about: no stop words, question words, numbers or the site owner."""
    found = []
    for token in words(question):
        for part in re.split(r"[-/]", CONTRACTION.sub("", token)):
            if (
                len(part) > 2
                and part.isalpha()
                and part not in STOPWORDS
                and part not in QUESTION_WORDS
                and part not in subject
            ):
                found.append(part)
    return found
