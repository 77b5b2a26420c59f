"""What the answer-sentence ranker sees of a (question, sentence) pair: one row of numbers.

Every feature is about language and page structure, never about a particular site: how close
the sentence is to the question (embedding cosine, word coverage, shared words weighted by how
rare they are on the site), where it stands (its section's rank and similarity, its place in the
section, whether the section's heading names the question's words), what it adds (words the
question did not have), and whether it holds the kind of thing the question asks for (who -> a
name, when -> a date, how many -> a number, why -> a reason, how -> a method).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sitecite.generate.base import Context
from sitecite.generate.evidence import WordCoverage, focus_words
from sitecite.text import content_terms, stem

FEATURES = (
    "cosine",
    "coverage",
    "overlap",
    "idf_overlap",
    "section_cosine",
    "section_rank",
    "heading_overlap",
    "position",
    "length",
    "novelty",
    "cosine_gap",
    "coverage_gap",
    "type_match",
    "has_number",
    "has_name",
    "item",
    "row",
    "fact",
    "first_person",
)

QUESTION_TYPES = ("who", "when", "where", "count", "why", "how", "which", "yesno", "what")
_TYPE_PATTERNS = (
    ("count", r"\bhow\s+(many|much|long|old|often|big|large|fast)\b|\bwhat\s+(number|share)\b"),
    (
        "when",
        r"^\W*(when|what\s+(year|date|time|day|month)|which\s+(year|date|month)|since\s+when)\b",
    ),
    ("where", r"^\W*where\b|\bwhich\s+(city|country|place|town|state)\b"),
    ("who", r"^\W*(who|whom|whose)\b|\bwhich\s+(person|people|company|team)\b"),
    ("why", r"\bwhy\b|\bwhat\s+(made|makes|caused|causes|led)\b|\bfor\s+what\s+reason\b"),
    ("how", r"\bhow\s+(do|does|did|can|could|should|would|to|is|are|was|were)\b|^\W*how\b"),
    ("which", r"^\W*which\b"),
    ("yesno", r"^\W*(is|are|was|were|does|do|did|can|could|has|have|had|will|would|should)\b"),
)
_COMPILED = tuple((name, re.compile(pattern, re.IGNORECASE)) for name, pattern in _TYPE_PATTERNS)
_NUMBER = re.compile(r"\d")
_DATE = re.compile(
    r"\b(1[6-9]\d\d|20\d\d)\b|\b(january|february|march|april|may|june|july|august|september|"
    r"october|november|december|yesterday|today|ago|century|decade)\b",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<=\S\s)[A-Z][\w.+-]*[A-Za-z0-9+]")
_PLACE = re.compile(r"\b(in|at|from|near|to|based)\s+(the\s+)?[A-Z][a-z]")
_REASON = re.compile(
    r"\b(because|since|so that|due to|as a result|in order to|reason|so|thanks to|caused|"
    r"why|therefore|hence|led|which meant|to avoid|to make)\b",
    re.IGNORECASE,
)
_METHOD = re.compile(
    r"\b(by|using|use|uses|used|with|through|via|run|install|add|set|create|first|then|step)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"\b(I|I'm|I've|I'd|I'll|my|me|we|our|us)\b")


def question_type(question: str) -> str:
    """The kind of answer a question wants, by its wording."""
    for name, pattern in _COMPILED:
        if pattern.search(question):
            return name
    return "what"


def type_match(kind: str, sentence: str) -> float:
    """Whether the sentence holds the kind of thing the question type asks for."""
    if kind == "count":
        return float(bool(_NUMBER.search(sentence)))
    if kind == "when":
        return float(bool(_DATE.search(sentence)))
    if kind == "where":
        return float(bool(_PLACE.search(sentence)))
    if kind in ("who", "which", "what"):
        return float(bool(_NAME.search(sentence)))
    if kind == "why":
        return float(bool(_REASON.search(sentence)))
    if kind == "how":
        return float(bool(_METHOD.search(sentence)))
    return 0.0


@dataclass(frozen=True)
class Candidate:
    """One sentence of an admitted section, where it stands, and the ranker's view of it."""

    section_position: int  # rank among the admitted sections (0 = best)
    sentence_position: int  # index among the section's sentences
    text: str
    kind: str
    cosine: float
    coverage: float


def candidates_and_features(
    context: Context, vector: np.ndarray, question: str, kinds: frozenset[str]
) -> tuple[list[Candidate], np.ndarray]:
    """Every sentence of the admitted sections whose kind is in `kinds`, and its feature row."""
    focus = focus_words(question, context.index.subject_words)
    coverage = WordCoverage(context, focus)
    asked = {stem(word) for word in focus}
    idf = _idf(context, asked)
    kind_of_question = question_type(question)
    section_cosines = context.index.vectors[context.rows] @ vector if context.rows else []
    candidates: list[Candidate] = []
    rows: list[list[float]] = []
    for position, (row, section) in enumerate(zip(context.rows, context.sections, strict=True)):
        span = context.index.sentence_rows(row)
        if not len(span):
            continue
        cosines = context.index.sentence_vectors[span.start : span.stop] @ vector
        heading = set(content_terms(f"{section.title} {section.heading}"))
        heading_overlap = len(asked & heading) / len(asked) if asked else 0.0
        pairs = zip(section.sentences, section.sentence_kinds, strict=True)
        for number, (text, kind) in enumerate(pairs):
            if kind not in kinds:
                continue
            terms = context.index.sentence_terms(row)[number]
            covered = coverage.of(text)
            candidates.append(
                Candidate(position, number, text, kind, float(cosines[number]), covered)
            )
            shared = asked & terms
            rows.append(
                [
                    float(cosines[number]),
                    covered,
                    len(shared) / len(asked) if asked else 0.0,
                    sum(idf[t] for t in shared) / (sum(idf.values()) or 1.0),
                    float(section_cosines[position]),
                    1.0 / (1.0 + position),
                    heading_overlap,
                    1.0 / (1.0 + number),
                    math.log1p(len(text.split())),
                    min(1.0, len(terms - asked) / 8.0),
                    0.0,
                    0.0,
                    type_match(kind_of_question, text),
                    float(bool(_NUMBER.search(text))),
                    float(bool(_NAME.search(text))),
                    float(kind == "item"),
                    float(kind == "row"),
                    float(kind == "fact"),
                    float(bool(_FIRST_PERSON.search(text))),
                ]
            )
    matrix = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))
    if len(rows):
        matrix[:, 10] = matrix[:, 0] - matrix[:, 0].max()
        matrix[:, 11] = matrix[:, 1] - matrix[:, 1].max()
    return candidates, matrix


def _idf(context: Context, terms: set[str]) -> dict[str, float]:
    """Inverse section frequency of each question term on the whole site (rare words count)."""
    frequency = context.index.term_frequency
    total = max(1, len(context.index.sections))
    return {t: math.log(1.0 + total / (1.0 + frequency.get(t, 0))) for t in terms}


def feature_names() -> Sequence[str]:
    return FEATURES
