"""Follow-up questions: resolve "and what did she use for that?" against the previous turn,
before retrieval, so the rest of the pipeline answers a question that stands on its own.

A question is a follow-up when the conversation has a previous turn and the question leans on
it: it points back (that, this, there...; it, they... unless the question names its own topic
in four content words or more, which they then stand for), it is elliptical ("And when?",
"What size?", "what about Kestrel Bank?"), or every word it has is one that many pages of
the site use, so on its own it could be about anything ("What would she do differently?").

    pointing back   retrieval searches the question together with the previous one, and only
                    the pages the previous answer cited may answer, if any of them is admitted;
                    the answerer weighs the question's own words (what is asked), not the
                    previous ones (what it is about: the pages say that)
    elliptical      the question is completed with the previous one, for retrieval and for the
                    answerer alike

Each answer still cites its own sources and passes the same gate and checks. Nothing here
calls a model; the LLM generator also receives the previous turns, as data.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sitecite.index.store import Index
from sitecite.tokens import STOPWORDS, content_stems, stem, words
from sitecite.types import Hit, Turn

# Pronouns and adverbs that point at something said before. He/she/him/her are left out: on
# a personal site they mean the site's owner, whatever was asked before.
POINTERS = frozenset("it its itself this these those there they them their theirs same".split())
# Of those, the pronouns, which may stand for a noun of the question itself ("shoppers ... they").
PRONOUNS = frozenset("it its itself they them their theirs".split())
# "that" points back unless it joins a clause to a noun ("a project that she built").
_CLAUSE_STARTERS = frozenset(
    "i you he she we they it the a an his her their its my our your is was are were has have "
    "had can could will would did does do".split()
)
_OPENERS = re.compile(
    r"^(?:and|also|but|so|or|what about|how about|what else|anything else|tell me more|"
    r"more about|same for|and what about|and how about)\b",
    re.IGNORECASE,
)
_FRAMING = frozenset(
    "what which who whom whose when where why how does did do is are was were can could would "
    "should will has have had tell me more about please know".split()
)
SHORT_WORDS = 3  # "And when?", "What size?", "Why?"
# a question with this many content words of its own names its topic: "they" in it are its own
OWN_TOPIC_TERMS = 4
COMMON_PAGE_SHARE = 0.2  # a word on at least this share of the site's pages says little
COMMON_PAGE_MIN = 3


@dataclass(frozen=True)
class Resolution:
    """How a question is read in its conversation.

    `kind` is "" (stands on its own), "pointer" or "ellipsis"; `search` is what retrieval
    embeds and matches; `answer` what the answerer covers; `pages` the pages the previous
    answer cited, to which a pointing question is confined when one of them is admitted."""

    question: str
    search: str
    answer: str
    kind: str = ""
    pages: frozenset[str] = frozenset()
    previous: str = ""

    @property
    def standalone(self) -> str:
        """The question as it would be asked alone ("" when it already stands alone)."""
        return f"{self.question} ({self.previous})" if self.kind else ""

    @property
    def depth(self) -> int:
        """How many more hits to retrieve than asked for: confining discards the others."""
        return 3 if self.kind == "pointer" and self.pages else 1

    def focus(self, hits: Sequence[Hit], k: int) -> tuple[Hit, ...]:
        """The best `k` hits, confined to the previous answer's pages when that leaves
        something admitted (their hits first, the rest shown but not admitted)."""
        if self.kind != "pointer" or not self.pages:
            return tuple(hits[:k])
        if not any(h.admitted and h.section.page_id in self.pages for h in hits):
            return tuple(hits[:k])
        inside = [h for h in hits if h.section.page_id in self.pages]
        outside = [replace(h, admitted=False) for h in hits if h.section.page_id not in self.pages]
        return tuple([*inside, *outside][:k])

    def detail(self) -> str:
        if not self.kind:
            return "stands on its own"
        where = f"; confined to {', '.join(sorted(self.pages))}" if self.pages else ""
        return f"{self.kind}: read with the previous question '{self.previous}'{where}"


def resolve(question: str, history: Sequence[Turn], index: Index) -> Resolution:
    """Read `question` in the light of the last turn of `history` (oldest first)."""
    alone = Resolution(question, question, question)
    if not history:
        return alone
    previous = history[-1]
    tokens = words(question)
    own = _own_terms(question, index)
    if _points_back(tokens, own_topic=_names_its_topic(own, index)):
        kind = "pointer"
    elif (
        _OPENERS.match(question) or len(tokens) <= SHORT_WORDS or not own or _all_common(own, index)
    ):
        kind = "ellipsis"
    else:
        return alone
    # One question, not two: a "?" in the middle would split it into parts for the answerer.
    combined = f"{question.rstrip(' ?!.')} — {previous.question}"
    pages = frozenset(cited.split("#", 1)[0] for cited in previous.cited)
    return Resolution(
        question,
        search=combined,
        answer=question if kind == "pointer" and own else combined,
        kind=kind,
        pages=pages,
        previous=previous.question,
    )


def _names_its_topic(own: list[str], index: Index) -> bool:
    """Whether a question says what it is about in its own words: OWN_TOPIC_TERMS or more
    content terms of its own, not all of them words many pages use. Its pronouns may then
    point inside it ("How did she stop shoppers from getting charged twice when they
    double-clicked pay?": "they" are the shoppers), whatever was asked before."""
    return len(set(own)) >= OWN_TOPIC_TERMS and not _all_common(own, index)


def _points_back(tokens: list[str], own_topic: bool = False) -> bool:
    """Whether a word of the question points at something said before: a demonstrative
    always ("after that", "was that for"); a pronoun (it, they, them...) unless the question
    names its own topic, which it then stands for."""
    for position, token in enumerate(tokens):
        if token in POINTERS and not (own_topic and token in PRONOUNS):
            return True
        if token == "that":
            before = tokens[position - 1] if position else ""
            after = tokens[position + 1] if position + 1 < len(tokens) else ""
            relative = before and before not in STOPWORDS and after in _CLAUSE_STARTERS
            if not relative:
                return True
    return False


def _own_terms(question: str, index: Index) -> list[str]:
    """The question's own content terms (stemmed): no framing words, no owner's name."""
    subject = {stem(w) for w in index.subject_words}
    framing = {stem(w) for w in _FRAMING}
    return sorted(t for t in content_stems(question) if t not in subject and t not in framing)


_PAGE_COUNTS: dict[int, dict[str, int]] = {}  # by id(index), dropped when the index is


def _all_common(terms: list[str], index: Index) -> bool:
    """Whether every term is used by many of the site's pages (and none is a name)."""
    counts = _PAGE_COUNTS.get(id(index))
    if counts is None:
        pages: dict[str, set[str]] = {}
        for section in index.sections:
            for term in content_stems(section.embed_text):
                pages.setdefault(term, set()).add(section.page_id)
        counts = _PAGE_COUNTS[id(index)] = {term: len(ids) for term, ids in pages.items()}
        weakref.finalize(index, _PAGE_COUNTS.pop, id(index), None)
    floor = max(COMMON_PAGE_MIN, COMMON_PAGE_SHARE * len(index.page_ids))
    return bool(terms) and all(counts.get(term, 0) >= floor for term in terms)
