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
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from sitecite.ingest.data import FACTS_PAGE_ID
from sitecite.questions.grammar import base_form, finish, gerund_base, lower_first, third_person
from sitecite.questions.model import Candidate
from sitecite.questions.site import Owner, SiteText
from sitecite.tokens import content_stems

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
    "Has {first} written anything about {topic}?",
)
CLAIM_TEMPLATES = ("Why does {first} say that {claim}?", "Why does {first} think {claim}?")
# A clause whose subject is a pronoun ("It's all jazz") says nothing without its page.
_PRONOUN_SUBJECT = re.compile(
    r"^(it|it['’]s|this|that|there|they|we|you|he|she|these|those)\b", re.IGNORECASE
)
# "How were the expectations violated?": "the" + a noun the heading's page introduced.
_BACK_REFERENCE = re.compile(r"\bthe \w+(\?$| \w+(ed|ing)\b)", re.IGNORECASE)
_PREPOSITION = re.compile(
    r"^(on|in|at|for|with|from|to|of|about|over|under|before|after|into|onto|by|towards?|beyond|"
    r"against|through|without|within|across|between|welcome|do|does|did)\b",
    re.IGNORECASE,
)
_PASSIVE = re.compile(r"\b(is|are|was|were|be|been)\b (\w+ly |now |not |finally )?\w+ed\b", re.I)
_PARENTHESES = re.compile(r"\s*[(\[][^)\]]*[)\]]")
# A title that is a clause ("Right-to-left is not a mirror image") states a view.
_CLAUSE = re.compile(
    r"\b(is|are|was|were|isn't|aren't|can|can't|should|shouldn't|will|won't|does|doesn't|"
    r"do|don't|matters?|works?|it['’]s|that['’]s|there['’]s|i['’]m)\b|\w['’]s (the|a|an|not|no)\b",
    re.IGNORECASE,
)
_LISTICLE = re.compile(  # "Eight tips for working remotely": a number of things, plural
    r"^([2-9]|\d\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) (\w+ )?\w+s\b",
    re.IGNORECASE,
)
_WH_OR_AUX = re.compile(
    r"^(what|why|how|when|where|who|which|is|are|does|do|can|should|will|would)\b", re.IGNORECASE
)
_WH = re.compile(r"^(what|why|how|when|where|who|which)\b", re.IGNORECASE)
_SYMBOLS = re.compile(r"[^\w\s.,:;!?'’\"“”()&+#/-]")  # emoji and marks a visitor does not type
_SERIES = re.compile(r"(\b\d{1,2}(\.\d)?|\b[IVX]{1,4}|\bpart \w+)$", re.IGNORECASE)
_TOPIC_PREFIX = re.compile(
    r"^(notes on|thoughts on|an? update on|update on|on|introducing|announcing|understanding)\s+",
    re.IGNORECASE,
)
_BODY_KINDS = ("prose", "item", "row")  # the page's own words: not its title, date or summary


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
        if _BACK_REFERENCE.search(heading):
            continue  # "How were the expectations violated?" needs its page to say which
        asked = lower_first(site.plain(heading, title_case=True), site.casing)
        yield Candidate(
            finish(f"According to {owner.first}, {asked}"),
            "grounding",
            "heading question",
            expected_sources=(section.id,),
            notes=f"the part “{section.heading}” of “{section.title}”",
        )


@dataclass(frozen=True)
class _Page:
    """A page as a topic question reads it: its id, title, summary and the stems of each
    sentence of its body (not its title, date or summary, which repeat the title)."""

    id: str
    title: str
    summary: str
    body: tuple[frozenset[str], ...]
    code: bool  # it shows code or commands: a title of an "-ing" task is a how-to

    def support(self, text: str) -> float:
        """The share of `text`'s content words that the page's body uses."""
        wanted = content_stems(text)
        used = frozenset().union(*self.body) if self.body else frozenset()
        return len(wanted & used) / len(wanted) if wanted else 0.0

    def sentences_with(self, text: str) -> int:
        wanted = content_stems(text)
        return sum(1 for terms in self.body if terms & wanted)


