"""Choosing what to say: the sentence that answers, and at most one that completes it.

The ranker's best candidate leads. A lead that ends in a colon ("...mirrored on the Tor network
at:") is completed by what follows it in its section: the next line, or the list it introduces.
A "how do I" question whose answer stands in a list gets that list as steps. Otherwise one more
sentence joins only when the ranker rates it nearly as likely to answer as the lead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from sitecite.generate.compose import Passage
from sitecite.generate.features import Candidate
from sitecite.ingest.kinds import DECORATION, HEADING, ITEM, normal_form
from sitecite.tokens import content_stems
from sitecite.types import Section

MAX_LIST_ITEMS = 6
# A second sentence joins when the ranker scores it within this margin of the lead (odds of
# e^-margin to one against it): tuned on the real-site dev halves (bench/site_answers.py).
FOLLOW_MARGIN = 1.0
COMPLETION_POOL = 5  # a completing sentence is one of the best this many
_STEPS = re.compile(
    r"\bhow\s+(do|can|should|would)\s+(i|you|we|one)\b|\bhow\s+to\b|\bsteps?\b|\bset\s+up\b",
    re.IGNORECASE,
)


def asks_for_steps(question: str) -> bool:
    return bool(_STEPS.search(question))


def passages_for(
    lead: Candidate,
    section: Section,
    question: str,
    ranked: Sequence[tuple[Candidate, float]],
    lead_score: float,
    room_for_follower: bool,
) -> list[Passage]:
    """The lead's passage (completed, or as steps), and perhaps one follower's."""
    following = _following(section, lead.sentence_position)
    if lead.text.rstrip().endswith(":") and following:
        items = _run_of_items(following)
        if items:
            return [Passage(lead.section_position, (lead.text,), tuple(items))]
        return [Passage(lead.section_position, (lead.text, following[0][0]))]
    if asks_for_steps(question):
        steps = _steps_around(section, lead)
        if len(steps) > 1:
            return [Passage(lead.section_position, (), tuple(steps))]
    passages = [Passage(lead.section_position, (lead.text,))]
    if room_for_follower:
        follower = _completing(lead, ranked, question) or _follower(lead, ranked, lead_score)
        if follower is not None:
            passages.append(Passage(follower.section_position, (follower.text,)))
    return merge(passages)


def _following(section: Section, position: int) -> list[tuple[str, str]]:
    """The sentences after `position` in the section, with their kinds (headings stop it)."""
    pairs = list(zip(section.sentences, section.sentence_kinds, strict=True))[position + 1 :]
    kept = []
    for text, kind in pairs:
        if kind == HEADING:
            break
        if kind != DECORATION:
            kept.append((text, kind))
    return kept


def _run_of_items(following: list[tuple[str, str]]) -> list[str]:
    items = []
    for text, kind in following:
        if kind != ITEM:
            break
        items.append(text)
    return items[:MAX_LIST_ITEMS]


def _steps_around(section: Section, lead: Candidate) -> list[str]:
    """The run of list items the lead belongs to, or that directly follows it."""
    kinds = section.sentence_kinds
    start = lead.sentence_position
    if kinds[start] != ITEM:
        start += 1
        if start >= len(kinds) or kinds[start] != ITEM:
            return []
    while start > 0 and kinds[start - 1] == ITEM:
        start -= 1
    end = start
    while end < len(kinds) and kinds[end] == ITEM:
        end += 1
    return list(section.sentences[start:end])[:MAX_LIST_ITEMS]


def _completing(
    lead: Candidate, ranked: Sequence[tuple[Candidate, float]], question: str
) -> Candidate | None:
    """Among the few best-ranked sentences, the one that covers most of the question's words the
    lead leaves out: what completes the answer ("...and where do the backups end up?")."""
    asked = set(content_stems(question))
    left = asked - set(content_stems(lead.text))
    if not left or len(left) == len(asked):
        return None
    said = normal_form(lead.text)
    best, gained = None, 0
    for candidate, _ in ranked[:COMPLETION_POOL]:
        if candidate is lead or normal_form(candidate.text) == said:
            continue
        covered = len(left & set(content_stems(candidate.text)))
        if covered > gained:
            best, gained = candidate, covered
    return best


def _follower(
    lead: Candidate, ranked: Sequence[tuple[Candidate, float]], lead_score: float
) -> Candidate | None:
    floor = lead_score - FOLLOW_MARGIN
    said = normal_form(lead.text)
    for candidate, score in ranked:
        if score < floor:
            return None
        if candidate is not lead and normal_form(candidate.text) != said:
            return candidate
    return None


def merge(passages: Sequence[Passage]) -> list[Passage]:
    """Passages of the same section joined, in reading order, so each gets one label."""
    merged: list[Passage] = []
    for passage in passages:
        same = next((p for p in merged if p.section_position == passage.section_position), None)
        if same is None or same.listed or passage.listed:
            merged.append(passage)
            continue
        index = merged.index(same)
        merged[index] = Passage(same.section_position, same.sentences + passage.sentences)
    return merged


def ranked_candidates(
    candidates: Sequence[Candidate], scores: np.ndarray
) -> list[tuple[Candidate, float]]:
    order = np.argsort(-scores, kind="stable")
    return [(candidates[i], float(scores[i])) for i in order]
