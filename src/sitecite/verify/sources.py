"""What a context can vouch for: every sentence of the sections a model was given, read once
(content words, names, figures, stance), and the vectors of single words that let a claim's
paraphrase ("shoppers") find its source's word ("customers").

The site's vocabulary vectors come from the index (sitecite.index.build embeds every word of
the site once); verification itself never runs the embedder.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from sitecite.facts import Fact, facts
from sitecite.polarity import Stance, stance
from sitecite.text import split_sentences
from sitecite.tokens import STOPWORDS, stem, tokenize
from sitecite.types import Section
from sitecite.verify.quotes import stream

# Words about the sources rather than about the world: "According to her website, ...", "His
# post includes ...", "She sums it up as ..." add no claim of their own.
ATTRIBUTION = frozenset(
    """according site website page pages source sources quoted says say said mentions mention
    mentioned writes wrote describes described explains explained adds added recalls recalled
    sums summed here also yes post posts article articles blog guide guides write-up write-ups
    writeup essay piece entry tutorial notes noted argues argued admits admitted claims claimed
    concludes concluded complains complained suggests suggested recommends recommended warns
    warned jokes joked""".split()
)
# Words that add no claim of their own: light verbs, intensifiers and connectives ("got much
# faster", "rather than", "compared with").
LIGHT = frozenset(
    """get gets got getting gotten much very really quite now still even well clearly actually
    simply just rather instead since versus otherwise including plus like compared alongside
    together whether although though yet despite unlike besides hence thus therefore however
    meanwhile moreover overall across along among amongst upon within onto toward towards
    behind beyond beside near around per happen happens happened eventually finally ultimately
    initially originally currently recently previously subsequently""".split()
)
# Connectives of several words, none of which says anything alone ("as long as", "such as").
_CONNECTIVES = re.compile(
    r"\b(?:as long as|as well as|as soon as|as far as|such as|in order to|so that|even though|"
    r"in terms of|in fact|at least|at most|on top of that|on top of|as a result|in the end|"
    r"of course|for example|for instance)\b",
    re.IGNORECASE,
)
# Words of change and comparison: said by two figures ("before was 1,240 ms and after was 86 ms"
# is "dropped", "fell", "faster"), so a source with two figures covers them.
CHANGE = frozenset(
    stem(w)
    for w in """rose rise rises risen grew grow grows increase increased decrease decreased fell
    fall falls fallen drop dropped dropping drops cut reduce reduced reduction improve improved
    improvement went down up faster slower smaller larger bigger higher lower better worse fewer
    less more cheaper shorter longer quicker gain gained jump jumped climb climbed halved doubled
    tripled""".split()
)
SECTION_CACHE = 1024  # sections read for verification kept by a Lexicon


@dataclass(frozen=True)
class Reading:
    """One sentence read for verification."""

    text: str
    stems: frozenset[str]  # content words and the parts of hyphenated ones, stemmed
    surface: Mapping[str, str]  # content stem -> the lower-case word it was read from
    lower: frozenset[str]  # every lower-case word and part: where names are looked up
    facts: tuple[Fact, ...]
    stance: Stance


@lru_cache(maxsize=16384)
def read(text: str, ignore: frozenset[str] = frozenset(), claim: bool = False) -> Reading:
    """Read one sentence; words in `ignore` (the site owner's name) are not content. In a
    claim, neither are the units of its figures ("three years", "45-minute"), which the figure
    check holds to the sources; in a source every word can vouch for a claim's."""
    figures = tuple(facts(text))
    surface: dict[str, str] = {}
    lower: set[str] = set()
    skip = ignore | ATTRIBUTION | LIGHT
    bare = _CONNECTIVES.sub(lambda m: " " * len(m.group(0)), text)  # positions stay
    tokens = tokenize(text)
    for token in tokenize(bare) if bare != text else tokens:
        lower.add(token.lower)
        lower.update(token.parts)
        if token.lower in skip or (claim and _inside(token.start, figures)):
            continue
        if token.content:
            surface.setdefault(token.stem, token.lower)
        for part in token.parts:
            if len(part) > 1 and part[0].isalpha() and part not in STOPWORDS | ignore:
                surface.setdefault(stem(part), part)
    return Reading(
        text, frozenset(surface), surface, frozenset(lower), figures, stance(text, tokens)
    )


def _inside(position: int, figures: Sequence[Fact]) -> bool:
    return any(f.start <= position < f.end for f in figures)


class Lexicon:
    """Vectors of single words: the site's vocabulary, as the index stores it. A claim's word
    the site never uses gets no vector: the site cannot vouch for it, however close its
    meaning (embedding such words changed no verdict on the verification set's dev or test
    half and cost most of verification's time: bench/verify_replies.py)."""

    def __init__(self, rows: Mapping[str, int], vectors: np.ndarray) -> None:
        self.rows = rows
        self.vectors = vectors
        self.lock = threading.Lock()
        # sections already read for this index (a site's sections come back question after
        # question), keyed by what they hold
        self.sections: OrderedDict[tuple[object, ...], SourceEvidence] = OrderedDict()

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1]) if self.vectors.ndim == 2 else 1

    def known(self, words: Sequence[str]) -> np.ndarray:
        """Vectors of the words the site uses (others are left out), one row each."""
        rows = [self.rows[w] for w in words if w in self.rows]
        return self.vectors[rows] if rows else np.zeros((0, self.dim), dtype=np.float32)

    def lookup(self, words: Sequence[str]) -> dict[str, np.ndarray]:
        """The vector of each of `words` the site uses."""
        return {w: self.vectors[self.rows[w]] for w in dict.fromkeys(words) if w in self.rows}


