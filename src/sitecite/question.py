"""The visitor's question, read once: what it asks, in how many parts, about whom.

Every step after retrieval takes one `Reading` instead of reading the question again: the
screen (instructions, the kind of answer asked for), the question with "you" read as the
site's owner, how it stands in the conversation (sitecite.followup), its parts (a question
that asks several things), and per part the kind of answer it asks for, whether it asks about
a whole page (its topic), and whether it asks who the owner is, what they do, where they are,
whether they are free or how to reach them. The proper names it asks about are kept apart
from those the visitor says of themselves ("we're in New York").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sitecite.addressed import addressed
from sitecite.followup import Resolution, resolve
from sitecite.index.store import Index
from sitecite.screen import Screen, answer_kind, screen_question
from sitecite.text import STOPWORDS, words
from sitecite.tokens import content_tokens, stem
from sitecite.types import Turn

_CAPITALISED = re.compile(r"(?<![\w'’])([A-Z][\w'’&.-]*[\w])")

CONTRACTION = re.compile(r"['’](s|re|ve|ll|d|m|t)$|n['’]t$")


def proper_names(question: str) -> list[str]:
    """Capitalised words that do not start a sentence: names of things (Google, Delft, John)."""
    tokens = question.split()
    if tokens and sum(t[:1].isupper() for t in tokens) > 0.6 * len(tokens):
        return []  # Title Case Question: capitals say nothing
    names = []
    for match in _CAPITALISED.finditer(question):
        before = question[: match.start()].rstrip()
        if not before or before[-1] in '.?!:;"(<>':
            continue
        for part in re.split(r"[-/]", CONTRACTION.sub("", match.group(1).rstrip("."))):
            if len(part) > 1 and part.lower() not in STOPWORDS and part[:1].isupper():
                names.append(part)
    return names


_PART_BREAK = re.compile(
    r"\?\s+(?=\S)|,?\s+and\s+(?=(?:what|which|how|who|whose|when|where|why|whether|has|have|does|did|"
    r"is|are|was|were|can|could|would)\b)",
    re.IGNORECASE,
)


def question_parts(question: str) -> list[str]:
    """A question that asks several things ("Which one, and what did it change?") split into its
    parts; a part of fewer than three words stays with the one before it, and a statement ("I'd
    like to send her a gift.") is context for the question beside it, never a part of its own."""
    pieces = [p.strip(" ,") for p in _PART_BREAK.split(question)]
    parts: list[str] = []
    pending = ""  # statements waiting for the question they introduce
    for piece in (p for p in pieces if p):
        if parts and len(piece.split()) < 3:
            parts[-1] = f"{parts[-1]} {piece}"
        elif not _asks(piece):
            pending = f"{pending} {piece}".strip()
        else:
            parts.append(f"{pending} {piece}".strip())
            pending = ""
    if pending and parts:
        parts[-1] = f"{parts[-1]} {pending}"
    return [each for part in parts for each in _compared(part)] or [question]


# "How did INP change on the newspaper project compared with the checkout?"
_COMPARED = re.compile(
    r"^(?P<head>.*\b(?:on|in|for|at|with|of|from|about)\s)(?P<one>.+?),?\s+"
    r"(?:compared\s+(?:with|to)|as\s+opposed\s+to|versus|vs\.?)\s+(?P<two>[^?]+?)\s*\??$",
    re.IGNORECASE,
)


def _compared(part: str) -> list[str]:
    """A comparison asks the same thing of two things: "How did INP change on the newspaper
    project compared with the checkout?" is asked of each, so each is searched for on its own
    ("How did INP change on the checkout?")."""
    match = _COMPARED.match(part)
    if match is None:
        return [part]
    head = match.group("head")
    return [f"{head}{match.group('one')}", f"{head}{match.group('two')}?"]


_VISITOR = re.compile(r"^\W*(i|i'm|i've|i'd|we|we're|we've|we'd|our|my|us)\b", re.IGNORECASE)
_THIRDPERSON = re.compile(r"\b(he|she|they|him|her|his|hers|them|their)\b", re.IGNORECASE)
_PIECES = re.compile(r"(?<=[.?!])\s+")


def about_the_visitor(question: str, is_owner: Callable[[str], bool]) -> str:
    """What the visitor says about themselves around their question ("what are your working
    hours? we're in New York", "I'm hiring in Berlin."): statements in the first person that
    ask nothing and are not about the owner. Their names are the visitor's, not the site's."""
    pieces = [p for chunk in _PART_BREAK.split(question) for p in _PIECES.split(chunk)]
    return " ".join(
        piece
        for piece in pieces
        if _VISITOR.search(piece.replace("’", "'"))
        and not _asks(piece)
        and not _THIRDPERSON.search(piece)
        and not any(is_owner(w.lower()) for w in re.findall(r"[A-Za-z]+", piece))
    )


_ASKS = re.compile(
    r"\?\s*$|(?:^\W*|[,;:.!]\s+)(what|which|who|whom|whose|when|where|why|how|whether|is|are|was|were|do|does|"
    r"did|can|could|would|should|will|has|have|had|tell|name|list|describe|explain)\b",
    re.IGNORECASE,
)


def _asks(piece: str) -> bool:
    """Whether a piece of a question asks something (rather than telling some context)."""
    return bool(_ASKS.search(piece))


_OVERVIEW = re.compile(
    r"^\s*(?:(?:can|could|would)\s+you\s+|please\s+)?"
    r"(?:tell\s+me\s+(?:more\s+)?about|give\s+(?:me\s+)?an\s+overview\s+of|"
    r"(?:an\s+)?overview\s+of|summari[sz]e|what(?:\s+is|\s+was|'s|’s)\s+(?:the\s+)?)"
    r"\s*(?P<topic>.+?)(?:\s+(?:post|page|article|project))?(?P<about>\s+about)?\s*[?.!]*\s*$",
    re.IGNORECASE,
)


def overview_topic(question: str) -> str:
    """The topic of a question asking about a whole thing, or "" for any other question.
    "What is X" asks about a whole thing only as "What is X about?"."""
    match = _OVERVIEW.match(question)
    if not match:
        return ""
    opener = question[: match.start("topic")].lower()
    if opener.lstrip().startswith("what") and not match.group("about"):
        return ""
    return match.group("topic").strip()


def _stems(*words: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words)


WHO, ROLE, CONTACT, PLACE, FREE = "who", "role", "contact", "place", "free"
SITE = "site"  # who is behind the site: the owner's name first
# what a question about the owner's work may say besides their name
_ROLE_WORDS = _stems(
    *("work", "works", "job", "jobs", "role", "occupation", "career", "profession"),
    *("company", "employer", "title", "position", "day", "days", "current", "currently"),
    *("now", "today", "kind", "type", "field", "industry"),
)
# "where are you based?", "which city does she live in?"
_PLACE_WORDS = _stems(
    *("based", "located", "location", "live", "lives", "living", "from", "city", "country"),
    *("reside", "home", "hometown", "town", "where", "currently", "now", "today"),
)
_PLACE_ASKS = _stems("based", "located", "location", "live", "reside", "city", "country")
# "are you available?", "is she taking new clients?", "can I hire you for a project soon?"
_FREE_WORDS = _stems(
    *("available", "availability", "free", "open", "hire", "booked", "taking", "take"),
    *("new", "client", "clients", "project", "projects", "work", "contract", "contracts"),
    *("start", "starting", "soon", "now", "currently", "moment", "month", "next"),
    *("opportunities", "offers", "engagement", "engagements", "freelance", "right"),
    *("job", "jobs", "role", "roles", "opportunity", "offer", "earliest", "soonest"),
)
# "when is the earliest she could start?": when, not whether
_FREE_ASKS = _stems(
    *("available", "availability", "free", "open", "hire", "booked", "taking", "earliest"),
    "soonest",
)
_WHERE = re.compile(r"^\W*where\b", re.IGNORECASE)
_WHO_WORDS = _stems("background", "bio", "biography", "profile", "story", "himself", "herself")
_CONTACT_WORDS = _stems(
    *("contact", "reach", "email", "e-mail", "mail", "touch", "get", "hire", "message"),
    *("enquiry", "inquiry", "connect", "best", "way", "talk", "details", "info"),
)
_CONTACT_ASKS = _stems("contact", "reach", "email", "e-mail", "touch", "hire", "connect")
_WHO = re.compile(
    r"^\W*(?:who\b|tell\s+me\s+(?:more\s+)?about\b|(?:a\s+)?(?:little\s+)?about\b|introduce\b)",
    re.IGNORECASE,
)
_DOES = re.compile(r"\bwhat\s+(?:does|do|did)\b.*\bdo\b|\bfor\s+a\s+living\b", re.IGNORECASE)
PAST = re.compile(
    r"\b(was|were|did|had|used\s+to|before|previously|formerly|former|past|earlier|ago|"
    r"first|then|back\s+in|(?:19|20)\d\d)\b",
    re.IGNORECASE,
)
# "who runs this site?", "who is the guy behind this blog?", "whose website is this?"
_BEHIND = re.compile(
    r"^\W*(?:who(?:'s|\s+is|\s+are)?\s+(?:the\s+\w+\s+)?(?:behind|runs|writes|made|built|"
    r"owns|maintains|created|wrote)|whose)\s+(?:this|the)\s+(?:site|website|blog|page|portfolio)"
    r"(?:\s+is\s+this)?\W*$"
    r"|^\W*whose\s+(?:site|website|blog|portfolio)\s+is\s+this\W*$",
    re.IGNORECASE,
)
_LIVING = re.compile(r"\bfor\s+a\s+living\b", re.IGNORECASE)
PERSON = frozenset({"he", "she", "they", "him", "her", "his", "hers", "their", "them"})


def owner_question(question: str, is_owner: Callable[[str], bool]) -> str:
    """WHO, ROLE, PLACE, FREE or CONTACT when `question` asks that about the owner (named,
    or "he", "she", "they"), else ""; `is_owner` says whether a word is one of the owner's
    names. "Who runs this site?" asks who the owner is without naming them."""
    if _BEHIND.search(question):
        return SITE
    lowered = lowered_words(question)
    names = [w for w in lowered if w.isalpha() and is_owner(w)]
    if not names and not PERSON.intersection(lowered):
        return ""
    rest = asked_stems(_LIVING.sub(" ", question), is_owner)
    if rest and rest <= _CONTACT_WORDS and rest & _CONTACT_ASKS:
        return CONTACT
    if rest <= _WHO_WORDS and names and _WHO.search(question):
        return WHO
    if PAST.search(question):
        return ""  # the profile says what is true now: "which company was he at in 2020?"
    if rest <= _FREE_WORDS and rest & _FREE_ASKS:
        return FREE
    if rest <= _PLACE_WORDS and (
        rest & _PLACE_ASKS or (_WHERE.search(question) and "from" in lowered)
    ):
        return PLACE
    if rest <= _ROLE_WORDS and (rest or _DOES.search(question)):
        return ROLE
    return ""


def lowered_words(question: str) -> list[str]:
    """The question's words in lower case, possessives removed ("Tim's" -> "tim")."""
    return [re.sub(r"['’]s?$", "", w) for w in words(question)]


def asked_stems(text: str, is_owner: Callable[[str], bool]) -> set[str]:
    """The stems of the text's content words, the owner's names aside."""
    return {t.stem for t in content_tokens(text) if not is_owner(t.lower)}


@dataclass(frozen=True)
class Part:
    """One thing the question asks: its words, the kind of answer it asks for ("date",
    "count", ... or ""), the whole page it asks about (its topic, or ""), and the kind of
    question about the owner it is (WHO, ROLE, PLACE, FREE, CONTACT, SITE, or "")."""

    text: str
    kind: str = ""
    topic: str = ""
    owner: str = ""


@dataclass(frozen=True)
class Reading:
    """The question read once, for every step after it.

    `asked` is the visitor's own words; `text` what the answer covers (the question itself,
    or a follow-up completed with the previous one); `search` what retrieval embeds;
    `owner` the kind of question about the owner the whole question is ("" if none);
    `visitor` what the visitor says of themselves; `names` the proper names it asks about."""

    asked: str
    text: str
    search: str
    screen: Screen
    resolution: Resolution
    owner: str = ""
    visitor: str = ""
    names: tuple[str, ...] = ()
    parts: tuple[Part, ...] = field(default_factory=tuple)

    @property
    def kind(self) -> str:
        """The kind of answer the whole question asks for ("" when any sentence may do)."""
        return self.screen.answer_kind or answer_kind(self.text)

    @property
    def followup(self) -> str:
        return self.resolution.kind


def read(
    question: str,
    history: Sequence[Turn] = (),
    index: Index | None = None,
) -> Reading:
    """Read a question (and its conversation) once. Without an index (a generator handed a
    bare question) the owner is unknown and a follow-up cannot be resolved."""
    screen = screen_question(question)
    owner_name = index.subject if index is not None else ""
    is_owner = index.is_subject if index is not None else _nobody
    # "who are you?" asks about the owner the box speaks for (sitecite.addressed); read so
    # only when that is all it asks: the owner's name in "have you ever won a hackathon?"
    # pulls the search towards the profile, and "you" alone is a word search ignores
    as_owner = addressed(question, owner_name)
    owner = owner_question(as_owner, is_owner)
    start = as_owner if owner else question
    resolution = (
        resolve(start, history, index) if index is not None else Resolution(start, start, start)
    )
    return reading_of(question, resolution.answer, resolution, screen, owner, is_owner)


def reading_of(
    asked: str,
    text: str,
    resolution: Resolution,
    screen: Screen,
    owner: str,
    is_owner: Callable[[str], bool],
) -> Reading:
    """The Reading of `text` (what the answer covers), its parts and names."""
    visitor = about_the_visitor(text, is_owner)
    said = set(proper_names(visitor)) - set(proper_names(text.replace(visitor, " ")))
    names = tuple(n for n in proper_names(text) if n not in said)
    pieces = question_parts(text)
    parts = tuple(
        Part(
            piece,
            answer_kind(piece),
            overview_topic(piece) if len(pieces) == 1 else "",
            owner_question(piece, is_owner),
        )
        for piece in pieces
    )
    return Reading(asked, text, resolution.search, screen, resolution, owner, visitor, names, parts)


def _nobody(word: str) -> bool:
    return False
