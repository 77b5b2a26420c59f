"""The extractive generator: quotes the admitted sentences that best answer the question.

It cannot invent anything: every sentence it returns is copied verbatim from an admitted
section and cited. It refuses unless the evidence is good enough, on three counts, each
recorded as a Check in the Trace:

- `entities`: every proper name in the question (Google, Delft, John Doe) occurs on the site;
- `answer_kind`: a question asking for a kind of thing (an age, an amount of money, a phone
  number, a count of something) is answered only by a sentence containing that kind of thing;
- `support`: some sentence reaches both calibrated thresholds: its cosine with the question,
  and its coverage of the question's focus words (an exact word counts 1, another word the
  cosine of the closest word in the sentence). Coverage is what similarity alone misses:
  "What are Noor's political views?" is close to "Hi, I'm Noor." but that sentence covers
  neither "political" nor "views".

Sentences are ranked by cosine plus half their coverage.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sitecite.generate.base import Context, Generator
from sitecite.generate.evidence import WordCoverage, focus_words, proper_names, question_parts
from sitecite.screen import answer_kind, has_answer_kind
from sitecite.text import stem
from sitecite.types import Check, Draft

DEFAULT_SENTENCE_THRESHOLD = 0.0
DEFAULT_COVERAGE_THRESHOLD = 0.51
COVERAGE_WEIGHT = 0.5
SECOND_SENTENCE_MARGIN = 0.08
CALIBRATION_PAIRS = 30  # (cosine, coverage) of the top sentences, kept for `sitecite calibrate`


@dataclass(frozen=True)
class ScoredSentence:
    section_position: int
    text: str
    score: float
    cosine: float
    coverage: float


class ExtractiveGenerator(Generator):
    """Quote-and-cite: picks sentences from the admitted sections by embedding similarity."""

    name = "extractive"

    def __init__(
        self,
        sentence_threshold: float = DEFAULT_SENTENCE_THRESHOLD,
        max_sentences: int = 3,
        coverage_threshold: float = DEFAULT_COVERAGE_THRESHOLD,
    ) -> None:
        self.sentence_threshold = sentence_threshold
        self.coverage_threshold = coverage_threshold
        self.max_sentences = max_sentences

    def generate(self, context: Context) -> Draft:
        checks: list[Check] = []
        unknown = [
            n
            for n in proper_names(context.question)
            if n.lower() not in context.index.word_set
            and stem(n.lower()) not in context.index.vocabulary
        ]
        checks.append(
            Check(
                "entities",
                not unknown,
                f"not on the site: {', '.join(unknown)}" if unknown else "all names occur",
            )
        )
        if unknown:
            return self._refuse("unknown_entity", checks)

        parts = question_parts(context.question)
        vectors = [context.query_vector] if len(parts) == 1 else list(context.embedder.embed(parts))
        chosen: list[ScoredSentence] = []
        missing_kind: list[str] = []
        support_details: list[str] = []
        pairs: list[list[float]] = []
        for part, vector in zip(parts, vectors, strict=True):
            ranked = self._rank(context, vector, part)
            kind = context.answer_kind if len(parts) == 1 else answer_kind(part)
            if kind:
                ranked = [s for s in ranked if has_answer_kind(kind, s.text, part)]
                if not ranked:
                    missing_kind.append(f"'{part}' asks for {kind}; no admitted sentence has one")
                    continue
            pairs = pairs or [
                [round(s.cosine, 4), round(s.coverage, 4)] for s in ranked[:CALIBRATION_PAIRS]
            ]
            taken = {s.text for s in chosen}
            supported = [s for s in ranked if self.supports(s) and s.text not in taken]
            support_details.append(_support_detail(part, ranked, supported, self))
            if supported:
                room = self.max_sentences if len(parts) == 1 else 1
                chosen.extend(_best_with_followers(supported, room))

        if context.answer_kind or any(answer_kind(p) for p in parts):
            detail = "; ".join(missing_kind) or "every part that asks for a kind of answer has one"
            checks.append(Check("answer_kind", not missing_kind or bool(chosen), detail))
            if len(missing_kind) == len(parts):
                return self._refuse("answer_kind", checks)
        checks.append(Check("support", bool(chosen), "; ".join(support_details), {"pairs": pairs}))
        if not chosen:
            return self._refuse("low_support", checks)
        return self._compose(chosen[: self.max_sentences], checks)

    def supports(self, sentence: ScoredSentence) -> bool:
        """A sentence may answer when it is similar enough and covers enough of the question."""
        return (
            sentence.cosine >= self.sentence_threshold
            and sentence.coverage >= self.coverage_threshold
        )

    def _rank(self, context: Context, vector: np.ndarray, question: str) -> list[ScoredSentence]:
        """Every sentence of the admitted sections, scored by cosine plus how well it covers the
        question's focus words (exact word = 1, otherwise the closest word's cosine)."""
        coverage = WordCoverage(context, focus_words(question, context.index.subject_words))
        scored: list[ScoredSentence] = []
        for position, (row, section) in enumerate(zip(context.rows, context.sections, strict=True)):
            rows = context.index.sentence_rows(row)
            if not len(rows):
                continue
            cosines = context.index.sentence_vectors[rows.start : rows.stop] @ vector
            for text, cosine in zip(section.sentences, cosines, strict=True):
                covered = coverage.of(text)
                score = float(cosine) + COVERAGE_WEIGHT * covered
                scored.append(ScoredSentence(position, text, score, float(cosine), covered))
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


def _best_with_followers(supported: list[ScoredSentence], room: int) -> list[ScoredSentence]:
    """The best sentence, and those scoring within a small margin of it, up to `room`."""
    best = supported[0]
    followers = [s for s in supported[1:] if s.score >= best.score - SECOND_SENTENCE_MARGIN]
    return [best, *followers][:room]


def _support_detail(
    part: str,
    ranked: list[ScoredSentence],
    supported: list[ScoredSentence],
    generator: ExtractiveGenerator,
) -> str:
    if not ranked:
        return f"'{part}': no sentences in the admitted sections"
    top = ranked[0]
    return (
        f"'{part}': top sentence cosine {top.cosine:.3f}, coverage {top.coverage:.2f}; thresholds "
        f"{generator.sentence_threshold:.3f} and {generator.coverage_threshold:.2f}; "
        f"{len(supported)} sentence(s) clear both"
    )
