"""Whether an answer is presentable: what it quotes is prose a visitor can read, not page furniture.

The `presentable` check of `sitecite eval` reads the answer as shown, takes away the parts an
answer adds around its quotes (the "On *Page › Section*:" labels, `[n]` markers, quotation
marks, list bullets), and finds each quoted sentence among the sentences of the sections the
generator saw. It fails when the answer quotes a heading or a page title, a link title, a
contents entry, a caption, a label, a fragment or decoration, the same sentence twice, or ends
on a lead-in ("...mirrored on the Tor network at:") whose completion is missing. A link right
after a lead-in is that lead-in's completion (the address it introduces), not a link title.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sitecite.ingest.kinds import CODE, LINK, QUOTABLE, TOC, normal_form
from sitecite.text import split_sentences
from sitecite.types import Section

_CITATION = re.compile(r"\s*\[\d+\]")
_LABEL = re.compile(r"\bOn \*[^*\n]+\*:\s*")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_QUOTES = "\"'“”‘’` "
_QUOTED = re.compile(r"[\"“](.+)[\"”]\s*([.!?])?")


def quoted_pieces(answer: str) -> list[str]:
    """The sentences an answer shows, without the labels, markers and quotes around them."""
    pieces = []
    for line in _CITATION.sub("", answer).splitlines():
        line = _BULLET.sub("", _LABEL.sub("", line)).strip()
        for sentence in split_sentences(line):
            piece = _unquote(sentence.strip())
            if piece:
                pieces.append(piece)
    return pieces


def _unquote(piece: str) -> str:
    """'"I moved it" .' -> 'I moved it.': the sentence as the page has it."""
    quoted = _QUOTED.fullmatch(piece)
    if quoted is None:
        return piece.strip(_QUOTES)
    inner, stop = quoted.group(1), quoted.group(2) or ""
    return inner if inner.endswith((".", "!", "?", "\u2026")) else inner + stop


def presentable(answer: str, context: Sequence[Section]) -> tuple[bool, str]:
    """(passed, detail) for one answer against the sections its generator saw."""
    kinds: dict[str, set[str]] = {}
    for section in context:
        for sentence, kind in zip(section.sentences, section.sentence_kinds, strict=True):
            kinds.setdefault(normal_form(sentence), set()).add(kind)
    headings = {normal_form(s.heading) for s in context} | {normal_form(s.title) for s in context}
    problems: list[str] = []
    seen: set[str] = set()
    previous = ""
    for piece in quoted_pieces(answer):
        key = normal_form(piece)
        if key in seen:
            problems.append(f"quoted twice: '{_short(piece)}'")
        seen.add(key)
        found = kinds.get(key, set())
        completes = previous.rstrip().endswith(":") and found & {LINK, TOC}
        if key in headings and not found & QUOTABLE:
            problems.append(f"a heading: '{_short(piece)}'")
        elif found and not found & (QUOTABLE | {CODE}) and not completes:
            problems.append(f"a {'/'.join(sorted(found))}: '{_short(piece)}'")
        previous = piece
    if previous.rstrip().endswith(":"):
        problems.append(f"ends on a lead-in: '{_short(previous)}'")
    if problems:
        return False, "; ".join(problems)
    return True, "quotes only prose, list items, table rows and facts, each once"


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