@dataclass
class SourceEvidence:
    """One context section read for verification: its label (title and heading) and sentences."""

    position: int
    label: Reading
    sentences: list[Reading]
    word_vectors: list[np.ndarray] = field(repr=False, default_factory=list)  # per sentence
    stems: frozenset[str] = frozenset()  # every content stem of the section
    words: frozenset[str] = frozenset()  # every lower-case word of it: where names are found


@dataclass
class Evidence:
    """Everything a context can vouch for, read once per answer before any draft arrives."""

    sections: list[SourceEvidence]
    lexicon: Lexicon
    subject: frozenset[str]  # words of the site owner's name: any sentence may use them
    idf: dict[str, float]
    question: frozenset[str] = frozenset()  # its content stems: an answer may restate them
    asked: frozenset[str] = frozenset()  # every lower-case word of the question, its names too
    asked_facts: tuple[Fact, ...] = ()  # the question's figures: an answer may restate them
    rules: str = ""  # the model's own instructions, lower-case: never to be recited

    def __len__(self) -> int:
        return len(self.sections)

    def weight(self, stem_: str) -> float:
        return self.idf.get(stem_, 0.0)

    def texts(self) -> list[tuple[str, tuple[str, ...]]]:
        """Each section's label and sentences as the model read them (where quotes are
        found)."""
        return [(s.label.text, tuple(r.text for r in s.sentences)) for s in self.sections]


def build_evidence(
    sections: Sequence[Section],
    lexicon: Lexicon,
    subject: frozenset[str] = frozenset(),
    question: str = "",
) -> Evidence:
    """Read every sentence of the context's sections (already quarantined by the pipeline);
    a section read before for the same index comes from the lexicon's cache."""
    read_sections = [
        replace(_read_section(section, lexicon, subject), position=position)
        for position, section in enumerate(sections)
    ]
    counts: Counter[str] = Counter()
    total = 0
    for source in read_sections:
        for reading in source.sentences:
            counts.update(reading.stems)
            total += 1
    idf = {s: math.log(1 + (total + 1) / (n + 0.5)) for s, n in counts.items()}
    for source in read_sections:  # where a quoted reply's quotes will be looked for
        stream(source.label.text, tuple(r.text for r in source.sentences))
    asked = read(question, subject)
    return Evidence(read_sections, lexicon, subject, idf, asked.stems, asked.lower, asked.facts)


def _read_section(section: Section, lexicon: Lexicon, subject: frozenset[str]) -> SourceEvidence:
    key = (section.id, section.hash, section.title, section.heading, section.sentences, subject)
    with lexicon.lock:
        known = lexicon.sections.get(key)
        if known is not None:
            lexicon.sections.move_to_end(key)
            return known
    texts = list(section.sentences) or split_sentences(section.text)
    label = read(f"{section.title}. {section.heading}", subject)
    readings = [read(t, subject) for t in texts]
    vectors = [lexicon.known([r.surface[s] for s in sorted(r.stems)]) for r in readings]
    stems = frozenset().union(label.stems, *(r.stems for r in readings))
    words = frozenset().union(label.lower, *(r.lower for r in readings))
    evidence = SourceEvidence(0, label, readings, vectors, stems, words)
    with lexicon.lock:
        lexicon.sections[key] = evidence
        while len(lexicon.sections) > SECTION_CACHE:
            lexicon.sections.popitem(last=False)
    return evidence
