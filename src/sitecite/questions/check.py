"""Checks on generated questions: does the site answer a bait question after all, and do two
questions ask the same thing.

A bait question is kept only when the site is silent on it, read four ways in turn:
1. a name it swaps in is written nowhere on the site, in any case;
2. a detail it asks for (version, price, date) is in no sentence that names the thing;
3. a private matter it asks about has none of its words anywhere on the site;
4. retrieval (dense and BM25 fused, and the gate, as every answer searches): the gate admits
   no section, or no admitted sentence holds all the question's topic words that the site
   uses (what a reader would take for the answer).
Each failure is a reason a person can check ("the site names Vue: about#stack").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sitecite.ingest.data import FACTS_PAGE_ID
from sitecite.pipeline import Engine
from sitecite.questions.model import Candidate
from sitecite.questions.site import SiteText
from sitecite.retrieve import search
from sitecite.tokens import content_stems

# Whether a sentence gives a detail of each kind a missing-detail question asks for.
DETAILS = {
    "version": re.compile(r"\bv?\d+\.\d+|\bversion\b|\brelease\b", re.IGNORECASE),
    "price": re.compile(
        r"[$€£¥]\s?\d|\d\s?(?:usd|eur|gbp|dollars?|euros?|pounds?)\b|\b(?:price|cost|costs|"
        r"paid|pay|pays|free|subscription|plan|license|licence)\b",
        re.IGNORECASE,
    ),
    "start date": re.compile(r"\b(?:19|20)\d\d\b|\bsince\b|\byears?\b|\bstarted\b", re.IGNORECASE),
    "move date": re.compile(r"\b(?:19|20)\d\d\b|\bmoved?\b|\bsince\b|\byears?\b", re.IGNORECASE),
    "join date": re.compile(
        r"\b(?:19|20)\d\d\b|\bjoined?\b|\bsince\b|\bsigned up\b", re.IGNORECASE
    ),
}
# Words that would mean the site touches a private matter at all (kept out if it does).
PRIVATE = {
    "marriage": r"wife|husband|spouse|married|marriage|wedding|fianc[eé]e?|partner",
    "children": r"son|daughter|sons|daughters|kids?|children|child|baby|babies|parenting",
    "age": r"born|birthday|years old|my age",
    "birthday": r"born|birthday|birth date",
    "hometown": r"grew up|grow up|growing up|hometown|home town|born in|raised in|childhood",
    "pets": r"dogs?|cats?|pets?|puppy|kitten",
    "income": r"salary|income|earn|earns|earned|earnings|per hour|hourly|day rate|my rates?",
    "family": r"mother|father|mom|mum|dad|parents?",
    "siblings": r"brothers?|sisters?|siblings?",
}
# Words that shape a question rather than name its topic ("what's the *name* of...").
SCAFFOLD = frozenset(
    "name names use uses used using think thinks say says tell like likes favourite favorite "
    "kind type ever really much many long old get know feel opinion".split()
)
DUPLICATE_COSINE = 0.88


def names_on_site(candidate: Candidate, site: SiteText) -> str:
    """The first name the question swaps in that the site does write, with where."""
    for name in candidate.absent:
        rows = site.mentions(name)
        if rows:
            return f"the site names {name}: {site.sections[rows[0]].id}"
    return ""


def answered_because(
    candidate: Candidate, site: SiteText, engine: Engine, owner_words: frozenset[str]
) -> str:
    """Why the site answers this bait question, or "" when it is silent on it."""
    named = names_on_site(candidate, site)
    if named:
        return named
    if candidate.detail:
        pattern = DETAILS[candidate.detail]
        given = next((s for s in site.sentences_with(candidate.entity) if pattern.search(s)), "")
        if given:
            return f"the site may give the {candidate.detail}: “{_short(given)}”"
    for matter in private_matters(candidate):
        found = _about_owner(site, PRIVATE[matter], owner_words)
        if found:
            return f"the site mentions {matter}: “{_short(found)}”"
    return retrieval_answer(candidate.question, engine, owner_words)


def _about_owner(site: SiteText, words: str, owner_words: frozenset[str]) -> str:
    """A sentence that uses one of `words` and speaks of the owner (in the first person, by
    name, or in the profile): "my family's computer" is, "foreign born" in a census is not."""
    matter = re.compile(rf"\b(?:{words})\b", re.IGNORECASE)
    names = "|".join(re.escape(w) for w in sorted(owner_words) if len(w) > 2)
    owner = re.compile(
        rf"\b(?:i|i'm|i've|me|my|mine|we|our|us{'|' + names if names else ''})\b", re.I
    )
    for row, sentence, _ in site.quotable():
        if matter.search(sentence) and (
            site.sections[row].page_id == FACTS_PAGE_ID or owner.search(sentence)
        ):
            return sentence
    return ""


def private_matters(candidate: Candidate) -> list[str]:
    """The private matters a question touches: the one it was written for, and any whose
    words it uses (an LLM's "Is she married?" is about marriage too)."""
    found = [candidate.private] if candidate.private else []
    for matter, words in PRIVATE.items():
        if matter not in found and re.search(rf"\b(?:{words})\b", candidate.question, re.I):
            found.append(matter)
    return found


def retrieval_answer(question: str, engine: Engine, owner_words: frozenset[str]) -> str:
    """An admitted sentence holding every topic word of the question that the site uses,
    or "" (the gate admits nothing, or no sentence holds them all)."""
    index, settings = engine.index, engine.settings
    vector = engine.embedder.embed_query(question)
    found = search(index, vector, question, settings.k, engine.threshold, settings.retrieve)
    admitted = [hit for hit in found.hits if hit.admitted]
    if not admitted:
        return ""
    topic = content_stems(question, ignore=owner_words) - SCAFFOLD - _stems(SCAFFOLD)
    on_site = {t for t in topic if t in index.vocabulary}
    if not on_site or on_site != topic:
        return ""  # a word the site never uses is one it cannot be answering about
    for hit in admitted:
        row = index.row_of[hit.section.id]
        label = content_stems(f"{hit.section.title} {hit.section.heading}")
        for sentence, terms in zip(hit.section.sentences, index.sentence_terms(row), strict=False):
            if on_site <= terms | label:
                return f"{hit.section.id} says “{_short(sentence)}”"
    return ""


def _stems(words: frozenset[str]) -> set[str]:
    return content_stems(" ".join(words))


def _short(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class Duplicate:
    position: int
    of: int
    cosine: float


def duplicates(questions: Sequence[str], vectors: np.ndarray) -> list[Duplicate]:
    """Each question that asks what an earlier one asks (cosine of their vectors at or above
    DUPLICATE_COSINE, or the same words), paired with the earlier one."""
    found: list[Duplicate] = []
    kept: list[int] = []
    seen: dict[str, int] = {}
    for position, question in enumerate(questions):
        key = " ".join(sorted(content_stems(question)))
        if key and key in seen:
            found.append(Duplicate(position, seen[key], 1.0))
            continue
        if kept:
            scores = vectors[kept] @ vectors[position]
            best = int(np.argmax(scores))
            if scores[best] >= DUPLICATE_COSINE:
                found.append(Duplicate(position, kept[best], float(scores[best])))
                continue
        kept.append(position)
        seen.setdefault(key, position)
    return found
