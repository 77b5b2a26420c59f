"""What a context can vouch for: every sentence of the sections a model was given, read once
(content words, names, figures, stance), and the vectors of single words that let a claim's
paraphrase ("shoppers") find its source's word ("customers").

The site's vocabulary vectors come from the index (sitecite.index.build embeds every word of
the site once); a claim's word the site never uses is embedded when it is first needed and
kept in a small cache.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from sitecite.embed import Embedder
from sitecite.facts import Fact, facts
from sitecite.polarity import Stance, stance
from sitecite.text import split_sentences
from sitecite.tokens import STOPWORDS, stem, tokenize
from sitecite.types import Section

# Words about the sources rather than about the world: "According to her website, ..." or
# "She sums it up as ..." adds no claim of its own.
ATTRIBUTION = frozenset(
    """according site website page pages source sources quoted says say said mentions mention
    mentioned writes wrote describes described explains explained adds added recalls recalled
    sums summed here also yes""".split()
)
# Words that add no claim of their own: light verbs, intensifiers and connectives ("got much
# faster", "rather than", "compared with").
LIGHT = frozenset(
    """get gets got getting gotten much very really quite now still even well clearly actually
    simply just rather instead since versus otherwise including plus like compared alongside
    together whether although though yet despite unlike besides hence thus therefore however
    meanwhile moreover overall across along among amongst upon within onto toward towards
    behind beyond beside near around per happen happens happened""".split()
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
WORD_CACHE = 4096  # embedded words kept by a Lexicon


@dataclass(frozen=True)
class Reading:
    """One sentence read for verification."""

    text: str
    stems: frozenset[str]  # content words and the parts of hyphenated ones, stemmed
    surface: Mapping[str, str]  # content stem -> the lower-case word it was read from
    lower: frozenset[str]  # every lower-case word and part: where names are looked up
    facts: tuple[Fact, ...]
    stance: Stance


def read(text: str, ignore: frozenset[str] = frozenset(), claim: bool = False) -> Reading:
    """Read one sentence; words in `ignore` (the site owner's name) are not content. In a
    claim, neither are the units of its figures ("three years", "45-minute"), which the figure
    check holds to the sources; in a source every word can vouch for a claim's."""
    figures = tuple(facts(text))
    surface: dict[str, str] = {}
    lower: set[str] = set()
    skip = ignore | ATTRIBUTION | LIGHT
    bare = _CONNECTIVES.sub(lambda m: " " * len(m.group(0)), text)  # positions stay
    for token in tokenize(bare):
        lower.add(token.lower)
        lower.update(token.parts)
        if token.lower in skip or (claim and _inside(token.start, figures)):
            continue
        if token.content:
            surface.setdefault(token.stem, token.lower)
        for part in token.parts:
            if len(part) > 1 and part[0].isalpha() and part not in STOPWORDS | ignore:
                surface.setdefault(stem(part), part)
    return Reading(text, frozenset(surface), surface, frozenset(lower), figures, stance(text))


def _inside(position: int, figures: Sequence[Fact]) -> bool:
    return any(f.start <= position < f.end for f in figures)


class Lexicon:
    """Vectors of single words: the site's vocabulary, and any other word embedded on demand."""

    def __init__(
        self, rows: Mapping[str, int], vectors: np.ndarray, embedder: Embedder | None
    ) -> None:
        self.rows = rows
        self.vectors = vectors
        self.embedder = embedder
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def known(self, words: Sequence[str]) -> np.ndarray:
        """Vectors of the words the site uses (others are left out), one row each."""
        rows = [self.rows[w] for w in words if w in self.rows]
        return self.vectors[rows] if rows else np.zeros((0, self.dim), dtype=np.float32)

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1]) if self.vectors.ndim == 2 else 1

    def lookup(self, words: Sequence[str]) -> tuple[dict[str, np.ndarray], int]:
        """Vectors for `words` (site words from the index, others embedded in one call), and
        how many had to be embedded."""
        found: dict[str, np.ndarray] = {}
        missing = []
        with self._lock:
            for word in dict.fromkeys(words):
                if word in self.rows:
                    found[word] = self.vectors[self.rows[word]]
                elif word in self._cache:
                    self._cache.move_to_end(word)
                    found[word] = self._cache[word]
                else:
                    missing.append(word)
        if missing and self.embedder is not None:
            fresh = self.embedder.embed(missing)
            with self._lock:
                for word, vector in zip(missing, fresh, strict=True):
                    found[word] = self._cache[word] = vector
                while len(self._cache) > WORD_CACHE:
                    self._cache.popitem(last=False)
        return found, len(missing) if self.embedder is not None else 0


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
    rules: str = ""  # the model's own instructions, lower-case: never to be recited

    def __len__(self) -> int:
        return len(self.sections)

    def weight(self, stem_: str) -> float:
        return self.idf.get(stem_, 0.0)


def build_evidence(
    sections: Sequence[Section],
    lexicon: Lexicon,
    subject: frozenset[str] = frozenset(),
    question: str = "",
) -> Evidence:
    """Read every sentence of the context's sections (already quarantined by the pipeline)."""
    read_sections = []
    for position, section in enumerate(sections):
        texts = list(section.sentences) or split_sentences(section.text)
        label = read(f"{section.title}. {section.heading}", subject)
        readings = [read(t, subject) for t in texts]
        vectors = [lexicon.known([r.surface[s] for s in sorted(r.stems)]) for r in readings]
        stems = frozenset().union(label.stems, *(r.stems for r in readings))
        words = frozenset().union(label.lower, *(r.lower for r in readings))
        read_sections.append(SourceEvidence(position, label, readings, vectors, stems, words))
    counts: Counter[str] = Counter()
    total = 0
    for source in read_sections:
        for reading in source.sentences:
            counts.update(reading.stems)
            total += 1
    idf = {s: math.log(1 + (total + 1) / (n + 0.5)) for s, n in counts.items()}
    return Evidence(read_sections, lexicon, subject, idf, read(question, subject).stems)
