"""What kind of answer a question wants, and whether a sentence holds that kind of thing.

A question's wording says what would answer it: how many -> a number, when -> a date, where ->
a place, who / which / what X -> a named thing the question did not already name, why -> a
reason, how do I -> steps (an imperative, or a list item). These are the features that tell the
sentence holding the answer from the one that only restates the question, which is the
ranker's hardest choice: both share the question's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from sitecite.text import STOPWORDS

COUNT = "count"
WHEN = "when"
WHERE = "where"
WHO = "who"
WHY = "why"
HOW = "how"
STEPS = "steps"
WHICH = "which"
YESNO = "yesno"
WHAT = "what"

_TYPE_PATTERNS = (
    (COUNT, r"\bhow\s+(many|much|long|old|often|big|large|fast)\b|\bwhat\s+(number|share)\b"),
    (
        WHEN,
        r"^\W*(when|what\s+(year|date|time|day|month)|which\s+(year|date|month)|since\s+when)\b"
        r"|\bin\s+what\s+year\b",
    ),
    (WHERE, r"^\W*where\b|\bwhich\s+(city|country|place|town|state)\b"),
    (WHO, r"^\W*(who|whom|whose)\b|\bwhich\s+(person|people|company|team)\b"),
    (WHY, r"\bwhy\b|\bwhat\s+(made|makes|caused|causes|led)\b|\bfor\s+what\s+reason\b"),
    (
        STEPS,
        r"\bhow\s+(do|can|should|would)\s+(i|you|we|one)\b|\bhow\s+to\b|\bsteps?\b|\bset\s+up\b",
    ),
    (HOW, r"\bhow\s+(do|does|did|can|could|should|would|to|is|are|was|were)\b|^\W*how\b"),
    (WHICH, r"^\W*which\b"),
    (YESNO, r"^\W*(is|are|was|were|does|do|did|can|could|has|have|had|will|would|should)\b"),
)
_COMPILED = tuple((name, re.compile(pattern, re.IGNORECASE)) for name, pattern in _TYPE_PATTERNS)

NUMBER = re.compile(r"\d")
_WRITTEN_NUMBER = re.compile(
    r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
    r"fifty|hundred|thousand|million|billion|dozen|half|twice|once|single|double)\b",
    re.IGNORECASE,
)
DATE = re.compile(
    r"\b(1[6-9]\d\d|20\d\d)s?\b|\b(january|february|march|april|may|june|july|august|september|"
    r"october|november|december|yesterday|today|ago|century|decade|last\s+year|this\s+year)\b",
    re.IGNORECASE,
)
NAME = re.compile(r"(?<=\S\s)[A-Z][\w.+-]*[A-Za-z0-9+]")
_PLACE = re.compile(r"\b(in|at|from|near|to|based|moved|live|lives|living)\s+(the\s+)?[A-Z][a-z]")
REASON = re.compile(
    r"\b(because|since|so that|due to|as a result|in order to|reasons?|so|thanks to|caused|"
    r"why|therefore|hence|led|which meant|to avoid|to make|motivat\w*|wanted|instead|"
    r"tired of|frustrat\w*|benefits?|advantages?|the point)\b",
    re.IGNORECASE,
)
_IMPERATIVE = frozenset(
    "add run install set create use open go click copy paste make change type enter select "
    "download edit replace remove delete navigate check configure enable disable write save push "
    "clone fork pull commit call import load define start stop restart build deploy update "
    "upgrade rename move put give try follow head visit sign log register apply convert export "
    "read include insert wrap specify pass point grab find note keep store fill first then next "
    "finally simply just".split()
)
_METHOD = re.compile(
    r"\b(by|using|use|uses|used|with|through|via|run|install|add|set|create|first|then|step)\b",
    re.IGNORECASE,
)
_LEAD_WORD = re.compile(r"[A-Za-z]+")
_TOKEN = re.compile(r"[\w.+$%-]+")
FIRST_PERSON = re.compile(r"\b(I|I'm|I've|I'd|I'll|my|me|we|our|us)\b")
# A promise with no subject: "Full post coming soon!", "stay tuned".
_PROMISE = r"coming\s+soon|stay\s+tuned|in\s+the\s+(?:near\s+)?future"
# What the author has not done yet: a plan, a hope, a promise ("In the next part I plan to show
# ...", "I can't wait to update it when ...", "Full post coming soon!"). It answers what will
# be, never what was. Wide, for the ranker's `planned` feature: anyone's plan, "going to".
PLANNED = re.compile(
    r"\b(plan(s|ned|ning)?\s+to|hop(e|es|ing)\s+to|going\s+to|intend(s|ed)?\s+to|"
    rf"can'?t\s+wait|{_PROMISE}|(next|future)\s+(part|post|"
    r"article|installment)|would\s+(like|love)\s+to|will\s+(be\s+)?"
    r"(update|add|write|post|publish|show|cover|explore|look))\b",
    re.IGNORECASE,
)
# Narrow, for deciding that only a plan answers (`generate/extractive.only_planned`): the
# owner's own plan ("I plan to show", "I can't wait to update it") or a promise ("Full post
# coming soon!", "in the next part"); not advice ("the story that you plan to deliver") nor a
# tutorial's "we're going to".
OWN_PLAN = re.compile(
    r"\b(?:I|we)(?:['’](?:m|re)|\s+am|\s+are)?\s+(?:\w+\s+)?(?:plan(?:s|ned|ning)?\s+to|"
    r"intend(?:s|ed)?\s+to|hop(?:e|ing)\s+to|can['’]?t\s+wait|would\s+(?:like|love)\s+to)\b"
    rf"|\b(?:{_PROMISE})\b"
    r"|\b(?:next|future|upcoming)\s+(?:part|post|article|installment)\b",
    re.IGNORECASE,
)
# A question about what is to come, or meant: a plan answers it.
ASKS_PLANS = re.compile(
    r"\b(plan\w*|will|going\s+to|next|future|upcoming|soon|intend\w*|hop(e|es|ing)|goals?|"
    r"roadmap|wait\w*|later|yet|want\w*|try\w*|tries|tried|aim\w*|purpose|meant)\b",
    re.IGNORECASE,
)


_ASKS_STEPS = re.compile(
    r"\bhow\s+(do|can|should|would)\s+(i|you|we|one)\b|\bhow\s+to\b|\bsteps?\b|\bset\s+up\b",
    re.IGNORECASE,
)


def asks_for_steps(question: str) -> bool:
    """ "How do I...", "how to...", "what steps...", "set up": the answer is what to do."""
    return bool(_ASKS_STEPS.search(question))


def question_type(question: str) -> str:
    """The kind of answer a question wants, by its wording."""
    for name, pattern in _COMPILED:
        if pattern.search(question):
            return name
    return WHAT


def has_number(text: str) -> bool:
    return bool(NUMBER.search(text) or _WRITTEN_NUMBER.search(text))


def is_instruction(text: str, kind: str) -> bool:
    """A step: a list item, or a sentence that starts with an imperative ("Run ...", "Then add
    ...") or speaks to the reader ("you can ...", "to do X, ...")."""
    if kind == "item":
        return True
    match = _LEAD_WORD.search(text)
    first = match.group(0).lower() if match else ""
    lowered = text.lower()
    return first in _IMPERATIVE or lowered.startswith(("you can", "you'll", "you need", "to "))


@dataclass(frozen=True)
class Traits:
    """What a sentence holds, whatever the question: read once per sentence and kind (cached),
    since the same sentences come back question after question."""

    digit: bool
    number: bool  # a digit or a written number ("twelve", "a dozen")
    date: bool
    place: bool
    name: bool
    reason: bool
    method: bool
    step: bool
    planned: bool
    first_person: bool
    names: tuple[str, ...]  # its capitalised names, lower-cased
    details: tuple[str, ...]  # its tokens holding a digit or a capital, lower-cased


@lru_cache(maxsize=1 << 16)
def traits(text: str, kind: str) -> Traits:
    names = tuple(
        word
        for word in (m.group(0).lower().rstrip(".") for m in NAME.finditer(text))
        if word not in STOPWORDS
    )
    details = tuple(
        token.lower().strip(".")
        for token in _TOKEN.findall(text)
        if NUMBER.search(token) or (token[:1].isupper() and len(token) > 1)
    )
    return Traits(
        digit=bool(NUMBER.search(text)),
        number=has_number(text),
        date=bool(DATE.search(text)),
        place=bool(_PLACE.search(text)),
        name=bool(NAME.search(text)),
        reason=bool(REASON.search(text)),
        method=bool(_METHOD.search(text)),
        step=is_instruction(text, kind),
        planned=bool(PLANNED.search(text)),
        first_person=bool(FIRST_PERSON.search(text)),
        names=names,
        details=details,
    )


def type_match(kind: str, held: Traits) -> float:
    """Whether the sentence holds the kind of thing the question type asks for (coarsely)."""
    found = {
        COUNT: held.digit,
        WHEN: held.date,
        WHERE: held.place,
        WHO: held.name,
        WHICH: held.name,
        WHAT: held.name,
        WHY: held.reason,
        HOW: held.method,
        STEPS: held.method,
    }
    return float(found.get(kind, False))


def expected_answer(kind: str, held: Traits, question_words: set[str]) -> dict[str, float]:
    """One feature per question type: 1 when the question is of that type and the sentence holds
    what it asks for (a number for how many, a date for when, a place for where, a new name for
    who / which / what, a reason for why, a step for how do I), else 0. Kept apart so the ranker
    learns how much each matters."""
    new = any(name not in question_words for name in held.names)
    return {
        "number_for_count": float(kind == COUNT and held.number),
        "date_for_when": float(kind == WHEN and held.date),
        "place_for_where": float(kind == WHERE and held.place),
        "name_for_which": float(kind in (WHO, WHICH, WHAT) and new),
        "reason_for_why": float(kind == WHY and held.reason),
        "step_for_how": float(kind in (HOW, STEPS) and held.step),
    }


def new_detail(held: Traits, question_words: set[str]) -> bool:
    """A number or a name the question did not already say: what an answer adds."""
    return any(token not in question_words for token in held.details)


_ASKED = re.compile(
    r"\b(?:what|which|whose)(?:'s|\s+is|\s+was|\s+are|\s+were)?\s+(?:the\s+|a\s+|an\s+)?"
    r"(?:(?:kind|type|sort|make|brand)s?\s+of\s+)?"  # "what kind of computer": a computer
    r"((?:[a-z][\w'’-]*\s+){0,3}[a-z][\w'’-]*)"
    r"|\bhow\s+(?:many|much)\s+((?:[a-z][\w'’-]*\s+){0,3}[a-z][\w'’-]*)",
    re.IGNORECASE,
)
_NOT_NOUNS = frozenset(
    "do does did is are was were has have had can could will would should of for in on to "
    "that this he she they it you i we about kind type sort name way thing things".split()
)
_DETERMINERS = frozenset("this that the a an his her their my our its your these those".split())


def asked_noun(question: str) -> str:
    """The noun a question asks for: "What *dataset* did he use", "Which *version* of Git",
    "How many *stars*"; "" when it asks for none."""
    match = _ASKED.search(question)
    if match is None:
        return ""
    phrase = (match.group(1) or match.group(2) or "").split()
    nouns: list[str] = []
    for word in phrase:
        if not nouns and word.lower().endswith(("'s", "’s")):
            continue  # "What are *Jake's* rates": the owner, not the thing asked for
        lowered = word.lower()
        if lowered in _NOT_NOUNS or lowered in STOPWORDS:
            if lowered in _DETERMINERS and len(nouns) > 1:
                nouns.pop()  # "which company *hosts* this": a verb before its object
            break
        if nouns and lowered.endswith("ed"):
            break  # "how many recipes *ended* up": a verb after the noun
        nouns.append(lowered)
    return nouns[-1] if nouns else ""
