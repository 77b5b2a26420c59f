"""Does the site answer this at all? The decision to refuse, fitted on near misses.

A near miss sounds answered: same page, same words, but it asks for a detail the site does not
give (a price, a date, a reason, a name). Its best sentence can be as close to the question as
a real answer's; what differs is what is missing: the kind of thing asked for (a number, a
date, a new name), the question's rare words, which no admitted section uses, and how clearly
one sentence stands out. These are read from the ranked candidates of one question (or part)
and fed to a logistic regression fitted by `bench/train_answerable.py` on the unanswerable near
misses of bench/answerdata and the real sites' dev abstention questions against answerable
questions; its threshold was chosen there, on dev data, for at least 90% of them refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sitecite.generate.features import Candidates
from sitecite.generate.ranker import Ranker, shipped_model

WEIGHTS = "answerable.json"
ANSWERABLE_FEATURES = (
    "lead_score",
    "margin",
    "lead_cosine",
    "lead_coverage",
    "lead_idf",
    "lead_context_idf",
    "lead_heading_idf",
    "lead_expected",
    "any_expected",
    "best_section_cosine",
    "unseen",
    "lead_section_unseen",
    "rarest_unseen",
    "lead_noun",
    "best_noun",
    "eligible",
    "lead_names",
    "lead_planned",
    "lead_reader",
)
EXPECTED = (
    *("number_for_count", "date_for_when", "place_for_where", "name_for_which"),
    *("reason_for_why", "step_for_how"),
)
# The candidate features these rows are made of.
NEEDS = (
    *("cosine", "coverage", "idf_overlap", "context_idf", "heading_idf", "section_cosine"),
    *EXPECTED,
    "names_in_section",
    "asked_noun",
    "planned",
    "reader",
)
TOP = 3  # how many of the best sentences may hold the kind of thing asked for


@dataclass(frozen=True)
class Ranked:
    """One question's candidates, their ranker scores, and the candidates that may answer
    (indexes into `candidates.items`, best first)."""

    candidates: Candidates
    scores: np.ndarray
    eligible: Sequence[int]


def answerable_row(ranked: Ranked) -> np.ndarray:
    """The features of the decision, in the order of ANSWERABLE_FEATURES."""
    found = ranked.candidates
    lead = ranked.eligible[0]
    second = ranked.eligible[1] if len(ranked.eligible) > 1 else None
    expected = expected_column(found)
    idf = found.asked.idf
    section = found.section_terms[found.items[lead].section_position]
    missing = {t: v for t, v in idf.items() if t not in section}
    nouns = found.column("asked_noun")
    values = {
        "lead_score": ranked.scores[lead],
        "margin": ranked.scores[lead] - ranked.scores[second] if second is not None else 1.0,
        "lead_cosine": found.column("cosine")[lead],
        "lead_coverage": found.column("coverage")[lead],
        "lead_idf": found.column("idf_overlap")[lead],
        "lead_context_idf": found.column("context_idf")[lead],
        "lead_heading_idf": found.column("heading_idf")[lead],
        "lead_expected": expected[lead],
        "any_expected": max(expected[i] for i in ranked.eligible[:TOP]),
        "best_section_cosine": found.column("section_cosine").max(),
        "unseen": _share(idf, found.seen),
        "lead_section_unseen": _share(idf, section),
        "rarest_unseen": max(missing.values(), default=0.0) / max(idf.values(), default=1.0),
        "lead_noun": nouns[lead],
        "best_noun": max(nouns[i] for i in ranked.eligible[:TOP]),
        "eligible": math.log1p(len(ranked.eligible)),
        "lead_names": found.column("names_in_section")[lead],
        "lead_planned": found.column("planned")[lead],
        "lead_reader": found.column("reader")[lead],
    }
    return np.array([float(values[name]) for name in ANSWERABLE_FEATURES])


def _share(idf: dict[str, float], found: frozenset[str]) -> float:
    """The share of the question's rarity-weighted words that `found` lacks."""
    total = sum(idf.values())
    return sum(v for t, v in idf.items() if t not in found) / total if total else 0.0


def expected_column(found: Candidates) -> np.ndarray:
    """Per candidate, 1 when it holds the kind of thing the question asks for."""
    return np.sum([found.column(name) for name in EXPECTED], axis=0)


def default_answerability() -> Ranker:
    """The answerability model shipped with sitecite."""
    return shipped_model(WEIGHTS, ANSWERABLE_FEATURES)
