"""One tokenizer for every comparison of words: retrieval's vocabulary, the extractive answerer's
question words, and verification's claims and sources all read text through it.

A token keeps product names whole ("Next.js", "Node.js", ".NET", "iCloud", "GPT-4o", "B2"),
knows its lower-case form without a possessive ("Noor's" -> "noor") and its stem, and splits
hyphenated words into parts as well ("45-minute" -> "minute"; "24-year-old" -> "year", "old").
A word is a name by evidence: capitals inside it, an acronym, letters mixed with digits, or a
capital where a sentence does not start. A capital at the start of a sentence ("Eventually",
"Idempotency") proves nothing, so such a word is a name only when it opens a run of
capitalised words ("Apache Kafka").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = [
    "STOPWORDS",
    "Token",
    "content_stems",
    "content_tokens",
    "names",
    "stem",
    "stem_many",
    "tokenize",
    "words",
]

# Function words, left out of content words (BM25 keeps them: see sitecite.text.bm25_tokens).
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can could did do does doing don't down during each
    ever every few for from further had has have having he her here hers herself him himself his
    how i if in into is it its itself just know may me might more most must my myself no nor not
    of off on once only or other our ours ourselves out over own please s same shall she should
    so some such t tell than that the their theirs them themselves then there these they this
    those through to too under until up very via was we were what when where which while who
    whom why will with would you your yours yourself yourselves""".split()
)
_SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
_TENS = dict(thirty=30, forty=40, fifty=50, sixty=60, seventy=70, eighty=80, ninety=90)
# Numbers written as words: figures (sitecite.facts), not content words.
CARDINALS = {w: n for n, w in enumerate(_SMALL)} | _TENS | {"hundred": 100, "thousand": 1000}
CARDINALS |= {"dozen": 12, "twice": 2}
_ORDINAL_WORDS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
).split()
ORDINALS = {w: n for n, w in enumerate(_ORDINAL_WORDS, start=1)}
NUMBER_WORDS = frozenset(CARDINALS) | frozenset(ORDINALS)
# Negations outside the stop words: function words too, never content.
NEGATIONS = frozenset("never none nobody nothing neither without cannot nowhere".split())
# A word: starts with a letter or digit (or a dot before letters, ".NET", ".is"), may hold
# apostrophes, hyphens, dots, plus and hash inside, and ends on a letter, digit, + or #.
_WORD = re.compile(r"(?<![\w.])\.(?=[^\W\d_])[^\W_]+|[^\W_](?:[\w'’\-.+#]*[\w+#])?")
_POSSESSIVE = re.compile(r"['’]s$|['’]$")
# Sentence openers that are never names even in a run of capitals ("In Lisbon", "At Kestrel").
# In the gap before a word: the end of a sentence, or an opening quote or bracket. (After a
# colon a capital is a name: "Languages: Arabic (native)".)
_SENTENCE_START = re.compile(r"(?:[.!?]\s+\W*|(?:^|\s)[\"“‘(\[])$")
_PARTS = re.compile(r"[-/]|(?<=\d)(?=[^\W\d_])")  # "24-year-old", "16vcpu" -> 16, vcpu


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer  # PyStemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball (Porter 2) stem of a lower-case word."""
    return str(_stemmer().stemWord(word))


def stem_many(words: list[str]) -> list[str]:
    """Stems of many words in one call (BM25 tokenizes whole corpora)."""
    return list(_stemmer().stemWords(words))


@dataclass(frozen=True, slots=True)
class Token:
    """One word of a text, where it stands, and the forms comparisons use."""

    text: str
    start: int
    end: int
    lower: str  # lower case, possessive removed: "Noor's" -> "noor"
    opens_sentence: bool  # first word of a sentence, a quotation or a bracket
    parts: tuple[str, ...]  # pieces of a hyphenated word ("24-year-old" -> 24, year, old)
    content: bool  # carries meaning: not a stop word, number, negation or single character

    @property
    def stem(self) -> str:
        return stem(self.lower)

    @property
    def numeric(self) -> bool:
        return self.lower[:1].isdigit()

    @property
    def capitalised(self) -> bool:
        return self.text[:1].isupper()

    @property
    def name_shaped(self) -> bool:
        """A name whatever its position: capitals inside, an acronym, or letters and digits."""
        body = self.text.lstrip(".")
        letters = [c for c in body if c.isalpha()]
        if not letters or body == "I":
            return False
        inner_capital = any(c.isupper() for c in body[1:] if c.isalpha())
        mixed = any(c.isdigit() for c in body) and body[:1].isalpha()
        dotted = "." in body.strip(".") and any(c.isupper() for c in letters)
        return (
            inner_capital
            or dotted
            or (mixed and any(c.isupper() for c in letters))
            or (self.text.startswith(".") and body.isupper())
        )


@lru_cache(maxsize=16384)
def tokenize(text: str) -> tuple[Token, ...]:
    """Every word of `text`, in order (cached: claims and sources are read many times)."""
    tokens: list[Token] = []
    previous = 0
    for match in _WORD.finditer(text):
        surface = match.group(0)
        lower = _POSSESSIVE.sub("", surface.lower().rstrip(".")) or surface
        gap = text[previous : match.start()]
        opens = not tokens or bool(_SENTENCE_START.search(gap))
        pieces = tuple(p for p in _PARTS.split(lower) if p)
        parts = pieces if len(pieces) > 1 else ()
        tokens.append(
            Token(surface, match.start(), match.end(), lower, opens, parts, _is_content(lower))
        )
        previous = match.end()
    return tuple(tokens)


def _is_content(lower: str) -> bool:
    return (
        len(lower) > 1
        and not lower[:1].isdigit()
        and lower not in STOPWORDS
        and lower not in NUMBER_WORDS
        and lower not in NEGATIONS
        and not lower.endswith(("n't", "n’t"))
    )


def words(text: str) -> list[str]:
    """Lower-case words; keeps versions, numbers and names like 'c++' or 'next.js' whole."""
    return [t.text.lower().rstrip(".") for t in tokenize(text)]


def content_tokens(text: str, ignore: frozenset[str] = frozenset()) -> list[Token]:
    """The words of `text` that carry meaning, without the words in `ignore`."""
    return [t for t in tokenize(text) if t.content and t.lower not in ignore]


def content_stems(text: str, ignore: frozenset[str] = frozenset()) -> set[str]:
    """Stems of the content words of `text` and of their hyphenated parts."""
    out = set()
    for token in tokenize(text):
        if token.lower in ignore:
            continue
        if token.content:
            out.add(token.stem)
        out.update(
            stem(p) for p in token.parts if len(p) > 1 and p[0].isalpha() and p not in STOPWORDS
        )
    return out


@lru_cache(maxsize=16384)
def names(text: str) -> tuple[Token, ...]:
    """The words of `text` that are names by evidence (see the module docstring)."""
    tokens = tokenize(text)
    found = []
    for i, token in enumerate(tokens):
        if token.name_shaped:
            found.append(token)
            continue
        if not token.capitalised or token.lower in STOPWORDS or token.numeric:
            continue
        if not token.opens_sentence:
            found.append(token)
            continue
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        joined = following is not None and text[token.end : following.start] == " "
        if (
            joined
            and following is not None
            and following.capitalised
            and token.lower not in STOPWORDS
        ):
            found.append(token)  # "Apache Kafka was..." opens with a name
    return tuple(found)