def site_pages(site: SiteText) -> list[_Page]:
    """Every page with at least three sentences of body, the facts page aside: a page that is
    only its summary (a post that redirects elsewhere) does not say what its title promises."""
    rows: dict[str, list[int]] = {}
    for row, _, _ in site.quotable():
        page = site.sections[row].page_id
        if row not in rows.setdefault(page, []):
            rows[page].append(row)
    pages = []
    for page, numbers in rows.items():
        if page == FACTS_PAGE_ID:
            continue
        body: list[frozenset[str]] = []
        summary, code = "", False
        for row in numbers:
            section = site.sections[row]
            for terms, sentence, kind in zip(
                site.index.sentence_terms(row),
                section.sentences,
                section.sentence_kinds,
                strict=False,
            ):
                if kind in _BODY_KINDS:
                    body.append(terms)
                elif kind == "summary" and not summary:
                    summary = sentence
                code = code or kind == "code"
        if len(body) < 3:
            continue
        pages.append(_Page(page, site.sections[numbers[0]].title, summary, tuple(body), code))
    return pages


def topic_questions(site: SiteText, owner: Owner, known: Collection[str]) -> Iterator[Candidate]:
    """One question per page: from what its title says it is about, else from its summary
    ("Rocketships and Bicycles" makes no question; "How to combine a head-in-the-clouds
    mentality with a slow-and-steady work ethic" does)."""
    pages = site_pages(site)
    labels: Counter[frozenset[str]] = Counter(
        frozenset(content_stems(part))
        for page in pages
        for part in _parts(_clean(page.title))
        if len(_parts(_clean(page.title))) > 1
    )
    for number, page in enumerate(pages):
        writer = _TitleReader(page, owner, site, known, number, labels)
        question, source = writer.title_question(), page.title
        if not question and page.summary:
            question, source = writer.summary_question(), page.summary
        if question:
            yield Candidate(
                finish(question),
                "grounding",
                "page topic",
                expected_sources=(page.id,),
                notes=f"the page “{page.title}”"
                + (f", which sums itself up as “{source}”" if source != page.title else ""),
            )


