"""Questions from page titles and from a section's own question heading, offline.

A title says what its page is about; a visitor asks about that in their own words: "How I run
a two-week audit" -> "How does Noor run a two-week audit?", "Permissive vs Copyleft" -> "How
does Andrey compare permissive and copyleft?", a review -> "What did Jake think of ...?", a
claim -> "Why does Noor say that ...?", anything else -> "What has Tim written about ...?".
Common page types (about, uses, talks, now, privacy...) get the question their pages answer.
A title that continues another, speaks to the reader or is a series part is left out.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from sitecite.ingest.data import FACTS_PAGE_ID
from sitecite.questions.grammar import base_form, finish, lower_first, third_person
from sitecite.questions.model import Candidate
from sitecite.questions.site import Owner, SiteText
from sitecite.tokens import STOPWORDS, content_stems
from sitecite.types import Section

# Page types a personal site has, by the last part of their id or their title, and what a
# visitor asks of each.
PAGE_TYPES = {
    "about": "What does {first} do?",
    "talks": "Where has {first} given talks?",
    "speaking": "Where has {first} given talks?",
    "projects": "What projects has {first} worked on?",
    "now": "What is {first} working on these days?",
    "uses": "What tools does {first} use day to day?",
    "privacy": "Does {possessive} site track its visitors?",
    "press": "Where has {first} been featured in the press?",
    "resume": "What is {possessive} work experience?",
    "cv": "What is {possessive} work experience?",
    "contact": "How can I get in touch with {first}?",
    "awards": "Has {first} won any awards?",
    "testimonials": "What do clients say about working with {first}?",
}
TOPIC_TEMPLATES = (
    "What does {first} say about {topic}?",
    "What has {first} written about {topic}?",
    "What did {first} write about {topic}?",
)
SHORT_TOPIC_TEMPLATES = (
    "What's {possessive} take on {topic}?",
    "What does {first} think of {topic}?",
)
# A title that is a clause ("Right-to-left is not a mirror image") states a view.
_CLAUSE = re.compile(
    r"\b(is|are|was|were|isn't|aren't|can|can't|should|shouldn't|will|won't|does|doesn't|"
    r"do|don't|matters?|works?|it['’]s|that['’]s|there['’]s|i['’]m)\b",
    re.IGNORECASE,
)
_LISTICLE = re.compile(
    r"^(\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) \w+", re.IGNORECASE
)
_WH_OR_AUX = re.compile(
    r"^(what|why|how|when|where|who|which|is|are|does|do|can|should|will|would)\b", re.IGNORECASE
)
_WH = re.compile(r"^(what|why|how|when|where|who|which)\b", re.IGNORECASE)
_SYMBOLS = re.compile(r"[^\w\s.,:;!?'’\"“”()&+#/-]")  # emoji and marks a visitor does not type
_SERIES = re.compile(r"(\b\d{1,2}(\.\d)?|\b[IVX]{1,4}|\bpart \w+)$", re.IGNORECASE)
_TOPIC_PREFIX = re.compile(
    r"^(notes on|thoughts on|on|introducing|announcing|understanding)\s+", re.IGNORECASE
)


def _informative_part(title: str, page: str, site: SiteText) -> str:
    """Of "Revenge of the JavaScript: Moving from Hugo to Next.js", the part whose words the
    page itself uses most (the subtitle here; "Beginner Sourdough" of its question subtitle)."""
    text = " ".join(s.text for s in site.sections if s.page_id == page).lower()
    parts = [p.strip() for p in re.split(r":| [-–—] ", title, maxsplit=1)]
    scores = [
        sum(1 for w in re.findall(r"[\w.+#-]{3,}", p.lower()) if w not in STOPWORDS and w in text)
        - p.endswith("?")
        for p in parts
    ]
    best = parts[1] if scores[1] > scores[0] else parts[0]
    return best if len(best.split()) >= 2 else parts[1 - parts.index(best)]


def heading_questions(site: SiteText, owner: Owner) -> Iterator[Candidate]:
    """A section headed by a question of its own ("When is centralization useful?") answers it;
    one that leans on its page ("Why are these properties important?") is left out."""
    for section in site.sections:
        heading = " ".join(_SYMBOLS.sub(" ", section.heading).split())
        if not heading.endswith("?") or not _WH_OR_AUX.match(heading) or heading == section.title:
            continue
        if re.search(
            r"\b(this|these|that|those|it|they|them|you|your|we|our|i|my)\b", heading, re.I
        ):
            continue
        if not 4 <= len(heading.split()) <= 12 or section.sentence_kinds.count("prose") < 2:
            continue  # a list of press clips under a headline is not the owner's answer
        if len(content_stems(heading)) < 2 and not re.search(r"\b[A-Z]{2,}\b", heading):
            continue  # "What are the hurdles?" needs its page to say of what; "a CLA" does not
        asked = lower_first(site.plain(heading), site.casing)
        yield Candidate(
            finish(f"According to {owner.first}, {asked}"),
            "grounding",
            "heading question",
            expected_sources=(section.id,),
            notes=f"the part “{section.heading}” of “{section.title}”",
        )


def topic_questions(site: SiteText, owner: Owner, known: Collection[str]) -> Iterator[Candidate]:
    """One question per page, from what its title says it is about."""
    pages: dict[str, Section] = {}
    quotable: dict[str, int] = {}
    for row, _, _ in site.quotable():
        page = site.sections[row].page_id
        pages.setdefault(page, site.sections[row])
        quotable[page] = quotable.get(page, 0) + 1
    for number, (page, section) in enumerate(pages.items()):
        if page == FACTS_PAGE_ID or quotable[page] < 3:
            continue
        question = _page_question(page, section.title, owner, site, known, number)
        if question:
            yield Candidate(
                finish(question),
                "grounding",
                "page topic",
                expected_sources=(page,),
                notes=f"the page “{section.title}”",
            )


def _page_question(
    page: str, title: str, owner: Owner, site: SiteText, known: Collection[str], number: int
) -> str:
    fill = {"first": owner.first, "possessive": owner.possessive}
    slug = page.rsplit("/", 1)[-1].lower()
    kind = slug if slug in PAGE_TYPES else title.strip().lower()
    if kind in PAGE_TYPES or kind.removeprefix("about ") != kind:
        return PAGE_TYPES.get(kind, PAGE_TYPES["about"]).format(**fill)
    title = " ".join(_SYMBOLS.sub(" ", title).split())
    title = re.sub(r"^how to:\s*", "How to ", title, flags=re.IGNORECASE)
    if re.search(r":| [-–—] ", title):
        title = _informative_part(title, page, site)
        if _SERIES.search(title):
            return ""
    words = title.split()
    if not 2 <= len(words) <= 10 or _SERIES.search(title) or title.lower() == owner.name.lower():
        return ""
    if owner.name and owner.name.lower() in title.lower():
        return ""
    lowered = title.lower()
    if re.match(r"(and|but|or|so|then)\b", lowered):
        return ""  # "And back again." continues another post
    if "?" in title[:-1] or re.search(r"\b(you|your)\b", lowered):
        return ""  # two sentences in one title, or a title that speaks to the reader
    how_i = re.match(r"(how|why) i (\w+) (.+)$", lowered)
    if how_i:
        verb = how_i.group(2)
        rest = third_person(" ".join(words[3:]), owner)
        base = base_form(verb, known)
        if rest and base:
            return f"{how_i.group(1).title()} did {owner.first} {base} {rest}"
        if rest and not verb.endswith("ed"):
            return f"{how_i.group(1).title()} does {owner.first} {verb} {rest}"
        return ""
    if lowered.startswith("how to "):
        return f"What's {owner.possessive} advice on how to {site.plain(' '.join(words[2:]))}"
    versus = re.match(r"(.+?) vs\.? (.+)$", title, re.IGNORECASE)
    if versus:
        first, second = (lower_first(site.plain(x.strip()), site.casing) for x in versus.groups())
        return f"How does {owner.first} compare {first} and {second}"
    review = re.match(r"(.+?) review$|review of (.+)$", title, re.IGNORECASE)
    if review:
        return (
            f"What did {owner.first} think of the {site.plain(review.group(1) or review.group(2))}"
        )
    if title.endswith("?"):
        bare_why = re.match(r"why ([^ ]+(?: [^ ]+)?)\?$", lowered)
        if bare_why and not _CLAUSE.search(title):  # "Why Blockchain?"
            topic = lower_first(site.plain(title[4:-1]), site.casing)
            return f"What's {owner.possessive} case for {topic}"
        if _WH_OR_AUX.match(lowered) and (_CLAUSE.search(title) or not _WH.match(title)):
            return f"According to {owner.first}, {lower_first(site.plain(title), site.casing)}"
        return ""
    if _WH.match(title) or title.endswith("!"):
        return ""
    if _LISTICLE.match(title):
        listed = lower_first(site.plain(title), site.casing)
        return f"According to {owner.first}, what are the {listed}"
    if _CLAUSE.search(" ".join(words[:-1])):
        if "," in title or re.search(r"\b(why|how|what|when|where|who)\b", lowered):
            return ""  # "Enterprise, open source, and why better is not enough" is no one claim
        claim = third_person(lower_first(site.plain(title), site.casing), owner)
        return f"Why does {owner.first} say that {claim}" if claim else ""
    if lowered.startswith("my "):
        return f"What's the story of {owner.possessive} {site.plain(' '.join(words[1:]))}"
    else:
        topic = lower_first(site.plain(_TOPIC_PREFIX.sub("", title)), site.casing)
    if re.search(r"\b(i|my|me|we|our)\b", topic.lower()):
        return ""
    templates = TOPIC_TEMPLATES + (SHORT_TOPIC_TEMPLATES if len(topic.split()) <= 3 else ())
    return templates[number % len(templates)].format(topic=topic, **fill)
