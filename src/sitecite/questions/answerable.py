"""Answerable questions from the site's own sections, worded as a visitor asks, offline.

Each writer reads one shape of text every personal site has and asks what a visitor would:
profile facts ("Location — city: Lisbon" -> "Which city is Noor based in?"), publication dates,
the items of a setup page ("Editor: Neovim" -> "What editor does Noor use?"), and first-person
statements with a year, a favourite, a place or a past job. Page titles and question headings
are sitecite.questions.titles.
A fact question carries the exact words an answer must state (`must_contain`), taken from the
sentence it was made from, so it is answerable from its expected source by construction.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sitecite.facts import facts
from sitecite.ingest.data import FACTS_PAGE_ID
from sitecite.ingest.identity import PROFILE_HEADING
from sitecite.questions.grammar import finish
from sitecite.questions.model import Candidate
from sitecite.questions.site import Owner, SiteText
from sitecite.tokens import STOPWORDS
from sitecite.types import Section

# Profile keys (data files, author pages) and the question a visitor asks for each. The keys
# are the common vocabulary of personal profiles (JSON Resume, Hugo and Jekyll author data).
PROFILE_QUESTIONS = (
    (("role", "occupation", "job", "position", "profession"), "What does {first} do?"),
    (("company", "employer", "organisation", "organization"), "Who does {first} work for?"),
    (("city",), "Which city is {first} based in?"),
    (("country",), "Which country does {first} live in?"),
    (("location", "based", "home"), "Where is {first} based?"),
    (("email", "e-mail"), "What's {possessive} email address?"),
    (("languages", "language"), "Which languages does {first} speak?"),
    (("pronouns",), "What pronouns does {first} use?"),
    (("timezone", "time zone", "iana"), "What time zone does {first} work in?"),
    (("education", "university", "school", "degree"), "Where did {first} study?"),
    (
        ("twitter", "github", "linkedin", "mastodon", "bluesky", "youtube", "gitlab"),
        "Where can I find {first} on {key}?",
    ),
)
SERVICE_NAMES = {
    "github": "GitHub",
    "gitlab": "GitLab",
    "linkedin": "LinkedIn",
    "youtube": "YouTube",
}
_PROFILE_LINE = re.compile(r"^(?:(?P<group>[^:—]{2,40}) — )?(?P<pairs>.+?)\.?$")
_PAIR = re.compile(r"^(?P<key>[A-Za-z][\w -]{0,30}):\s+(?P<value>.+)$")
_PUBLISHED = re.compile(r"^(?P<title>.+) was published on (?P<date>.+?)\.?$")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
# A page about the owner's setup (the "uses" page convention, uses.tech): its items name tools.
SETUP_PAGE = re.compile(
    r"^(?:my |our )?(?:uses|setup|desk setup|gear|tools|toolkit|stack|equipment|what i use)$",
    re.IGNORECASE,
)
_SETUP_ITEM = re.compile(r"^(?P<key>[A-Za-z][A-Za-z -]{1,30}):\s+(?P<value>.+)$")
_MASS_NOUN = re.compile(r"(ing|ion|ity|ance|ence|ness|ment|ics)$")
_WH = re.compile(r"^(what|why|how|when|where|who|which)\b", re.IGNORECASE)
_NAME_RUN = re.compile(r"\b[A-Z][\w.+#-]*(?:\s+(?:[A-Z0-9][\w.+#-]*))*")


def key_fact(value: str) -> str:
    """The words of `value` an answer must state: all of a short value, else its first figure
    or date, an address, or its first name; "" when it has none."""
    value = value.strip().rstrip(".")
    if len(value.split()) <= 4 and len(value) <= 40:
        return value
    address = re.search(r"\S+@\S+\.\w+|https?://\S+", value)
    if address:
        return address.group(0).rstrip(".,;")
    found = [f for f in facts(value) if not f.weak]
    year = next((f for f in found if _YEAR.fullmatch(value[f.start : f.end])), None)
    if year or found:
        chosen = year or found[0]
        return value[chosen.start : chosen.end]
    names = [  # "Arabic (native); English" opens with a name; "The studio in Lisbon" does not
        m.group(0)
        for m in _NAME_RUN.finditer(value)
        if m.start() > 0 or m.group(0).split()[0].lower() not in STOPWORDS
    ]
    return names[0] if names else ""


def profile_questions(site: SiteText, owner: Owner) -> Iterator[Candidate]:
    """From the profile: the facts page (data files) and an author page's profile section;
    "GitHub: a Swiss Army knife" in a list of press clips is no profile."""
    for section in site.sections:
        if section.page_id != FACTS_PAGE_ID and section.heading != PROFILE_HEADING:
            continue
        for sentence, kind in zip(section.sentences, section.sentence_kinds, strict=False):
            if kind != "fact":
                continue
            for group, key, value in _profile_pairs(sentence):
                candidate = _profile_question(section, owner, group, key, value)
                if candidate is not None:
                    yield candidate


def _profile_pairs(sentence: str) -> list[tuple[str, str, str]]:
    match = _PROFILE_LINE.match(sentence)
    if match is None:
        return []
    group = (match.group("group") or "").strip()
    pairs: list[list[str]] = []
    for part in match.group("pairs").split("; "):
        pair = _PAIR.match(part)
        if pair:
            pairs.append([pair.group("key").strip(), pair.group("value").strip()])
        elif pairs:
            pairs[-1][1] += "; " + part  # "Arabic (native); English (fluent)" is one value
    return [(group, key, value) for key, value in pairs]


def _profile_question(
    section: Section, owner: Owner, group: str, key: str, value: str
) -> Candidate | None:
    lowered = key.lower()
    if any(ch.isdigit() for ch in key) or lowered in ("name", "tagline"):
        return None  # an id ("Sz g01") or the owner's own name is no question
    fact = re.sub(r"^https?://(?:www\.)?", "", key_fact(value)).rstrip("/")  # as people write it
    if owner.words & {w.lower() for w in re.findall(r"\w+", fact)}:
        return None  # "Title: Ben Balter" is the site's title, not a job
    template = next((t for keys, t in PROFILE_QUESTIONS if lowered in keys), "")
    if not template or not fact:
        return None  # a key of no known meaning ("Tribal Leadership" in a books file)
    shown = SERVICE_NAMES.get(lowered, key[:1].upper() + key[1:])
    question = template.format(first=owner.first, possessive=owner.possessive, key=shown)
    return Candidate(
        finish(question),
        "fact",
        "profile fact",
        expected_sources=(section.id,),
        must_contain=((fact,),),
        notes=f"{group + ' — ' if group else ''}{key}: {value}",
    )


def published_questions(site: SiteText, owner: Owner) -> Iterator[Candidate]:
    templates = (
        "When did {first} publish “{title}”",
        "When was {possessive} post “{title}” published",
        "When did {first} write “{title}”",
    )
    for number, section in enumerate(site.sections):
        for sentence, kind in zip(section.sentences, section.sentence_kinds, strict=False):
            match = _PUBLISHED.match(sentence) if kind == "published" else None
            year = _YEAR.search(match.group("date")) if match else None
            if match is None or year is None or len(match.group("title").split()) > 14:
                continue
            if re.match(r"(and|but|or|so|then)\b", match.group("title"), re.IGNORECASE):
                continue  # "Or are you headed for burnout?" continues another title
            template = templates[number % len(templates)]
            if match.group("title")[-1:] in "?!":
                template = templates[1]
            question = template.format(
                first=owner.first, possessive=owner.possessive, title=match.group("title")
            )
            yield Candidate(
                finish(question),
                "fact",
                "publication date",
                expected_sources=(section.page_id,),
                must_contain=((year.group(0),),),
                notes=sentence,
            )


def setup_questions(site: SiteText, owner: Owner) -> Iterator[Candidate]:
    for section in site.sections:
        slug = section.page_id.rsplit("/", 1)[-1].replace("-", " ")
        if not (SETUP_PAGE.match(section.title.strip()) or SETUP_PAGE.match(slug)):
            continue
        for sentence, kind in zip(section.sentences, section.sentence_kinds, strict=False):
            match = _SETUP_ITEM.match(sentence) if kind in ("item", "prose") else None
            if match is None:
                continue
            key = match.group("key").strip().lower()
            words = key.split()
            if (
                _WH.match(key)
                or words[0] in STOPWORDS
                or len(words) > 3
                or any(site.casing[w] <= 0 for w in words if w not in STOPWORDS)
            ):
                continue  # "Homebrew: my Brewfile" names a tool, not a kind of tool
            head = " ".join(match.group("value").split()[:6])
            name = next(
                (
                    m.group(0)
                    for m in _NAME_RUN.finditer(head)
                    if m.group(0) not in ("I", "A")
                    and not (m.start() == 0 and site.casing[m.group(0).lower()] > 0)
                ),
                "",
            )  # "View my Brewfile" starts with a capitalised word, not a name
            if not name or name.lower() in STOPWORDS:
                continue
            key = key.replace("this site", f"{owner.their} site")
            if len(words) == 1 and not _MASS_NOUN.search(key):
                question = f"What {key} does {owner.first} use?"
            else:
                question = f"What does {owner.first} use for {key}?"
            yield Candidate(
                finish(question),
                "fact",
                "setup",
                expected_sources=(section.id,),
                must_contain=((name.rstrip(".,;"),),),
                notes=sentence,
            )
