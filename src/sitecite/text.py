"""Text helpers shared by ingestion, retrieval and verification: sentences, terms, numbers."""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from typing import Any

_ABBREVIATIONS = {
    "e.g",
    "i.e",
    "etc",
    "vs",
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "st",
    "jr",
    "sr",
    "inc",
    "ltd",
    "co",
    "corp",
    "fig",
    "no",
    "approx",
    "dept",
    "est",
    "cf",
    "al",
    "u.s",
    "u.k",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "p",
    "pp",
    "vol",
}
_BOUNDARY = re.compile(r"(?<=[.!?…])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-_.+#]*[A-Za-z0-9+#]|[A-Za-z0-9]")


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences; line breaks (list items, table rows) always end a sentence."""
    sentences: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        start = 0
        for match in _BOUNDARY.finditer(line):
            candidate = line[start : match.start()].strip()
            last_word = candidate.rsplit(" ", 1)[-1].rstrip(".").lower()
            if last_word in _ABBREVIATIONS or re.fullmatch(r"[a-z]", last_word):
                continue
            if candidate:
                sentences.append(candidate)
            start = match.end()
        rest = line[start:].strip()
        if rest:
            sentences.append(rest)
    return sentences


STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "also",
        "ever",
        "every",
        "may",
        "might",
        "must",
        "shall",
        "s",
        "t",
        "than",
        "via",
        "tell",
        "know",
        "please",
    ]
)


def words(text: str) -> list[str]:
    """Lower-cased word tokens; keeps versions, numbers and names like 'c++' or 'next.js' whole."""
    return [w.lower().rstrip(".") for w in _WORD.findall(text)]


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer  # PyStemmer

    return Stemmer.Stemmer("english")


def stem(word: str) -> str:
    return str(_stemmer().stemWord(word))


def content_terms(text: str) -> list[str]:
    """Stemmed words that carry meaning (no stop words), in order, without repeats."""
    seen: dict[str, None] = {}
    for word in words(text):
        if word in STOPWORDS or len(word) < 2:
            continue
        seen.setdefault(stem(word), None)
    return list(seen)


_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?(?:%|ms|s|x|×|kb|mb|gb|tb|k|m)\b|%)?",
    re.I,
)


def numbers(text: str) -> list[str]:
    """Numbers with their unit, normalised for thousands separators: '1,240 ms' -> '1240 ms'."""
    found = []
    for match in _NUMBER.finditer(text):
        token = match.group(0).strip()
        token = re.sub(r"(?<=\d),(?=\d{3}\b)", "", token)
        token = re.sub(r"\s+", " ", token).lower()
        found.append(token)
    return found


def slug_words(text: str) -> str:
    """Collapse whitespace; used before comparing strings."""
    return re.sub(r"\s+", " ", text).strip()


_TOKEN = re.compile(r"(?u)\b\w\w+\b")


@lru_cache(maxsize=4)
def _bm25_stopwords(name: str) -> frozenset[str]:
    if not name:
        return frozenset()
    STOPWORDS_EN = import_bm25s().stopwords.STOPWORDS_EN

    return frozenset(STOPWORDS_EN) if name in ("en", "english") else frozenset()


def import_bm25s() -> Any:
    """bm25s, without the numba and scipy it imports whenever they are installed: sitecite uses
    only its numpy scoring, and those imports were 0.29 s of a 1.05 s `sitecite ask`. They are
    hidden only while bm25s itself is imported, and only if nothing has imported them yet."""
    if "bm25s" in sys.modules:
        return sys.modules["bm25s"]
    hidden = [name for name in ("numba", "scipy") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` fail
    try:
        import bm25s
    finally:
        for name in hidden:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return bm25s


DEFAULT_STOPWORDS = ""
DEFAULT_STEMMER = "english"


def bm25_tokens(
    texts: list[str], stopwords: str = DEFAULT_STOPWORDS, stemmer: str = DEFAULT_STEMMER
) -> list[list[str]]:
    """Tokens for BM25, the same for documents and queries: lower-case words, stemmed.

    Stop words stay by default: BM25's IDF already discounts them, and removing them cost
    nDCG on SciFact's train split (bench/scifact.py --tune). `stopwords="en"` removes them.
    """
    stop = _bm25_stopwords(stopwords)
    split = [[t for t in _TOKEN.findall(text.lower()) if t not in stop] for text in texts]
    if not stemmer:
        return split
    stem_many = _stemmer().stemWords
    return [stem_many(tokens) if tokens else [] for tokens in split]
