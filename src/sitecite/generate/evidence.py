"""Reading a question for evidence: its proper names, its focus words, its parts, and how much
of it a sentence covers (with the site's vocabulary vectors stored in the index)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sitecite.generate.base import Context
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
_CAPITALISED = re.compile(r"(?<![\w'’])([A-Z][\w'’&.-]*[\w])")


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


_CONTRACTION = re.compile(r"['’](s|re|ve|ll|d|m|t)$|n['’]t$")


def proper_names(question: str) -> list[str]:
    """Capitalised words that do not start a sentence: names of things (Google, Delft, John)."""
    tokens = question.split()
    if tokens and sum(t[:1].isupper() for t in tokens) > 0.6 * len(tokens):
        return []  # Title Case Question: capitals say nothing
    names = []
    for match in _CAPITALISED.finditer(question):
        before = question[: match.start()].rstrip()
        if not before or before[-1] in '.?!:;"(<>':
            continue
        for part in re.split(r"[-/]", _CONTRACTION.sub("", match.group(1).rstrip("."))):
            if len(part) > 1 and part.lower() not in STOPWORDS and part[:1].isupper():
                names.append(part)
    return names


def focus_words(question: str, subject: frozenset[str] = frozenset()) -> list[str]:
    """The words a question is about: no stop words, question words, numbers or the site owner."""
    found = []
    for token in words(question):
        for part in re.split(r"[-/]", _CONTRACTION.sub("", token)):
            if (
                len(part) > 2
                and part.isalpha()
                and part not in STOPWORDS
                and part not in QUESTION_WORDS
                and part not in subject
            ):
                found.append(part)
    return found


_PART_BREAK = re.compile(
    r"\?\s+(?=\S)|,?\s+and\s+(?=(?:what|which|how|who|whose|when|where|why|whether|has|have|does|did|"
    r"is|are|was|were|can|could|would)\b)",
    re.IGNORECASE,
)


def question_parts(question: str) -> list[str]:
    """A question that asks several things ("Which one, and what did it change?") split into its
    parts; a part of fewer than three words stays with the one before it, and a statement ("I'd
    like to send her a gift.") is context for the question beside it, never a part of its own."""
    pieces = [p.strip(" ,") for p in _PART_BREAK.split(question)]
    parts: list[str] = []
    pending = ""  # statements waiting for the question they introduce
    for piece in (p for p in pieces if p):
        if parts and len(piece.split()) < 3:
            parts[-1] = f"{parts[-1]} {piece}"
        elif not _asks(piece):
            pending = f"{pending} {piece}".strip()
        else:
            parts.append(f"{pending} {piece}".strip())
            pending = ""
    if pending and parts:
        parts[-1] = f"{parts[-1]} {pending}"
    return [each for part in parts for each in _compared(part)] or [question]


# "How did INP change on the newspaper project compared with the checkout?"
_COMPARED = re.compile(
    r"^(?P<head>.*\b(?:on|in|for|at|with|of|from|about)\s)(?P<one>.+?),?\s+"
    r"(?:compared\s+(?:with|to)|as\s+opposed\s+to|versus|vs\.?)\s+(?P<two>[^?]+?)\s*\??$",
    re.IGNORECASE,
)


def _compared(part: str) -> list[str]:
    """A comparison asks the same thing of two things: "How did INP change on the newspaper
    project compared with the checkout?" is asked of each, so each is searched for on its own
    ("How did INP change on the checkout?")."""
    match = _COMPARED.match(part)
    if match is None:
        return [part]
    head = match.group("head")
    return [f"{head}{match.group('one')}", f"{head}{match.group('two')}?"]


_VISITOR = re.compile(r"^\W*(i|i'm|i've|i'd|we|we're|we've|we'd|our|my|us)\b", re.IGNORECASE)
_THIRD_PERSON = re.compile(r"\b(he|she|they|him|her|his|hers|them|their)\b", re.IGNORECASE)
_PIECES = re.compile(r"(?<=[.?!])\s+")


def about_the_visitor(question: str, is_owner: Callable[[str], bool]) -> str:
    """What the visitor says about themselves around their question ("what are your working
    hours? we're in New York", "I'm hiring in Berlin."): statements in the first person that
    ask nothing and are not about the owner. Their names are the visitor's, not the site's."""
    pieces = [p for chunk in _PART_BREAK.split(question) for p in _PIECES.split(chunk)]
    return " ".join(
        piece
        for piece in pieces
        if _VISITOR.search(piece.replace("’", "'"))
        and not _asks(piece)
        and not _THIRD_PERSON.search(piece)
        and not any(is_owner(w.lower()) for w in re.findall(r"[A-Za-z]+", piece))
    )


_ASKS = re.compile(
    r"\?\s*$|(?:^\W*|[,;:.!]\s+)(what|which|who|whom|whose|when|where|why|how|whether|is|are|was|were|do|does|"
    r"did|can|could|would|should|will|has|have|had|tell|name|list|describe|explain)\b",
    re.IGNORECASE,
)


def _asks(piece: str) -> bool:
    """Whether a piece of a question asks something (rather than telling some context)."""
    return bool(_ASKS.search(piece))
