"""A draft answer read as a visitor will read it: its sentences exactly as written, the
citations each carries, and which of them only say what the sources do not cover.

Sentences keep their own text and spacing; when some are dropped the rest are shown as they
were, with their `[n]` markers renumbered in place ("this site's .is domain" stays as it is).
A marker after the full stop ("... done. [1] Next") belongs to the sentence before it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sitecite.text import split_sentences

NOT_ON_SITE = "NOT_ON_SITE"
_MARKER = re.compile(r"\[\s*(\d+(?:\s*[,;]\s*\d+)*)\s*\]")
_LEADING_MARKERS = re.compile(r"^(?:\s*\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\])+")
# A clause about the sources rather than the world: "The site doesn't say where she studied",
# "these sources don't give the figures", "there is no mention of", "isn't mentioned".
_SOURCES = (
    r"(?:the|this|these|her|his|their|its|my|our|that|those|any|no)\s+(?:\w+\s+){0,2}?"
    r"(?:site|website|sources?|pages?|profile|portfolio|material|text|information|excerpts?|"
    r"context|sections?|documents?)"
)
_DENIAL = (
    r"(?:does\s*n[o'’]t|do\s*n[o'’]t|did\s*n[o'’]t|does\s+not|do\s+not|did\s+not|never|"
    r"ca\s*n[o'’]t|cannot|can\s+not)\s+(?:\w+\s+){0,2}?"
    r"(?:say|says|mention|state|give|list|describe|include|cover|specify|provide|show|name|"
    r"contain|discuss|tell|explain|address|confirm|indicate|report|offer|detail|go\s+into)"
)
_META = re.compile(
    rf"\b{_SOURCES}\s+(?:\w+\s+){{0,3}}?{_DENIAL}\b"
    rf"|\b{_SOURCES}\s+(?:is|are|was|were|stays?|remains?)\s+silent\b"
    rf"|\b{_SOURCES}\s+(?:says?|mentions?|gives?|has|have|contains?|lists?)\s+(?:nothing|no)\b"
    r"|\bthere\s+(?:is|are|was|were)\s+no\s+(?:\w+\s+){0,2}?(?:mention|information|details?|"
    r"record|indication|word|source|data)\b"
    r"|\b(?:nothing|no\s+source|none\s+of\s+the\s+sources|no\s+page)\s+(?:\w+\s+){0,4}?"
    r"(?:says?|mentions?|gives?|states?|describes?|covers?|lists?)\b"
    r"|\b(?:is|are|was|were)\s*n[o'’]?t\s+(?:\w+\s+)?(?:mentioned|stated|given|listed|described|"
    r"specified|covered|documented|named|said|included|shown|published)\b"
    r"|\bnot\s+(?:on|in)\s+(?:the|this|these)\s+(?:site|website|sources?|pages?)\b"
    r"|\bI\s+(?:can\s*n[o'’]?t|cannot|could\s*n[o'’]?t)\s+find\b",
    re.IGNORECASE,
)
# The label an extractive passage starts with ("On *Uses › Homelab*: ..."): where the quote
# comes from, not a claim (a page title's words are not the author's statement).
_PASSAGE_LABEL = re.compile(r"^On \*[^*\n]+\*:\s*")
_CLAUSES = re.compile(r"\s*(?:;|:|,?\s+but\s+|,?\s+though\s+|,?\s+although\s+|,\s+so\s+)\s*")


@dataclass(frozen=True)
class DraftSentence:
    """One sentence of a draft: its text as written, its markers, and its text without them."""

    text: str
    start: int  # where it stands in the draft
    markers: tuple[int, ...]  # the numbers of its [n] markers, in order, repeats removed
    clean: str  # without markers, for reading

    def cites(self, available: int, fallback: Sequence[int]) -> tuple[tuple[int, ...], list[int]]:
        """(0-based positions it cites, numbers outside the context); without markers of its
        own, the reply's citation list stands in."""
        numbers = list(self.markers) or list(dict.fromkeys(fallback))
        valid = tuple(dict.fromkeys(n - 1 for n in numbers if 1 <= n <= available))
        return valid, sorted({n for n in numbers if not 1 <= n <= available})


def draft_sentences(answer: str) -> list[DraftSentence]:
    """The draft's sentences in order, each with the markers that follow its full stop."""
    text = answer.replace(NOT_ON_SITE, " " * len(NOT_ON_SITE))  # positions stay
    pieces: list[list[int]] = []  # [start, end] spans in `text`
    cursor = 0
    for sentence in split_sentences(text):
        start = text.find(sentence, cursor)
        if start < 0:  # split_sentences strips; the text is always found, but stay safe
            start = cursor
        end = start + len(sentence)
        lead = _LEADING_MARKERS.match(sentence)
        if lead and pieces:
            pieces[-1][1] = start + lead.end()  # markers after the previous full stop
            start += lead.end()
            while start < end and text[start].isspace():
                start += 1
        if start < end:
            pieces.append([start, end])
        cursor = end
    out = []
    for start, end in pieces:
        span = text[start:end]
        markers = tuple(
            dict.fromkeys(int(n) for g in _MARKER.findall(span) for n in re.split(r"[,;]", g))
        )
        clean = _PASSAGE_LABEL.sub("", " ".join(_MARKER.sub(" ", span).split()))
        clean = re.sub(
            r"\s+(?=[.,;:!?](?:\s|$))", "", clean
        )  # "done [1]." -> "done." (".zip" stays)
        if clean.strip(" .!?\"'"):
            out.append(DraftSentence(span, start, markers, clean))
    return out


def with_markers(text: str, sources: Sequence[int | None]) -> str:
    """A sentence with `[n]` for each of its sources before its closing punctuation ("She
    moved in 2021 [2].")."""
    marks = "".join(f"[{n}]" for n in dict.fromkeys(n for n in sources if n is not None))
    body = text.rstrip()
    if not marks:
        return body
    end = len(body.rstrip(".!?\"'”’"))
    return f"{body[:end]} {marks}{body[end:]}"


def meta_clauses(sentence: str) -> tuple[list[str], list[str]]:
    """(clauses about what the sources do not say, clauses that claim something)."""
    meta: list[str] = []
    claims: list[str] = []
    for clause in _CLAUSES.split(sentence):
        if not clause.strip(" .!?"):
            continue
        (meta if _META.search(clause) else claims).append(clause)
    return meta, claims


def renumbered(sentence: DraftSentence, numbers: dict[int, int], cited: Sequence[int]) -> str:
    """The sentence as written, its markers renumbered by first use across the answer
    (`numbers` maps 0-based context positions to shown numbers and grows as it goes); a
    sentence without markers gets its citations after its full stop."""

    def replace(match: re.Match[str]) -> str:
        parts = [int(n) for n in re.split(r"\s*[,;]\s*", match.group(1))]
        shown = [numbers.setdefault(n - 1, len(numbers) + 1) for n in parts]
        return "[" + ", ".join(str(n) for n in dict.fromkeys(shown)) + "]"

    if sentence.markers:
        return _MARKER.sub(replace, sentence.text)
    labels = "".join(f"[{numbers.setdefault(p, len(numbers) + 1)}]" for p in cited)
    return f"{sentence.text} {labels}" if labels else sentence.text


def join(sentences: Sequence[tuple[DraftSentence, str]], answer: str) -> str:
    """Shown sentences with the spacing that stood before each in the draft."""
    parts = []
    for i, (sentence, text) in enumerate(sentences):
        if i:
            before = answer[: sentence.start]
            gap = before[len(before.rstrip()) :]
            parts.append(gap if gap else " ")
        parts.append(text)
    return "".join(parts).strip()
