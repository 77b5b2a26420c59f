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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from sitecite.generate.base import Context
from sitecite.generate.evidence import WordCoverage, focus_words, proper_names
from sitecite.ingest.kinds import PUBLISHED, QUOTABLE
from sitecite.screen import answer_kind
from sitecite.text import STOPWORDS, stem, words
from sitecite.tokens import content_stems
from sitecite.types import Section

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
    "topicality",
    "asked_noun",
    "names_in_sentence",
    "names_in_section",
    "new_detail",
    "type_match",
    "has_number",
    "has_name",
    "item",
    "row",
    "fact",
    "summary",
    "first_person",
)

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


def candidate_kinds(question: str) -> frozenset[str]:
    """Which sentence kinds may answer: every quotable one, but a page's publication date only
    when the question asks when."""
    return QUOTABLE if answer_kind(question) == "date" else QUOTABLE - {PUBLISHED}


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


def candidates_and_features(
    context: Context,
    vector: np.ndarray,
    question: str,
    kinds: frozenset[str],
    names: Sequence[str] = FEATURES,
) -> tuple[list[Candidate], np.ndarray]:
    """Every sentence of the admitted sections whose kind is in `kinds`, and a row of the named
    features for each (only those are computed: serving asks for the ranker's few)."""
    asked = read_question(context, question, "asked_noun" in names)
    coverage = WordCoverage(context, asked.focus)
    wanted = frozenset(names)
    section_cosines = context.index.vectors[context.rows] @ vector if context.rows else []
    candidates: list[Candidate] = []
    rows: list[list[float]] = []
    for position, (row, section) in enumerate(zip(context.rows, context.sections, strict=True)):
        span = context.index.sentence_rows(row)
        if not len(span):
            continue
        sentence_vectors = context.index.sentence_vectors[span.start : span.stop]
        cosines = sentence_vectors @ vector
        where = _section_features(asked, section, wanted, float(section_cosines[position]))
        where["section_rank"] = 1.0 / (1.0 + position)
        if "topicality" in wanted:
            # a summary restates its section's topic; an answer is about something narrower
            topical = sentence_vectors @ context.index.vectors[row]
        vocabulary = context.index.sentence_vocabulary(row)
        pairs = zip(section.sentences, section.sentence_kinds, strict=True)
        for number, (text, kind) in enumerate(pairs):
            if kind not in kinds:
                continue
            # a sentence under "Homelab" is about the homelab: its heading counts as its words
            covered = coverage.of_words(vocabulary[number])
            candidates.append(
                Candidate(position, number, text, kind, float(cosines[number]), covered)
            )
            terms = context.index.sentence_terms(row)[number]
            values = sentence_features(asked, text, kind, terms, number, wanted)
            values.update(where, cosine=float(cosines[number]), coverage=covered)
            if "topicality" in wanted:
                values["topicality"] = float(topical[number])
            rows.append([values[name] for name in names])
    return candidates, np.asarray(rows, dtype=np.float64).reshape(len(rows), len(names))


def _section_features(
    asked: Asked, section: Section, wanted: frozenset[str], cosine: float
) -> dict[str, float]:
    values = {"section_cosine": cosine}
    if "heading_overlap" in wanted:
        heading = content_stems(f"{section.title} {section.heading}")
        values["heading_overlap"] = _share(asked.stems, heading)
    if "names_in_section" in wanted:
        text = f"{section.title} {section.heading} {section.text}"
        values["names_in_section"] = _names_in(asked.names, text)
    return values


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
        "idf_overlap": sum(asked.idf[t] for t in shared) / (sum(asked.idf.values()) or 1.0),
        "position": 1.0 / (1.0 + number),
        "length": math.log1p(len(text.split())),
        "novelty": min(1.0, len(terms - asked.stems) / 8.0),
        "item": float(kind == "item"),
        "row": float(kind == "row"),
        "fact": float(kind == "fact"),
        "summary": float(kind == "summary"),
    }
    costly = {
        "asked_noun": lambda: asked.noun.of(text) if asked.noun.focus else 0.0,
        "names_in_sentence": lambda: _names_in(asked.names, text),
        "new_detail": lambda: float(_has_new_detail(text, asked.question_words)),
        "type_match": lambda: type_match(asked.kind, text),
        "has_number": lambda: float(bool(_NUMBER.search(text))),
        "has_name": lambda: float(bool(_NAME.search(text))),
        "first_person": lambda: float(bool(_FIRST_PERSON.search(text))),
    }
    values.update({name: compute() for name, compute in costly.items() if name in wanted})
    return values


def _share(wanted: set[str], found: Iterable[str]) -> float:
    return len(wanted & set(found)) / len(wanted) if wanted else 0.0


def _names_in(names: list[str], text: str) -> float:
    """The share of the question's proper names that the text mentions (1 when it has none)."""
    if not names:
        return 1.0
    lowered = text.lower()
    return sum(name in lowered for name in names) / len(names)


def _has_new_detail(text: str, question_words: set[str]) -> bool:
    """A number or a name the question did not already say: what an answer adds."""
    for token in re.findall(r"[\w.+$%-]+", text):
        if token.lower().strip(".") in question_words:
            continue
        if _NUMBER.search(token) or (token[:1].isupper() and len(token) > 1):
            return True
    return False


_ASKED = re.compile(
    r"\b(?:what|which|whose)(?:'s|\s+is|\s+was|\s+are|\s+were)?\s+(?:the\s+|a\s+|an\s+)?"
    r"((?:[a-z][\w'’-]*\s+){0,3}[a-z][\w'’-]*)|\bhow\s+(?:many|much)\s+((?:[a-z][\w'’-]*\s+){0,3}"
    r"[a-z][\w'’-]*)",
    re.IGNORECASE,
)
_NOT_NOUNS = frozenset(
    "do does did is are was were has have had can could will would should of for in on to "
    "that this he she they it you i we about kind type sort name way thing things".split()
)


_DETERMINERS = frozenset("this that the a an his her their my our its your these those".split())


def asked_noun(question: str) -> str:
    """The noun a question asks for: "What *dataset* did he use", "Which *version* of Git",
    "How many *stars*"; "" when it asks for none."""
    match = _ASKED.search(question)
    if match is None:
        return ""
    phrase = (match.group(1) or match.group(2) or "").split()
    nouns: list[str] = []
    for word in phrase:
        if not nouns and word.lower().endswith(("'s", "’s")):
            continue  # "What are *Jake's* rates": the owner, not the thing asked for
        lowered = word.lower()
        if lowered in _NOT_NOUNS or lowered in STOPWORDS:
            if lowered in _DETERMINERS and len(nouns) > 1:
                nouns.pop()  # "which company *hosts* this": a verb before its object
            break
        if nouns and lowered.endswith("ed"):
            break  # "how many recipes *ended* up": a verb after the noun
        nouns.append(lowered)
    return nouns[-1] if nouns else ""


def _idf(context: Context, terms: set[str]) -> dict[str, float]:
    """Inverse section frequency of each question term on the whole site (rare words count)."""
    frequency = context.index.term_frequency
    total = max(1, context.index.site_sections)
    return {t: math.log(1.0 + total / (1.0 + frequency.get(t, 0))) for t in terms}
