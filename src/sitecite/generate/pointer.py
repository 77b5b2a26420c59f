"""The honest reply when no answer is sure: say so, and point at the closest sections.

The gate found the question on topic (it admitted sections), but no strategy of the answerer
was confident enough to answer directly. "The site doesn't say" would be false when the site
does say, in words the answerer could not read; a visitor is better served by the pages that
come closest, each with the lines of it nearest the question, so they can read it there.
The reply is a refusal (`refused`), with its own reason (`no_direct_answer`) and citations: the
answer JSON's `outcome` is `pointed`.

The closest sections are the admitted ones, one per page, led by the one the answerer would
have quoted, then the closest the gate left out (`Context.nearby`), up to CLOSEST pages: a
visitor told there is no direct answer is still owed the pages nearest the question.

Each page is shown by a passage rather than a sentence, as a search result is (`snippet`):
its closest line, then the sentence after it (the line nearest a question often names its
topic and the next one answers it), then the ranker's next best lines of the section, then the
sentence before, each while the whole stays within SNIPPET_WORDS words. On the answer data's
dev halves (nineteen sites, nothing fitted) the key facts of 950 of 2,383 answerable questions
were on screen with the line alone, 1,233 with its neighbours and 1,303 with the ranker's next
lines as well; no site lost (docs/results.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from sitecite.generate.base import Context
from sitecite.generate.compose import label
from sitecite.ingest.kinds import QUOTABLE
from sitecite.types import Check, Draft, RefusalReason, Section

NO_DIRECT_ANSWER = "I couldn't find a direct answer to that on the site."
CLOSEST_SAYS = "The closest the site comes:"  # a line the reader thinks answers, but not surely
CLOSEST = 3  # sections a pointed reply names: what a visitor reads before giving up
SNIPPET_WORDS = 60  # at most this many words of each page a pointed reply shows (`snippet`)


def closest_sections(
    sections: Sequence[Section], most: int = CLOSEST, first: Sequence[int] = ()
) -> list[int]:
    """Positions (in the context) of the closest sections, one per page, best first (those
    in `first`, then in the order retrieval ranked them): a visitor gains nothing from three
    headings of the same page."""
    chosen: list[int] = []
    pages: set[str] = set()
    order = [*first, *(p for p in range(len(sections)) if p not in first)]
    for position in order:
        section = sections[position]
        if section.page_id in pages or not label(section).strip():
            continue
        pages.add(section.page_id)
        chosen.append(position)
        if len(chosen) == most:
            break
    return chosen


def pool(context: Context) -> list[Section]:
    """The sections a pointed reply may name: the admitted ones, then the nearby ones."""
    return [*context.sections, *context.nearby]


def pointer_text(
    sections: Sequence[Section], positions: Sequence[int], missing: str = "", closest: str = ""
) -> str:
    """What a pointed reply says, whichever generator gave it: no direct answer (or what the
    site never mentions), then the closest sections by name, numbered as cited. `closest` is
    the first section's line when the reader thinks it answers, though not surely: the reply
    then says what the site does say, quoted, before naming the other sections."""
    if closest and positions:
        rest = "; ".join(
            f"{label(sections[p])} [{n}]" for n, p in enumerate(positions[1:], start=2)
        )
        also = f" Also close: {rest}." if rest else ""
        return f"{CLOSEST_SAYS} “{closest}” [1]{also}"
    opening = f"The site doesn't mention {missing}." if missing else NO_DIRECT_ANSWER
    named = "; ".join(f"{label(sections[p])} [{n}]" for n, p in enumerate(positions, start=1))
    return f"{opening} The closest sections: {named}." if positions else opening


def closest_line(context: Context, position: int) -> str:
    """The quotable sentence of a section nearest the question by meaning ("" if none); a
    nearby section's (a position past the admitted ones) was read when it was found."""
    if position >= len(context.sections):
        return context.nearby_lines[position - len(context.sections)]
    section = context.sections[position]
    span = context.index.sentence_rows(context.rows[position])
    if not len(span):
        return ""
    cosines = context.index.sentence_vectors[span.start : span.stop] @ context.query_vector
    quotable = [number for number, kind in enumerate(section.sentence_kinds) if kind in QUOTABLE]
    if not quotable:
        return ""
    best = max(quotable, key=lambda number: float(cosines[number]))
    return section.sentences[best]


