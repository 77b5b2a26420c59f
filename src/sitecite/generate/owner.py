"""Questions about the site's owner as a person: who they are, what they do, how to reach them.

They are what a recruiter or a client asks first ("Who is Timothy Lin?", "What does he do for
a living?", "Where do you work?", read with sitecite.addressed), and the site answers them in
its profile: the owner's facts from frontmatter, an author page or a profile data file
(sitecite.ingest.identity), each a line such as "Timothy Lin — occupation: Product Manager;
company: Resaro." The ranker looks for a sentence sharing the question's words, and a question
like "What is Tim's job?" shares none with "occupation: Product Manager", so such a question
used to be refused, or answered with a sentence of a post that says "work".

A question is about the owner when it names them (or says "he", "she", "they") and asks
nothing else than who they are, what they do (their job, role, company), where they are
based, whether they are available or how to contact them. Its context then holds the
profile's sections, and its answer is led by the profile fact that says it: the role (and
company) for "who" and "what do they do", the location line for "where", the availability
lines for "are you free", the contact line for "how do I reach them". A site without profile
facts answers as for any question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from urllib.parse import urlsplit

from sitecite.generate.answerable import Ranked
from sitecite.generate.features import Candidate
from sitecite.ingest.data import FACTS_PAGE_ID
from sitecite.ingest.identity import PROFILE_HEADING, WRITES_THE_SITE
from sitecite.ingest.kinds import FACT
from sitecite.question import (
    CONTACT,
    FREE,
    PAST,
    PERSON,
    PLACE,
    ROLE,
    SITE,
    WHO,
    asked_stems,
    lowered_words,
    proper_names,
)
from sitecite.tokens import content_tokens, stem
from sitecite.types import Section

# profile keys ("occupation: Product Manager") that answer each kind of question, best first
KEYS = {
    ROLE: ("occupation", "role", "job", "position", "title", "profession", "company", "employer"),
    WHO: ("occupation", "role", "job", "position", "title", "tagline", "bio", "company"),
    CONTACT: ("contact", "email", "how", "form", "reach", "linkedin", "twitter", "website"),
    PLACE: ("location", "city", "country", "based", "place"),
    FREE: ("status", "availability", "available", "open", "booked"),
    SITE: ("writes", "name", "occupation", "role", "job", "position", "title", "company"),
}
# how many profile facts answer each kind: the role (its line names the company too, or the
# next does not add to it); who they are (role, then tagline); how to reach them (how, then where)
SAY = {ROLE: 1, WHO: 2, CONTACT: 2, PLACE: 1, FREE: 2, SITE: 2}
# a key of a profile line: "occupation" in "Timothy Lin — occupation: Product Manager; ..."
_KEY = re.compile(r"(?:^|;\s*|—\s*)([A-Za-z][\w ]{0,30}?):\s")


# The paths where personal sites describe their owner in their own words, whatever built them.
ABOUT_PATHS = frozenset({"about", "about-me", "bio", "me", "profile", "resume", "cv", "now"})


def describes_owner(section: Section, owner: str = "") -> bool:
    """Whether a section is on a page where the site describes its owner: its profile facts,
    its home page, a page at one of the ABOUT_PATHS ("/about/", "/resume/"), or a page titled
    with the owner's name. Most sites write their home or about page as prose, not as
    profile data."""
    if FACT in section.sentence_kinds and _is_profile(section):
        return True
    path = urlsplit(section.url).path.strip("/").lower()
    titled = bool(owner) and section.title.strip().lower() == owner.lower()
    return not path or path.rsplit("/", 1)[-1] in ABOUT_PATHS or titled


def about_sections(sections: Sequence[Section], owner: str = "") -> list[Section]:
    """The sections of the pages where the site describes its owner (describes_owner)."""
    return [s for s in sections if describes_owner(s, owner)]


def owner_facts(ranked: Ranked, sections: Sequence[Section], kind: str) -> list[int]:
    """The candidates that answer an owner question of `kind`, best first and at most
    SAY[kind]: the profile facts whose key (or section heading) says what is asked, the
    earliest key of KEYS[kind] first; none when the context holds no such fact."""
    wanted = KEYS[kind]
    found: list[tuple[int, int, int, int]] = []
    for i, item, section in _profile_facts(ranked, sections):
        keys = [k.strip().lower() for k in _KEY.findall(item.text)]
        keys += [section.heading.lower()]
        keys += ["writes"] if WRITES_THE_SITE in item.text else []
        places = [wanted.index(w) for k in keys for w in wanted if w in k.split()]
        if places:
            found.append((min(places), item.section_position, item.sentence_position, i))
    return [place[3] for place in sorted(found)[: SAY[kind]]]


# a question put to the owner: "what are your working hours?", "can I work with her in French?"
_ADDRESSED = re.compile(r"\b(you|your|yours|yourself)\b", re.IGNORECASE)
KEYED_TOP = 3  # a keyed fact answers only when the ranker puts one among its first three
KEYED_SAY = 2


def keyed_facts(
    ranked: Ranked,
    order: Sequence[int],
    sections: Sequence[Section],
    question: str,
    is_owner: Callable[[str], bool],
) -> list[int]:
    """The profile facts whose key the question names, for a question put to or about the
    owner that asks what the profile states under that key ("What time zone should I assume
    when scheduling a call with her?" -> "Timezone — iana: Europe/Lisbon."; "what are your
    working hours?" -> "Timezone — working hours: ..."). The owner writes the keys of their
    profile, so no list of them is known in advance: a key counts when all its words are
    the question's ("working hours") or it is two of its words written as one ("time zone"
    for "Timezone"); a fact whose own key is named comes before the facts under a named
    heading, which come in their order. Only when the ranker agrees, with a keyed fact among
    its first KEYED_TOP, and never for a question in the past: the profile says what is
    true now."""
    lowered = lowered_words(question)
    about = PERSON.intersection(lowered) or _ADDRESSED.search(question)
    if not (about or any(w.isalpha() and is_owner(w) for w in lowered)) or PAST.search(question):
        return []
    stems = asked_stems(question, is_owner)
    joined = {a + b for a, b in zip(lowered, lowered[1:], strict=False)}
    names = {stem(n.lower()) for n in proper_names(question) if not is_owner(n.lower())}
    found: list[tuple[int, int, int, int, int]] = []
    for i, item, section in _profile_facts(ranked, sections):
        own = max((_named(k, stems, joined) for k in _KEY.findall(item.text)), default=0)
        heading = (
            0 if section.heading == PROFILE_HEADING else _named(section.heading, stems, joined)
        )
        held = len(names & {t.stem for t in content_tokens(item.text)})
        if own or heading or held:
            found.append((-own, -heading, -held, item.sentence_position, i))
    chosen = [place[-1] for place in sorted(found)[:KEYED_SAY]]
    return chosen if set(order[:KEYED_TOP]) & {place[-1] for place in found} else []


def _named(key: str, stems: set[str], joined: set[str]) -> int:
    """How many words of a profile key the question names (1 for "time zone" naming
    "Timezone"), 0 when it does not name all of them."""
    wanted = {t.stem for t in content_tokens(key)}
    if wanted and wanted <= stems:
        return len(wanted)
    return int(key.lower().replace(" ", "") in joined)


def _profile_facts(
    ranked: Ranked, sections: Sequence[Section]
) -> Iterator[tuple[int, Candidate, Section]]:
    """The candidates that are facts of the owner's profile, with their index and section."""
    for i, item in enumerate(ranked.candidates.items):
        section = sections[item.section_position]
        if item.kind == FACT and _is_profile(section):
            yield i, item, section


def _is_profile(section: Section) -> bool:
    return section.page_id == FACTS_PAGE_ID or section.heading == PROFILE_HEADING