class _TitleReader:
    """Turns a page's title (or summary) into the question a visitor would type about it."""

    def __init__(
        self,
        page: _Page,
        owner: Owner,
        site: SiteText,
        known: Collection[str],
        number: int,
        labels: Counter[frozenset[str]],
    ) -> None:
        self.labels = labels  # how many titles each part's words begin or end
        self.page, self.owner, self.site, self.known, self.number = (
            page,
            owner,
            site,
            known,
            number,
        )
        self.fill = {"first": owner.first, "possessive": owner.possessive}

    def title_question(self) -> str:
        page, owner = self.page, self.owner
        slug = page.id.rsplit("/", 1)[-1].lower()
        kind = slug if slug in PAGE_TYPES else page.title.strip().lower()
        if kind in PAGE_TYPES or kind.removeprefix("about ") != kind:
            return PAGE_TYPES.get(kind, PAGE_TYPES["about"]).format(**self.fill)
        title = _clean(page.title)
        if owner.name and owner.name.lower() in title.lower():
            return ""
        parts = _parts(title)
        if _SERIES.search(title):
            return ""  # "... - Part 2" leans on part 1
        if len(parts) == 1:
            return self.shaped(title) or self.topic(title)
        if any(self.labels[frozenset(content_stems(p))] > 1 for p in parts):
            return ""  # "Thesis Thursday 3 - Model and Methodology": an episode of a series
        shaped = [q for q in (self.shaped(p, part=True) for p in parts) if q]
        if shaped:
            return shaped[0]
        # A part stands alone when it is a short topic the page keeps returning to ("Yak
        # Shaving: On Doing the Work Before the Work"); a pun the page never uses does not.
        topics = sorted(
            (p for p in parts if len(p.split()) <= 4 and page.sentences_with(p) >= 3),
            key=page.sentences_with,
            reverse=True,
        )
        return next((q for q in map(self.topic, topics) if q), "")

    def summary_question(self) -> str:
        """A summary that is one short how-to, "How I ..." or claim of its own."""
        summary = _clean(self.page.summary)
        if not 4 <= len(summary.split()) <= 12 or re.search(r"[,;:!?]", summary):
            return ""
        guide = re.match(
            r"(?:an? (?:guide|tutorial|walkthrough) (?:on|to) )?(how to .+)$",
            summary,
            re.IGNORECASE,
        )
        if guide:
            return self.shaped(guide.group(1))
        if re.match(r"how i\b", summary, re.IGNORECASE):
            return self.shaped(summary)
        return self.claim(summary) if _CLAUSE.search(summary) else ""

    def shaped(self, text: str, part: bool = False) -> str:
        """A question from a title of a telling shape: "How I ...", "How to ...", "X vs Y", a
        review, a question, a listicle, "My first ...", an "-ing" task, a claim; else ""."""
        owner, site, words = self.owner, self.site, text.split()
        lowered = text.lower()
        if not 2 <= len(words) <= 12 or _SERIES.search(text):
            return ""
        if re.match(r"(and|but|or|so|then)\b", lowered) or "?" in text[:-1]:
            return ""  # "And back again." continues another post
        if re.search(r"\b(you|your)\b", lowered) and not lowered.startswith("how to "):
            return ""  # a title that speaks to the reader
        how_i = re.match(r"(how|why) i (\w+) (.+)$", lowered)
        if how_i:
            verb, rest = how_i.group(2), third_person(self.cased(" ".join(words[3:])), owner)
            base = base_form(verb, self.known)
            if rest and base:
                return f"{how_i.group(1).title()} did {owner.first} {base} {rest}"
            if rest and not verb.endswith("ed"):
                return f"{how_i.group(1).title()} does {owner.first} {verb} {rest}"
            return ""
        if lowered.startswith("how to "):
            rest = third_person(site.plain(" ".join(words[2:])), owner)
            return f"What's {owner.possessive} advice on how to {rest}" if rest else ""
        versus = re.match(r"(.+?) (?:vs\.?|versus) (.+)$", text, re.IGNORECASE)
        if versus:
            first, second = (self.cased(x.strip()) for x in versus.groups())
            together = sum(  # a comparison weighs the two in one breath, more than once
                bool(t & content_stems(first) and t & content_stems(second)) for t in self.page.body
            )
            short = all(len(x.split()) <= 3 for x in (first, second))
            return (
                f"How does {owner.first} compare {first} and {second}"
                if together >= 2 and short
                else ""
            )
        review = re.match(r"(.+?) review$|review of (.+)$", text, re.IGNORECASE)
        if review and not re.search(r"\b(in|year)$", review.group(1) or "", re.I):
            reviewed = site.plain(review.group(1) or review.group(2))
            return f"What did {owner.first} think of the {reviewed}"
        if text.endswith("?"):
            return self.question_title(text, part)
        if _WH.match(text) or text.endswith("!"):
            return ""
        if _LISTICLE.match(text) and not re.search(r"\b(i|my|me|we|our)\b", lowered):
            return f"According to {owner.first}, what are the {self.cased(text)}"
        first_thing = re.match(r"my first (\w+(?: \w+)?)$", lowered)
        if first_thing:
            return f"What was {owner.possessive} first {self.cased(' '.join(words[2:]))}"
        task = gerund_base(words[0], self.known) if len(words) >= 3 else ""
        if task and not _CLAUSE.search(text):
            rest = third_person(self.cased(" ".join(words[1:])), owner)
            named = re.search(r"\b[A-Z]", rest) or self.page.code
            if rest and named and self.page.support(text) == 1.0:  # a task, not an essay's title
                return f"How did {owner.first} {task} {rest}"
        if _CLAUSE.search(" ".join(words[:-1])):
            return self.claim(text)
        return ""

    def question_title(self, text: str, part: bool = False) -> str:
        """A title that asks a question of its own; not one that leans on its page or on the
        rest of its title ("Code boilerplate: Is it always bad?", "Where is the magic?")."""
        lowered = text.lower()
        if re.search(r"\b(it|this|that|they|them|these|those|\w+thing|\w+one)\b", lowered):
            return ""
        bare_why = re.match(r"why ([^ ]+(?: [^ ]+)?)\?$", lowered)
        if bare_why and not _CLAUSE.search(text):  # "Why Blockchain?"
            return f"What's {self.owner.possessive} case for {self.cased(text[4:-1])}"
        specific = len(content_stems(text)) >= (3 if part else 2) or re.search(
            r"[A-Z]\w*[A-Z.]", text
        )
        if specific and _WH_OR_AUX.match(lowered) and (_CLAUSE.search(text) or not _WH.match(text)):
            return f"According to {self.owner.first}, {self.cased(text)}"
        return ""

    def claim(self, text: str) -> str:
        """ "Trust and safety is not a product edge case" -> "Why does Ben say that trust and
        safety is not a product edge case?"; "" for a clause that needs its page ("It's all
        jazz") or that holds several ("X, Y, and why Z")."""
        lowered = text.lower()
        if _PRONOUN_SUBJECT.match(text) or _PREPOSITION.match(text) or "," in text:
            return ""
        verb = _CLAUSE.search(text)
        if verb and re.search(r"\b(than|that|which|who)\b", text[: verb.start()], re.I):
            return ""  # "Pushing the Deck further than is reasonable": no subject and verb
        if _PASSIVE.search(text):
            return ""  # "The dashboard is now released" reports; it states no view
        if re.search(r"\b(why|how|what|when|where|who)\b", lowered):
            return ""
        claim = third_person(self.cased(text), self.owner)
        if not claim or self.page.support(text) < 0.5:
            return ""
        template = CLAIM_TEMPLATES[self.number % len(CLAIM_TEMPLATES)]
        return template.format(claim=claim, **self.fill)

    def topic(self, text: str) -> str:
        """A topic the page is about, as a visitor names it: every word of it in the page's
        own sentences, in two at least (so a pun or a passing phrase makes no question)."""
        if _WH.match(text) or _CLAUSE.search(text) or re.search(r"[!?]", text):
            return ""
        if _PREPOSITION.match(text) or re.match(r"(more|less|than|just|only|not)\b", text, re.I):
            return ""  # "From recipes to weights", "More than mere semantics": half a thought
        words = text.split()
        content = [w for w in words if content_stems(w)]
        if len(content) * 2 < len(words):
            return ""  # "Yes, No, Maybe"
        if not 1 <= len(words) <= 8 or _SERIES.search(text) or words[0].lower().endswith("ly"):
            return ""
        if re.search(r"\b(i|my|me|we|our|you|your|it|its|his|her|their|this|that)\b", text.lower()):
            return ""  # "Take away its power" leans on what "its" names
        if re.search(r"\b(yes|no|maybe|okay|hello|goodbye|thanks)\b", text.lower()):
            return ""  # interjections name no topic
        topic = self.cased(_TOPIC_PREFIX.sub("", text))
        if self.page.support(topic) < 1.0 or self.page.sentences_with(topic) < 2:
            return ""
        template = TOPIC_TEMPLATES[self.number % len(TOPIC_TEMPLATES)]
        return template.format(topic=topic, **self.fill)

    def cased(self, text: str) -> str:
        return lower_first(self.site.plain(text, title_case=True), self.site.casing)


def _parts(title: str) -> list[str]:
    """A title's two parts ("Travel Essentials: The Uniform"), or the title alone."""
    return [p.strip() for p in re.split(r":| [-–—] ", title, maxsplit=1) if p.strip()]


def _clean(title: str) -> str:
    """A title without emoji, asides in brackets, trailing dots, or a "How To:" label."""
    title = _PARENTHESES.sub("", _SYMBOLS.sub(" ", title))
    title = re.sub(r"^how to:\s*", "How to ", title.strip(), flags=re.IGNORECASE)
    return " ".join(title.split()).rstrip(" .…")
