"""Questions that ask about a whole page ("Tell me about Lumen", "What is the Y2K Sandbox
post about?") are answered by the page's own summary.

The ranker looks for the sentence that answers a narrower question and counts a summary
against a sentence ("it restates its section's topic"), so an overview question used to get a
detail from somewhere in the page, or a line of its references. When the question's topic is
the title of an admitted page (most of the title's words in the topic and most of the
topic's in the title), the lead is that page's summary sentence (its front matter
description), else the first sentence of its first admitted section; the follower may add
one sentence as for any answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from sitecite.generate.answerable import Ranked
from sitecite.ingest.kinds import PROSE, SUMMARY
from sitecite.tokens import content_stems
from sitecite.types import Section

MATCH_SHARE = 0.6  # of the title's words in the topic, and of the topic's in the title


def overview_lead(ranked: Ranked, sections: Sequence[Section], topic: str) -> int | None:
    """The candidate that should lead the answer about `topic`: the summary sentence of the
    admitted page whose title is the topic, else that page's first prose sentence; None when
    no admitted page is what the topic names."""
    asked = content_stems(topic)
    if not asked:
        return None
    named = [(_overlap(asked, content_stems(s.title)), s) for s in sections]
    # the page whose title is closest to the topic ("Part II" loses to the page without it)
    for _, section in sorted((m for m in named if m[0] > 0), key=lambda m: -m[0]):
        lead = page_lead(ranked, sections, section.page_id)
        if lead is not None:
            return lead
    return None


def page_lead(ranked: Ranked, sections: Sequence[Section], page_id: str) -> int | None:
    """The candidate that says what a page is: its summary sentence (front matter
    description), else its first prose sentence; None when no candidate is on the page."""
    items = ranked.candidates.items
    on_page = [
        i for i, item in enumerate(items) if sections[item.section_position].page_id == page_id
    ]
    summary = [i for i in on_page if items[i].kind == SUMMARY]
    first = sorted(
        (i for i in on_page if items[i].kind == PROSE),
        key=lambda i: (
            not _opens_page(sections[items[i].section_position]),
            items[i].section_position,
            items[i].sentence_position,
        ),
    )
    lead = summary or first
    return lead[0] if lead else None


def _opens_page(section: Section) -> bool:
    """The section before the page's first heading."""
    return section.id == section.page_id or section.id.endswith("#intro")


def _overlap(asked: set[str], title: set[str]) -> float:
    """Jaccard overlap of the topic's and the title's words, or 0 unless most of each is in
    the other."""
    shared = len(asked & title)
    if not title or shared < MATCH_SHARE * len(title) or shared < MATCH_SHARE * len(asked):
        return 0.0
    return shared / len(asked | title)


def lead_with(ranked: Ranked, lead: int) -> Ranked:
    """The same ranking with `lead` first among the candidates that may answer."""
    rest = [i for i in ranked.eligible if i != lead]
    return Ranked(ranked.candidates, ranked.scores, [lead, *rest])