def snippet(section: Section, lines: Sequence[str], words: int = SNIPPET_WORDS) -> tuple[str, ...]:
    """The sentences a pointed reply shows of one section, in page order. `lines` are the
    section's candidate lines, best first: the first is shown, then the quotable sentence
    after it, the next two of `lines`, and the quotable sentence before it, each added while
    the whole stays within `words` words. A first line that is not one of the section's
    sentences (a profile fact) is shown alone."""
    line = lines[0] if lines else ""
    if not line:
        return ()
    sentences = section.sentences
    if line not in sentences:
        return (line,)
    at = sentences.index(line)
    quotable = [n for n, kind in enumerate(section.sentence_kinds) if kind in QUOTABLE]
    ranked = [sentences.index(text) for text in lines[1:] if text in sentences]
    after = [n for n in quotable if n > at][:1]
    before = [n for n in quotable if n < at][-1:]
    chosen = [at]
    for extra in (after, *([n] for n in ranked[:2]), before):
        trial = sorted({*chosen, *extra})
        if sum(len(sentences[n].split()) for n in trial) <= words:
            chosen = trial
    return tuple(sentences[n] for n in chosen)


def passage(section: Section, shown: Sequence[str]) -> str:
    """Shown sentences as one quoted passage: neighbours joined by a space, a gap by " … "."""
    if not all(line in section.sentences for line in shown):
        return " ".join(shown)
    places = [section.sentences.index(line) for line in shown]
    joined = shown[0] if shown else ""
    for place, previous, line in zip(places[1:], places[:-1], shown[1:], strict=True):
        joined += (" " if place == previous + 1 else " … ") + line
    return joined


def pointed(
    context: Context,
    generator: str,
    checks: Sequence[Check] = (),
    missing: Sequence[str] = (),
    lines: Mapping[int, Sequence[str]] | None = None,
    first: Mapping[int, str] | None = None,
    likely: bool = False,
) -> Draft:
    """The pointed reply: no direct answer, the closest sections cited with a passage of each
    (`snippet`) as the quotes. `missing` names what the question asks
    about that the site never mentions; `lines` may give better lines per section position
    than nearness alone, best first (`ranked_lines`); `first` the section (and line) the
    answerer would have quoted, shown first; `likely` when the reader thinks that line
    answers, though not surely enough to answer directly."""
    sections = pool(context)
    positions = closest_sections(sections, first=list(first or {}))
    ranked = {p: list(candidates) for p, candidates in (lines or {}).items()}
    for p, line in (first or {}).items():
        ranked[p] = [line, *(other for other in ranked.get(p, ()) if other != line)]
    found = [ranked.get(p) or [closest_line(context, p)] for p in positions]
    quotes = tuple(snippet(sections[p], best) for p, best in zip(positions, found, strict=True))
    says = likely and first and positions and not missing  # what the site says closest
    closest = passage(sections[positions[0]], quotes[0]) if says else ""
    text = pointer_text(sections, positions, _joined(missing), closest)
    detail = f"pointed at {len(positions)} closest section(s)"
    return Draft(
        text,
        tuple(positions),
        True,
        generator,
        refusal_reason=RefusalReason.NO_DIRECT_ANSWER,
        checks=(*checks, Check("pointed", True, detail)),
        quotes=quotes,
    )


def _joined(names: Sequence[str]) -> str:
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} or {names[-1]}"


def ranked_lines(
    positions: Sequence[int], scores: np.ndarray, texts: Sequence[str]
) -> dict[int, list[str]]:
    """Each section position's candidate sentences, best-scored first (candidates given as
    parallel sequences of section positions, scores and texts)."""
    found: dict[int, list[tuple[float, str]]] = {}
    for position, score, text in zip(positions, scores, texts, strict=True):
        found.setdefault(position, []).append((float(score), text))
    return {
        position: [text for _, text in sorted(scored, key=lambda pair: -pair[0])]
        for position, scored in found.items()
    }
