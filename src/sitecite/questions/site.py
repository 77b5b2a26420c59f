"""What the question writer reads of a site: its owner (how a visitor names them) and its text
(where a name occurs, in which sentences, and how the site itself capitalises a word).

Every check that a bait question is unanswerable comes down to `SiteText.mentions`: a name the
site never writes, in any case, cannot be what the site answers about.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property, lru_cache

from sitecite.index.store import Index
from sitecite.ingest.data import FACTS_PAGE_ID
from sitecite.ingest.kinds import QUOTABLE

# "pronouns: she/her" in a profile fact, or "(he/him)" anywhere on the site
_PRONOUNS = re.compile(r"\b(she|he|they)\s*/\s*(her|him|them)\b", re.IGNORECASE)
_FORMS = {
    "she": ("she", "her", "her"),
    "he": ("he", "him", "his"),
    "they": ("they", "them", "their"),
}


@dataclass(frozen=True)
class Owner:
    """The site's owner as questions name them: "Noor" (or "the author" when the index has no
    owner name) and the pronouns the site gives, else "they"."""

    name: str
    first: str
    they: str = "they"
    them: str = "them"
    their: str = "their"

    @property
    def possessive(self) -> str:
        return f"{self.first}'" if self.first.endswith("s") else f"{self.first}'s"

    @property
    def words(self) -> frozenset[str]:
        return frozenset(w.lower() for w in re.findall(r"\w+", f"{self.name} {self.first}"))

    @classmethod
    def of(cls, index: Index, site: SiteText) -> Owner:
        name = index.subject if _person_name(index) else ""
        first = name.split()[0] if name else "the author"
        match = site.pronouns
        forms = _FORMS[match] if match else _FORMS["they"]
        return cls(name, first, *forms)


def _person_name(index: Index) -> bool:
    """Whether the index knows its owner's name: one recorded at ingestion, or a profile title
    of two or more capitalised words (a bare "Profile" is the fallback title, not a name)."""
    if index.manifest.get("identity", {}).get("owner"):
        return True
    words = index.subject.split()
    return len(words) >= 2 and all(w[:1].isupper() for w in words)


@lru_cache(maxsize=4096)
def name_pattern(name: str, ignore_case: bool = True) -> re.Pattern[str]:
    """A name as a whole word ("Vue" is not in "Vuex"; "C++" and "Next.js" keep their signs)."""
    flags = re.IGNORECASE if ignore_case else 0
    return re.compile(rf"(?<![\w.+#-]){re.escape(name)}(?![\w+#]|[.-]\w)", flags)


class SiteText:
    """The index's text, read once: sections, their sentences, and name look-ups."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.sections = index.sections
        self._texts = [f"{s.title}\n{s.heading}\n{s.text}" for s in self.sections]
        self._everything = "\n".join(self._texts).lower()
        self._mentions: dict[str, tuple[int, ...]] = {}

    def mentions(self, name: str) -> tuple[int, ...]:
        """Rows of the sections that write `name` anywhere, in any case."""
        key = name.lower()
        if key not in self._everything:
            return ()
        if key not in self._mentions:
            pattern = name_pattern(name)
            self._mentions[key] = tuple(
                row for row, text in enumerate(self._texts) if pattern.search(text)
            )
        return self._mentions[key]

    def names(self, name: str) -> int:
        """How many sections write `name` as a name: with its own capitals, case-sensitively."""
        pattern = name_pattern(name, ignore_case=False)
        return sum(1 for row in self.mentions(name) if pattern.search(self._texts[row]))

    def sentences_with(self, name: str) -> list[str]:
        pattern = name_pattern(name)
        return [
            sentence
            for row in self.mentions(name)
            for sentence in self.sections[row].sentences
            if pattern.search(sentence)
        ]

    def quotable(self) -> list[tuple[int, str, str]]:
        """(row, sentence, kind) for every sentence an answer may quote."""
        return [
            (row, sentence, kind)
            for row, section in enumerate(self.sections)
            for sentence, kind in zip(section.sentences, section.sentence_kinds, strict=False)
            if kind in QUOTABLE
        ]

    def find(self, pattern: re.Pattern[str]) -> str:
        """The first quotable sentence that `pattern` matches, or ""."""
        return next((s for _, s, _ in self.quotable() if pattern.search(s)), "")

    @cached_property
    def pronouns(self) -> str:
        """The owner's pronouns when the profile states them ("she", "he", "they"), else ""."""
        for section in self.sections:
            if section.page_id != FACTS_PAGE_ID:
                continue
            match = _PRONOUNS.search(section.text)
            if match:
                return match.group(1).lower()
        return ""

    @cached_property
    def casing(self) -> Counter[str]:
        """For each word, how often the site writes it lower-case inside a sentence minus how
        often capitalised there: a title's "Block" is a word, its "Go" a name."""
        counts: Counter[str] = Counter()
        for _, sentence, _ in self.quotable():
            for word in re.findall(r"(?<=[\w,;] )[A-Za-z][a-z]+\b", sentence):
                counts[word.lower()] += 1 if word[0].islower() else -1
        return counts

    def plain(self, title: str) -> str:
        """A title in sentence case where the site writes its words lower-case."""
        words = title.split(" ")
        out = []
        for position, word in enumerate(words):
            bare = word.strip("\"'“”‘’:,()")
            lowered = bare.lower()
            if (
                (position > 0 or len(words) > 1)
                and bare[:1].isupper()
                and bare[1:].islower()
                and self.casing[lowered] > 0
            ):
                word = word.replace(bare, lowered)
            out.append(word)
        return " ".join(out)
