"""What the question writer reads of a site: its owner (how a visitor names them) and its text
(where a name occurs, in which sentences, and how the site itself capitalises a word).

Every check that a bait question is unanswerable comes down to `SiteText.mentions`: a name the
site never writes, in any case, cannot be what the site answers about.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
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
        first = site.short_name(name.split()[0]) if name else "the author"
        match = site.pronouns
        forms = _FORMS[match] if match else _FORMS["they"]
        return cls(name, first, *forms)


def _person_name(index: Index) -> bool:
    """Whether the index's subject reads as a person's name: one to four words, each
    capitalised ("Benjamin J. Balter"). A bare "Profile" (the profile's fallback title) or a
    phrase ingestion misread as a name ("works against them") is not one."""
    words = index.subject.split()
    if not 1 <= len(words) <= 4 or not all(w[:1].isupper() for w in words):
        return False
    return bool(index.manifest.get("identity", {}).get("owner")) or len(words) >= 2


@lru_cache(maxsize=4096)
def name_pattern(name: str, ignore_case: bool = True) -> re.Pattern[str]:
    """A name as a whole word ("Vue" is not in "Vuex"; "C++" and "Next.js" keep their signs)."""
    flags = re.IGNORECASE if ignore_case else 0
    return re.compile(rf"(?<![\w.+#-]){re.escape(name)}(?![\w+#]|[.-]\w)", flags)


def _edges_clear(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] stands as a whole name, as `name_pattern` reads one."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    if before.isalnum() or before in "_.+#-" or after.isalnum() or after in "_+#":
        return False
    return not (after in ".-" and end + 1 < len(text) and text[end + 1].isalnum())


class SiteText:
    """The index's text, read once: sections, their sentences, and name look-ups."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.sections = index.sections
        texts = [f"{s.title}\n{s.heading}\n{s.text}\n" for s in self.sections]
        self._text = "".join(texts)
        self._lower = self._text.lower()
        self._starts = list(itertools.accumulate((len(t) for t in texts), initial=0))[:-1]
        self._rows: dict[tuple[str, bool], tuple[int, ...]] = {}

    def mentions(self, name: str) -> tuple[int, ...]:
        """Rows of the sections that write `name` anywhere, in any case."""
        return self._find(name, ignore_case=True)

    def names(self, name: str) -> int:
        """How many sections write `name` as a name: with its own capitals, case-sensitively."""
        return len(self._find(name, ignore_case=False))

    def _find(self, name: str, ignore_case: bool) -> tuple[int, ...]:
        key = (name, ignore_case)
        if key not in self._rows:
            text, wanted = (self._lower, name.lower()) if ignore_case else (self._text, name)
            rows = set()
            position = text.find(wanted)
            while position >= 0:  # str.find, then the name's edges: far faster than a regex
                end = position + len(wanted)
                if _edges_clear(text, position, end):
                    rows.add(bisect_right(self._starts, position) - 1)
                position = text.find(wanted, position + 1)
            self._rows[key] = tuple(sorted(rows))
        return self._rows[key]

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

    def short_name(self, first: str) -> str:
        """The form of a first name the site's own sentences use most: "Ben" where a profile
        says "Benjamin" and the prose says "Ben" (a shortening that begins the name); the name
        as given when the prose uses no shortening more."""
        forms = (
            [  # a shortening the site writes as a name, not a word ("And" of "Andrey")
                first[:end] for end in range(3, len(first)) if self.casing[first[:end].lower()] < 0
            ]
            + [first]
        )
        quotable = [sentence for _, sentence, _ in self.quotable()]
        uses = {
            form: sum(1 for s in quotable if name_pattern(form, False).search(s)) for form in forms
        }
        return max(reversed(forms), key=lambda form: uses[form])

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
            for word in re.findall(r"(?<=[\w,;] )[^\W\d_]{2,}\b", sentence):
                if word[1:].islower():  # "Pokémon" as well as "Python"; not "iPhone" or "CSS"
                    counts[word.lower()] += 1 if word[0].islower() else -1
        return counts

    def plain(self, title: str, title_case: bool = False) -> str:
        """A title in sentence case where the site writes its words lower-case. With
        `title_case`, a title that capitalises most of its words ("Local Fitness and Health")
        loses every capital the site's sentences do not give the word: "local fitness and
        health", while "GitHub", "Steam Deck" and "CSS" keep theirs."""
        words = title.split(" ")
        bares = [re.sub(r"['’]s?$", "", w.strip("\"'“”‘’:,()?!.")) for w in words]
        long = [b for b in bares if len(b) > 3 and b[:1].isalpha()]
        capitalised = title_case and sum(b[:1].isupper() for b in long) > max(1, len(long) / 2)
        out = []
        for position, (word, bare) in enumerate(zip(words, bares, strict=True)):
            lowered = bare.lower()
            usage = self.casing[lowered]
            if (
                (position > 0 or len(words) > 1)
                and bare[:1].isupper()
                and bare[1:].islower()
                and (usage > 0 or (capitalised and usage == 0))
            ):
                word = word.replace(bare, lowered)
            out.append(word)
        return " ".join(out)
