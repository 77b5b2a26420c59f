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

import re
from dataclasses import dataclass

from sitecite.generate.base import Context, Generator
from sitecite.screen import has_answer_kind
from sitecite.text import STOPWORDS, stem, words
from sitecite.types import Check, Draft

DEFAULT_SENTENCE_THRESHOLD = 0.0
DEFAULT_COVERAGE_THRESHOLD = 0.51
COVERAGE_WEIGHT = 0.5
SECOND_SENTENCE_MARGIN = 0.08
CALIBRATION_PAIRS = 30  # (cosine, coverage) of the top sentences, kept for `sitecite calibrate`
# Words that frame a question rather than say what it is about.
QUESTION_WORDS = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "does",
        "did",
        "do",
        "is",
        "are",
        "was",
        "were",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "has",
        "have",
        "had",
        "tell",
        "know",
        "like",
        "kind",
        "sort",
        "type",
        "thing",
        "things",
        "anything",
        "something",
        "someone",
        "anyone",
        "ever",
        "really",
        "actually",
        "exactly",
        "roughly",
        "currently",
        "still",
        "yet",
        "much",
        "many",
        "long",
        "often",
        "get",
        "got",
        "go",
        "going",
        "make",
        "made",
        "say",
        "said",
        "said",
        "think",
        "thought",
        "mean",
        "use",
        "used",
        "need",
        "want",
        "give",
        "show",
        "describe",
        "explain",
        "mention",
        "mentioned",
        "talk",
        "talked",
        "site",
        "website",
        "page",
        "her",
        "his",
        "their",
        "she",
        "he",
        "they",
        "him",
        "them",
    ]
)
_CAPITALISED = re.compile(r"(?<![\w'’])([A-Z][\w'’&.-]*[\w])")


@dataclass(frozen=True)
class ScoredSentence:
    section_position: int
    text: str
    score: float
    cosine: float
    coverage: float


class WordCoverage:
    """How much of the question's focus a sentence covers, word by word, using the site's
    vocabulary vectors (stored in the index) so it costs one small embedding call per question."""

    def __init__(self, context: Context, focus: list[str]) -> None:
        self.focus = list(dict.fromkeys(focus))
        self.rows = context.index.word_rows
        self.word_vectors = context.index.word_vectors
        usable = bool(self.focus) and self.word_vectors.shape[0] > 0
        self.focus_vectors = context.embedder.embed(self.focus) if usable else None

    def of(self, sentence: str) -> float:
        if not self.focus:
            return 1.0
        present = {w for w in words(sentence) if w in self.rows}
        if self.focus_vectors is None or not present:
            return sum(w in present for w in self.focus) / len(self.focus)
        similarity = self.focus_vectors @ self.word_vectors[[self.rows[w] for w in present]].T
        best = [
            1.0 if word in present else float(similarity[i].max())
            for i, word in enumerate(self.focus)
        ]
        return sum(best) / len(best)


_CONTRACTION = re.compile(r"['’](s|re|ve|ll|d|m|t)$|n['’]t$")


def proper_names(question: str) -> list[str]:
    """Capitalised words that do not start a sentence: names of things (Google, Delft, John)."""
    tokens = question.split()
    if tokens and sum(t[:1].isupper() for t in tokens) > 0.6 * len(tokens):
        return []  # Title Case Question: capitals say nothing
    names = []
    for match in _CAPITALISED.finditer(question):
        before = question[: match.start()].rstrip()
        if not before or before[-1] in '.?!:;"(<>':
            continue
        for part in re.split(r"[-/]", _CONTRACTION.sub("", match.group(1).rstrip("."))):
            if len(part) > 1 and part.lower() not in STOPWORDS and part[:1].isupper():
                names.append(part)
    return names


def focus_words(question: str, subject: frozenset[str] = frozenset()) -> list[str]:
    """The words a question is about: no stop words, question words, numbers or the site owner."""
    found = []
    for token in words(question):
        for part in re.split(r"[-/]", _CONTRACTION.sub("", token)):
            if (
                len(part) > 2
                and part.isalpha()
                and part not in STOPWORDS
                and part not in QUESTION_WORDS
                and part not in subject
            ):
                found.append(part)
    return found


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

        ranked = self._rank(context)
        kind = context.answer_kind
        if kind:
            ranked = [s for s in ranked if has_answer_kind(kind, s.text, context.question)]
            checks.append(
                Check(
                    "answer_kind",
                    bool(ranked),
                    f"asks for {kind}; " + ("found" if ranked else "no admitted sentence has one"),
                )
            )
            if not ranked:
                return self._refuse("answer_kind", checks)
        supported = [s for s in ranked if self.supports(s)]
        top = ranked[0] if ranked else None
        detail = (
            f"top sentence cosine {top.cosine:.3f}, coverage {top.coverage:.2f}; thresholds "
            f"{self.sentence_threshold:.3f} and {self.coverage_threshold:.2f}; "
            f"{len(supported)} sentence(s) clear both"
            if top
            else "no sentences in the admitted sections"
        )
        pairs = [[round(s.cosine, 4), round(s.coverage, 4)] for s in ranked[:CALIBRATION_PAIRS]]
        checks.append(Check("support", bool(supported), detail, {"pairs": pairs}))
        if not supported:
            return self._refuse("low_support", checks)

        best = supported[0]
        chosen = [best]
        for candidate in supported[1:]:
            if len(chosen) >= self.max_sentences:
                break
            if candidate.score >= best.score - SECOND_SENTENCE_MARGIN:
                chosen.append(candidate)
        return self._compose(chosen, checks)

    def supports(self, sentence: ScoredSentence) -> bool:
        """A sentence may answer when it is similar enough and covers enough of the question."""
        return (
            sentence.cosine >= self.sentence_threshold
            and sentence.coverage >= self.coverage_threshold
        )

    def _rank(self, context: Context) -> list[ScoredSentence]:
        """Every sentence of the admitted sections, scored by cosine plus how well it covers the
        question's focus words (exact word = 1, otherwise the closest word's cosine)."""
        coverage = WordCoverage(context, focus_words(context.question, context.index.subject_words))
        scored: list[ScoredSentence] = []
        for position, (row, section) in enumerate(zip(context.rows, context.sections, strict=True)):
            rows = context.index.sentence_rows(row)
            if not len(rows):
                continue
            cosines = context.index.sentence_vectors[rows.start : rows.stop] @ context.query_vector
            for text, cosine in zip(section.sentences, cosines, strict=True):
                covered = coverage.of(text)
                scored.append(
                    ScoredSentence(
                        position,
                        text,
                        float(cosine) + COVERAGE_WEIGHT * covered,
                        float(cosine),
                        covered,
                    )
                )
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
