"""An answer a visitor can read, built only from sentences quoted verbatim from the site.

Each quoted passage says where it comes from ("On *Uses › Homelab*: ..."), the author's first
person stays inside quotation marks (the site speaks, not sitecite), steps come as a short list,
and a part of the question the site does not cover is named as such. Citations are numbered by
first use; every passage ends with the number of the section it quotes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from sitecite.ingest.kinds import tidy
from sitecite.types import PROFILE_SUFFIX, Section

_FIRST_PERSON = re.compile(r"\b(I|I'm|I've|I'd|I'll|my|me|mine|myself|we|we're|our|us)\b")


@dataclass(frozen=True)
class Passage:
    """Consecutive sentences of one section; `listed` ones are shown as a numbered list."""

    section_position: int
    sentences: tuple[str, ...]
    listed: tuple[str, ...] = ()


@dataclass
class Composition:
    """Passages (and parts the site does not cover) in the order they are shown."""

    passages: list[Passage] = field(default_factory=list)
    uncovered: list[str] = field(default_factory=list)


def label(section: Section) -> str:
    """Where a passage comes from: the page title and the section heading, decoration removed."""
    # the profile page is the owner's: "Noor Haddad", not "Noor Haddad (profile)"
    title = " ".join(tidy(section.title.removesuffix(PROFILE_SUFFIX)).split()) or section.page_id
    heading = " ".join(tidy(section.heading.replace("\u00a0", " ")).split())
    if not heading or heading.lower() == title.lower():
        return title
    return f"{title} › {heading.rstrip(':')}"


def cite(sentence: str, n: int) -> str:
    """A sentence with its citation, ending in a full stop so it reads (and is verified) on its
    own; in the author's first person it is shown as their words, in quotation marks."""
    if _FIRST_PERSON.search(sentence) and not sentence.startswith(('"', "\u201c")):
        body = sentence[:-1] if sentence.endswith(".") else sentence
        return f'"{body}" [{n}].'
    if sentence.endswith((".", "!", "?", "\u2026")):
        return f"{sentence} [{n}]"
    return f"{sentence} [{n}]."


def render(composition: Composition, sections: Sequence[Section]) -> tuple[str, tuple[int, ...]]:
    """The answer text and the section positions it cites, in citation-number order."""
    numbers: dict[int, int] = {}
    blocks: list[str] = []
    for passage in composition.passages:
        n = numbers.setdefault(passage.section_position, len(numbers) + 1)
        where = label(sections[passage.section_position])
        # every sentence carries its citation, so each can be verified on its own
        text = " ".join(cite(s, n) for s in passage.sentences)
        if passage.listed:
            items = "\n".join(f"{i}. {item}" for i, item in enumerate(passage.listed, start=1))
            lead = " ".join(passage.sentences)
            blocks.append(f"On *{where}*: {lead}\n{items} [{n}]".replace("*:  ", "*: "))
        else:
            blocks.append(f"On *{where}*: {text}")
    for part in composition.uncovered:
        blocks.append(f"The site doesn't say: {part.rstrip('?')}?")
    separator = "\n" if any(p.listed for p in composition.passages) else " "
    cited = tuple(sorted(numbers, key=numbers.__getitem__))
    return separator.join(blocks), cited
