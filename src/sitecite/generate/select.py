"""Choosing what to say: the sentence that answers, and what completes it.

The ranker's best eligible candidate leads. A lead that ends in a colon ("...mirrored on the Tor
network at:") is completed by what follows it in its section: the next line, or the list it
introduces. A "how do I" question whose answer stands in a list gets that list as steps, and so
does a question whose answer is a list item when the list is what it asks about; one
that asks how to run, install or use something also gets the best command the context gives
(a line of a short shell block), in backticks.
Otherwise a second sentence joins only when the follower model (`generate/follow.py`) judges
that it adds what the question asks for, and for a question that asks for steps or a list, a
third on the same terms; the sentence holding the kind of thing asked for is shown first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sitecite.generate.answer_types import asks_for_steps
from sitecite.generate.answerable import Ranked, expected_column
from sitecite.generate.compose import Passage
from sitecite.generate.features import Candidate
from sitecite.generate.follow import follower_rows
from sitecite.generate.ranker import Ranker
from sitecite.ingest.kinds import CODE, DECORATION, HEADING, ITEM, QUOTABLE
from sitecite.tokens import content_stems
from sitecite.types import Section

MAX_LIST_ITEMS = 6
ITEM_SENTENCES = 2  # of a list item of several sentences, how many are said
# A list answers when its heading holds at least this share of the question's rarity-weighted
# words that the admitted sections use (the list is about what was asked).
LIST_HEADING_SHARE = 0.5
# "how do I run it?", "how can I install the CLI?": asks for a command, not only for steps
_RUN = re.compile(
    r"\bhow\s+(?:(?:do|can|should|would)\s+(?:i|you|we|one)|to)\s+(run|install|use|start|launch|"
    r"execute|invoke|try|download|set\s+up|update|upgrade|uninstall|deploy)\b",
    re.IGNORECASE,
)
_LIST = re.compile(
    r"^\W*(list|name)\b|\bwhat\s+(are|were)\b|\bwhich\s+\w+s\b|\b(tools|libraries|packages|"
    r"steps|ways|things|options|reasons|services|apps)\b",
    re.IGNORECASE,
)


def asks_for_many(question: str) -> bool:
    """Steps, or a list of things ("What tools...", "Which libraries..."): room for a third."""
    return asks_for_steps(question) or bool(_LIST.search(question))


def passages_for(
    ranked: Ranked,
    sections: Sequence[Section],
    question: str,
    follower: Ranker,
    room: int = 2,
    keep_lead: bool = False,
) -> list[Passage]:
    """The lead's passage (completed, or as steps), and at most `room` followers that add to
    it; `keep_lead` keeps the lead first (a page's summary before any detail)."""
    items = ranked.candidates.items
    lead = items[ranked.eligible[0]]
    section = sections[lead.section_position]
    following = _following(section, lead.sentence_position)
    if lead.text.rstrip().endswith(":") and following:
        listed = _run_of_items(section, lead.sentence_position)
        if listed:
            return [Passage(lead.section_position, (lead.text,), tuple(listed))]
        return [Passage(lead.section_position, (lead.text, said_as(*following[0])))]
    listed_answer = lead.kind == ITEM and _about_the_list(ranked, section, question)
    if asks_for_steps(question) or listed_answer:
        steps = _steps_around(section, lead)
        if len(steps) > 1:
            intro = _introduction(section, lead.sentence_position)
            as_steps = Passage(lead.section_position, intro, tuple(steps))
            return [as_steps, *command_for(ranked, question, steps)]
    chosen = followers(ranked, follower, min(room, 2 if asks_for_many(question) else 1))
    # lead with the answer: a sentence holding the kind of thing asked for (the name for "who",
    # the number for "how many") goes before one that does not
    holds = expected_column(ranked.candidates)
    order = [ranked.eligible[0], *chosen]
    if not keep_lead:
        order.sort(key=lambda i: -holds[i])
    shown = [
        Passage(items[i].section_position, (said_as(items[i].text, items[i].kind),)) for i in order
    ]
    return merge([*shown, *command_for(ranked, question, [items[i].text for i in order])])


def command_for(ranked: Ranked, question: str, said: Sequence[str]) -> list[Passage]:
    """ "How do I run it?": the best command the site gives goes with what the answer says,
    when the answer holds none (whatever the lead: a sentence, a list)."""
    items = ranked.candidates.items
    if not _RUN.search(question):
        return []
    codes = [i for i in ranked.eligible if items[i].kind == CODE]
    if not codes or any(items[i].text in said for i in codes):
        return []
    best = items[codes[0]]
    return [Passage(best.section_position, (said_as(best.text, best.kind),))]


def orphaned_lead_in(section: Section, position: int) -> bool:
    """Whether sentence `position` introduces something ("...flush your computer's DNS,
    overriding your router:") that the section no longer holds: nothing follows it, or only
    another lead-in (the code block between them was not kept). Said, it would end on a colon."""
    if not section.sentences[position].rstrip().endswith(":"):
        return False
    following = _following(section, position)
    return not following or following[0][0].rstrip().endswith(":")


def said_as(text: str, kind: str) -> str:
    """A sentence as the answer shows it: a command in backticks, as the page showed it."""
    return f"`{text}`" if kind == CODE else text


def _about_the_list(ranked: Ranked, section: Section, question: str) -> bool:
    """Whether the list the lead belongs to is what the question asks for: a question for many
    things, or one whose words (of those the admitted sections use, weighted by rarity) the
    list's heading mostly holds ("What hardware is in the homelab?" under "Homelab")."""
    if asks_for_many(question):
        return True
    found = ranked.candidates
    used = {t: v for t, v in found.asked.idf.items() if t in found.seen}
    heading = content_stems(f"{section.title} {section.heading}")
    total = sum(used.values())
    held = sum(v for t, v in used.items() if t in heading)
    return total > 0 and held / total >= LIST_HEADING_SHARE


def followers(ranked: Ranked, follower: Ranker, most: int) -> list[int]:
    """Up to `most` sentences after the lead (indexes into the candidates), each the likeliest to
    add what the question asks for given what is said already, while that likelihood clears the
    model's threshold."""
    lead = ranked.eligible[0]
    said: list[int] = []
    for _ in range(most):
        pool, rows = follower_rows(ranked, lead, said)
        if not pool:
            break
        probabilities = follower.probability(rows)
        best = int(probabilities.argmax())
        if probabilities[best] < follower.threshold:
            break
        said.append(pool[best])
    return said


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


def _run_of_items(section: Section, position: int) -> list[str]:
    """The list items that directly follow sentence `position` (a lead ending in a colon)."""
    kinds = section.sentence_kinds
    start = position + 1
    while start < len(kinds) and kinds[start] == DECORATION:
        start += 1
    if start >= len(kinds) or kinds[start] != ITEM:
        return []
    return _item_texts(section, start)


def _steps_around(section: Section, lead: Candidate) -> list[str]:
    """The list the lead belongs to, or that directly follows it, one entry per item."""
    kinds = section.sentence_kinds
    start = lead.sentence_position
    if kinds[start] != ITEM:
        start += 1
        if start >= len(kinds) or kinds[start] != ITEM:
            return []
    while start > 0 and kinds[start - 1] == ITEM:
        start -= 1
    return _item_texts(section, start)


def _introduction(section: Section, position: int) -> tuple[str, ...]:
    """The sentence that introduces the list sentence `position` stands in ("Nonetheless, Stata
    still has certain advantages:"), when one does; it says what the list is."""
    kinds = section.sentence_kinds
    start = position
    while start > 0 and kinds[start - 1] == ITEM:
        start -= 1
    if kinds[position] != ITEM or not start:
        return ()
    before = section.sentences[start - 1]
    quotable = kinds[start - 1] in QUOTABLE
    return (before,) if quotable and before.rstrip().endswith(":") else ()


def _item_texts(section: Section, start: int) -> list[str]:
    """The run of list items from sentence `start`, one text per item: a bullet of several
    sentences ("Help manual. Stata's help files are the best, ...") is one item, said by its
    first ITEM_SENTENCES, never one numbered line per sentence."""
    kinds = section.sentence_kinds
    end = start
    while end < len(kinds) and kinds[end] == ITEM:
        end += 1
    lines = _lines(section)
    items: list[list[str]] = []
    for number in range(start, end):
        if items and lines[number] == lines[number - 1]:
            items[-1].append(section.sentences[number])
        else:
            items.append([section.sentences[number]])
    return [" ".join(item[:ITEM_SENTENCES]) for item in items[:MAX_LIST_ITEMS]]


def _lines(section: Section) -> list[int]:
    """The line of the section's text each sentence stands on (a list item is one line);
    every sentence on a line of its own when they cannot all be found in order."""
    lines = section.text.split("\n")
    found = []
    line = column = 0
    for sentence in section.sentences:
        while line < len(lines) and sentence not in lines[line][column:]:
            line, column = line + 1, 0
        if line == len(lines):
            return list(range(len(section.sentences)))
        column = lines[line].index(sentence, column) + len(sentence)
        found.append(line)
    return found


def shown(passage: Passage, sections: Sequence[Section]) -> list[str]:
    """What a passage says: its sentences and, for a list, every sentence of each item it shows
    (an item is shown by its first sentences), so a later part never shows the list again."""
    if not passage.listed:
        return [*passage.sentences, *(s.strip("`") for s in passage.sentences)]
    section = sections[passage.section_position]
    lines = _lines(section)
    heads = {n for n, s in enumerate(section.sentences) if any(s in i for i in passage.listed)}
    items = {lines[n] for n in heads}
    whole = [s for n, s in enumerate(section.sentences) if lines[n] in items]
    return [*passage.sentences, *passage.listed, *whole]


def merge(passages: Sequence[Passage]) -> list[Passage]:
    """Passages of the same section joined (the lead's first), so each section gets one label."""
    merged: list[Passage] = []
    for passage in passages:
        same = next((p for p in merged if p.section_position == passage.section_position), None)
        if same is None or same.listed or passage.listed:
            merged.append(passage)
            continue
        index = merged.index(same)
        merged[index] = Passage(same.section_position, same.sentences + passage.sentences)
    return merged
