"""What the answer-sentence ranker sees of a (question, sentence, section): one row of numbers.

Every feature is about language and page structure, never about a particular site: how close
the sentence is to the question (embedding cosine, word coverage, question words weighted by
how rare they are on the site, found in the sentence and in its section's heading), where it
stands (its section's rank and similarity, its place in the section, how close its neighbours
are, whether the sentence before introduces it), what it adds (words the question did not
have, or only a restatement, a lead-in, a question, a plan), and whether it holds the kind of
thing the question asks for (`generate/answer_types.py`). The answerability and follower models
read some of the same columns.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitecite.generate.answer_types import (
    asked_noun,
    asks_for_steps,
    expected_answer,
    new_detail,
    question_type,
    traits,
    type_match,
)
from sitecite.generate.base import Context
from sitecite.generate.evidence import WordCoverage, focus_words
from sitecite.ingest.kinds import CODE, PUBLISHED, QUOTABLE
from sitecite.question import proper_names
from sitecite.screen import answer_kind
from sitecite.text import stem, words
from sitecite.tokens import content_stems
from sitecite.types import Section

# the reader's readings of sentences, from their vectors and their cosines with the question
Read = Callable[[np.ndarray, np.ndarray], np.ndarray]

FEATURES = (
    # how close it is to the question
    "cosine",
    "coverage",
    "overlap",
    "idf_overlap",
    "context_idf",
    "topicality",
    "asked_noun",
    "reader",  # the reader's reading (generate/reader.py): a model trained here
    # where it stands
    "section_cosine",
    "section_rank",
    "heading_overlap",
    "heading_idf",
    "position",
    "prev_cosine",
    "next_cosine",
    "after_lead_in",
    # what it adds to the question
    "length",
    "novelty",
    "restates",
    "new_detail",
    "lead_in",
    "question_mark",
    "planned",
    # whether it holds what the question asks for
    "type_match",
    "number_for_count",
    "date_for_when",
    "place_for_where",
    "name_for_which",
    "reason_for_why",
    "step_for_how",
    "names_in_sentence",
    "names_in_section",
    "has_number",
    "has_name",
    # what kind of text it is
    "item",
    "row",
    "fact",
    "summary",
    "first_person",
)


def candidate_kinds(question: str) -> frozenset[str]:
    """Which sentence kinds may answer: every quotable one, but a page's publication date only
    when the question asks when, and a command only when it asks how to do something."""
    kinds = QUOTABLE if answer_kind(question) == "date" else QUOTABLE - {PUBLISHED}
    return kinds | {CODE} if asks_for_steps(question) else kinds


@dataclass(frozen=True)
class Candidate:
    """One sentence of an admitted section, where it stands, and the ranker's view of it."""

    section_position: int  # rank among the admitted sections (0 = best)
    sentence_position: int  # index among the section's sentences
    text: str
    kind: str
    cosine: float
    coverage: float
    terms: frozenset[str] = frozenset()  # its stemmed content words


@dataclass
class Asked:
    """What the question asks, read once: its focus words and their stems, the noun it asks
    for ("What *dataset* did he use"), its proper names, and its type."""

    focus: list[str]
    stems: set[str]
    idf: dict[str, float]
    noun: WordCoverage
    names: list[str]
    kind: str
    question_words: set[str]


def read_question(context: Context, question: str, needs_noun: bool = True) -> Asked:
    index = context.index
    focus = focus_words(question, index.subject_words)
    stems = {stem(word) for word in focus}
    noun = asked_noun(question) if needs_noun else ""
    names = [n.lower() for n in proper_names(question) if not index.is_subject(n)]
    return Asked(
        focus,
        stems,
        _idf(context, stems),
        WordCoverage(context, [noun] if noun else []),
        names,
        question_type(question),
        {w.lower() for w in words(question)},
    )


@dataclass
class Candidates:
    """The candidate sentences of one question (or part), a row of features for each (columns
    `names`), what the question asks, and every content word the admitted sections use."""

    items: list[Candidate]
    matrix: np.ndarray
    names: tuple[str, ...]
    asked: Asked
    seen: frozenset[str]
    section_terms: list[frozenset[str]]  # per admitted section: every content word it uses

    def column(self, name: str) -> np.ndarray:
        return self.matrix[:, self.names.index(name)]


