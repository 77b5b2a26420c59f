"""The extractive generator: quotes the admitted sentences that best answer the question.

It cannot invent anything: every sentence it returns is copied verbatim from an admitted
section and cited. It refuses unless the evidence is good enough, on four counts, each
recorded as a Check in the Trace:

- `entities`: every proper name in the question (Google, Delft, John Doe) occurs on the site;
- `topic`: every content word of the question occurs on the site, or a close neighbour does;
- `answer_kind`: a question asking for a kind of thing (an age, an amount of money, a phone
  number) is answered only by a sentence containing that kind of thing;
- `support`: the best sentence scores at least the calibrated sentence threshold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sitecite.generate.base import Context, Generator
from sitecite.screen import has_answer_kind
from sitecite.text import STOPWORDS, stem, words
from sitecite.types import Check, Draft

DEFAULT_SENTENCE_THRESHOLD = 0.40
LEXICAL_WEIGHT = 0.15
SECOND_SENTENCE_MARGIN = 0.08
# Words that frame a question rather than say what it is about.
QUESTION_WORDS = frozenset(
    """what which who whom whose when where why how does did do is are was were can could would
    should will shall has have had tell know like kind sort type thing things anything something
    someone anyone ever really actually exactly roughly currently still yet much many long often
    get got go going make made say said said think thought mean use used need want give show
    describe explain mention mentioned talk talked site website page her his their she he they
    him them noor""".split()
)
_CAPITALISED = re.compile(r"(?<![\w'’])([A-Z][\w'’&.-]*[\w])")


@dataclass(frozen=True)
class ScoredSentence:
    section_position: int
    text: str
    score: float
    cosine: float


def proper_names(question: str) -> list[str]:
    """Capitalised words that are not the first word of a sentence: names of things."""
    tokens = question.split()
    if tokens and sum(t[:1].isupper() for t in tokens) > 0.6 * len(tokens):
        return []  # Title Case Question: capitals say nothing
    names = []
    for match in _CAPITALISED.finditer(question):
        start = match.start()
        before = question[:start].rstrip()
        if not before or before[-1] in ".?!:;\"(<>" or match.group(1) == "I":
            continue
        names.append(match.group(1).rstrip(".").removesuffix("'s").removesuffix("’s"))
    return names


def focus_words(question: str) -> list[str]:
    return [w for w in words(question) if len(w) > 2 and w not in STOPWORDS
            and w not in QUESTION_WORDS and not w.isdigit()]


class ExtractiveGenerator(Generator):
    """Quote-and-cite: picks sentences from the admitted sections by embedding similarity."""

    name = "extractive"

    def __init__(self, sentence_threshold: float = DEFAULT_SENTENCE_THRESHOLD,
                 max_sentences: int = 3, word_threshold: float = 0.55) -> None:
        self.sentence_threshold = sentence_threshold
        self.max_sentences = max_sentences
        self.word_threshold = word_threshold

    def generate(self, context: Context) -> Draft:
        checks: list[Check] = []
        unknown = [n for n in proper_names(context.question)
                   if stem(n.lower()) not in context.index.vocabulary
                   and n.lower() not in context.index.vocabulary]
        checks.append(Check("entities", not unknown,
                             f"not on the site: {', '.join(unknown)}" if unknown else "all names occur"))
        if unknown:
            return self._refuse("unknown_entity", checks)

        absent = context.absent_words(focus_words(context.question), self.word_threshold)
        checks.append(Check("topic", not absent,
                            f"no word on the site close to: {', '.join(absent)}" if absent
                            else "every content word (or a close neighbour) occurs"))
        if absent:
            return self._refuse("off_topic", checks)

        ranked = self._rank(context)
        kind = context.answer_kind
        if kind:
            ranked = [s for s in ranked if has_answer_kind(kind, s.text)]
            checks.append(Check("answer_kind", bool(ranked),
                                f"asks for {kind}; " + ("found" if ranked else "no admitted sentence has one")))
            if not ranked:
                return self._refuse("answer_kind", checks)
        best = ranked[0] if ranked else None
        passed = best is not None and best.score >= self.sentence_threshold
        detail = (f"best sentence {best.score:.3f} vs threshold {self.sentence_threshold:.3f}"
                  if best else "no sentences in the admitted sections")
        checks.append(Check("support", passed, detail))
        if not passed or best is None:
            return self._refuse("low_support", checks)

        chosen = [best]
        for candidate in ranked[1:]:
            if len(chosen) >= self.max_sentences:
                break
            if candidate.score >= max(self.sentence_threshold, best.score - SECOND_SENTENCE_MARGIN):
                chosen.append(candidate)
        return self._compose(chosen, checks)

    def _rank(self, context: Context) -> list[ScoredSentence]:
        """Every sentence of the admitted sections, scored by cosine plus word overlap."""
        focus = {stem(w) for w in focus_words(context.question)}
        scored: list[ScoredSentence] = []
        for position, (row, section) in enumerate(zip(context.rows, context.sections, strict=True)):
            rows = context.index.sentence_rows(row)
            if not len(rows):
                continue
            cosines = context.index.sentence_vectors[rows.start : rows.stop] @ context.query_vector
            for text, cosine in zip(section.sentences, cosines, strict=True):
                overlap = len(focus & {stem(w) for w in words(text)}) / len(focus) if focus else 0.0
                scored.append(ScoredSentence(position, text, float(cosine) + LEXICAL_WEIGHT * overlap,
                                             float(cosine)))
        scored.sort(key=lambda s: -s.score)
        return scored

    def _compose(self, chosen: list[ScoredSentence], checks: list[Check]) -> Draft:
        """Sentences in reading order per section; citations numbered by first use."""
        numbers: dict[int, int] = {}
        parts = []
        for sentence in chosen:
            n = numbers.setdefault(sentence.section_position, len(numbers) + 1)
            parts.append(f"{sentence.text} [{n}]")
        cited = tuple(sorted(numbers, key=numbers.__getitem__))
        return Draft(" ".join(parts), cited, False, self.name, checks=tuple(checks))

    def _refuse(self, reason: str, checks: list[Check]) -> Draft:
        return Draft("", (), True, self.name, refusal_reason=reason, checks=tuple(checks))
