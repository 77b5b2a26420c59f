"""Text helpers shared by ingestion, retrieval and verification: sentences and BM25 tokens.

Words, stems and stop words live in sitecite.tokens; they are re-exported here for the modules
that read them from this one."""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from typing import Any

from sitecite.tokens import STOPWORDS, stem, stem_many, words

__all__ = ["STOPWORDS", "bm25_tokens", "import_bm25s", "split_sentences", "stem", "words"]

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
    nDCG on SciFact's train split (training/tune_retrieval.py). `stopwords="en"` removes them.
    """
    stop = _bm25_stopwords(stopwords)
    split = [[t for t in _TOKEN.findall(text.lower()) if t not in stop] for text in texts]
    if not stemmer:
        return split
    return [stem_many(tokens) if tokens else [] for tokens in split]