def candidates_and_features(
    context: Context,
    vector: np.ndarray,
    question: str,
    kinds: frozenset[str],
    names: Sequence[str] = FEATURES,
    read: Read | None = None,
) -> Candidates:
    """Every sentence of the admitted sections whose kind is in `kinds`, and a row of the named
    features for each (only those are computed: serving asks for the models' few). `read`
    gives the reader's readings of sentences from their vectors and their cosines with
    `vector` (generate/reader.py); without it the "reader" column is 0."""
    asked = read_question(context, question, "asked_noun" in names)
    coverage = WordCoverage(context, asked.focus)
    wanted = frozenset(names)
    section_cosines = context.index.vectors[context.rows] @ vector if context.rows else []
    candidates: list[Candidate] = []
    rows: list[list[float]] = []
    section_terms: list[frozenset[str]] = []
    for position, (row, section) in enumerate(zip(context.rows, context.sections, strict=True)):
        span = context.index.sentence_rows(row)
        if not len(span):
            section_terms.append(frozenset())
            continue
        sentence_vectors = context.index.sentence_vectors[span.start : span.stop]
        cosines = sentence_vectors @ vector
        readings = (
            read(sentence_vectors, cosines)
            if read is not None and "reader" in wanted
            else np.zeros(len(cosines))
        )
        where = _section_features(asked, section, wanted, float(section_cosines[position]))
        where["section_rank"] = 1.0 / (1.0 + position)
        if "topicality" in wanted:
            # a summary restates its section's topic; an answer is about something narrower
            topical = sentence_vectors @ context.index.vectors[row]
        vocabulary = context.index.sentence_vocabulary(row)
        # a sentence under "Homelab" is about the homelab: its heading counts as its words
        covers = coverage.of_many(vocabulary)
        nouns = asked.noun.of_many(vocabulary) if "asked_noun" in wanted else None
        terms = context.index.sentence_terms(row)
        section_terms.append(where["heading_terms"].union(*terms))
        pairs = zip(section.sentences, section.sentence_kinds, strict=True)
        for number, (text, kind) in enumerate(pairs):
            if kind not in kinds:
                continue
            covered = float(covers[number])
            cosine = float(cosines[number])
            candidates.append(
                Candidate(position, number, text, kind, cosine, covered, terms[number])
            )
            values = sentence_features(asked, text, kind, terms[number], number, wanted)
            values.update(where, cosine=cosine, coverage=covered)
            values["context_idf"] = _idf_share(asked, terms[number] | where["heading_terms"])
            values["reader"] = float(readings[number])
            if "topicality" in wanted:
                values["topicality"] = float(topical[number])
            if nouns is not None:
                values["asked_noun"] = float(nouns[number]) if asked.noun.focus else 0.0
            values.update(_neighbours(section, cosines, number))
            rows.append([values[name] for name in names])
    matrix = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(names))
    seen = frozenset().union(*section_terms)
    return Candidates(candidates, matrix, tuple(names), asked, seen, section_terms)


def _section_features(
    asked: Asked, section: Section, wanted: frozenset[str], cosine: float
) -> dict[str, Any]:
    heading = frozenset(content_stems(f"{section.title} {section.heading}"))
    values: dict[str, Any] = {
        "section_cosine": cosine,
        "heading_terms": heading,
        "heading_overlap": _share(asked.stems, heading),
        "heading_idf": _idf_share(asked, heading),
    }
    if "names_in_section" in wanted:
        text = f"{section.title} {section.heading} {section.text}"
        values["names_in_section"] = _names_in(asked.names, text)
    return values


def _neighbours(section: Section, cosines: np.ndarray, number: int) -> dict[str, float]:
    """How close the sentences around it are to the question, and whether the one before
    introduces it ("...a list of my daily drivers:"): an answer often follows the sentence that
    restates the question."""
    last = len(section.sentences) - 1
    return {
        "prev_cosine": float(cosines[number - 1]) if number else 0.0,
        "next_cosine": float(cosines[number + 1]) if number < last else 0.0,
        "after_lead_in": float(bool(number) and section.sentences[number - 1].endswith(":")),
    }


def sentence_features(
    asked: Asked,
    text: str,
    kind: str,
    terms: frozenset[str],
    number: int,
    wanted: frozenset[str] = frozenset(FEATURES),
) -> dict[str, float]:
    """The features of one sentence that need only the question and the sentence; the costly
    ones only when `wanted`."""
    shared = asked.stems & terms
    values = {
        "overlap": _share(asked.stems, terms),
        "idf_overlap": _idf_share(asked, terms),
        "position": 1.0 / (1.0 + number),
        "length": math.log1p(len(text.split())),
        "novelty": min(1.0, len(terms - asked.stems) / 8.0),
        "restates": len(shared) / len(terms) if terms else 1.0,
        "lead_in": float(text.rstrip().endswith(":")),
        "question_mark": float(text.rstrip().endswith("?")),
        "item": float(kind == "item"),
        "row": float(kind == "row"),
        "fact": float(kind == "fact"),
        "summary": float(kind == "summary"),
    }
    held = traits(text, kind)
    values.update(
        planned=float(held.planned),
        new_detail=float(new_detail(held, asked.question_words)),
        type_match=type_match(asked.kind, held),
        has_number=float(held.number),
        has_name=float(held.name),
        first_person=float(held.first_person),
        **expected_answer(asked.kind, held, asked.question_words),
    )
    if "names_in_sentence" in wanted:
        values["names_in_sentence"] = _names_in(asked.names, text)
    return values


def _idf_share(asked: Asked, terms: frozenset[str]) -> float:
    """The share of the question's rarity-weighted words that `terms` holds."""
    total = sum(asked.idf.values())
    return sum(asked.idf[t] for t in asked.stems & terms) / total if total else 0.0


def _share(wanted: set[str], found: Iterable[str]) -> float:
    return len(wanted & set(found)) / len(wanted) if wanted else 0.0


def _names_in(names: list[str], text: str) -> float:
    """The share of the question's proper names that the text mentions (1 when it has none)."""
    if not names:
        return 1.0
    lowered = text.lower()
    return sum(name in lowered for name in names) / len(names)


def _idf(context: Context, terms: set[str]) -> dict[str, float]:
    """Inverse section frequency of each question term on the whole site (rare words count)."""
    frequency = context.index.term_frequency
    total = max(1, context.index.site_sections)
    return {t: math.log(1.0 + total / (1.0 + frequency.get(t, 0))) for t in terms}
