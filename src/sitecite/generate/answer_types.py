"""What kind of answer a question wants, and whether a sentence holds that kind of thing.

A question's wording says what would answer it: how many -> a number, when -> a date, where ->
a place, who / which / what X -> a named thing the question did not already name, why -> a
reason, how do I -> steps (an imperative, or a list item). These are the features that tell the
sentence holding the answer from the one that only restates the question, which is the
ranker's hardest choice: both share the question's words.
"""

from __future__ import annotations

import re

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
# What the author has not done yet: a plan, a hope, a promise ("In the next part I plan to show
# ...", "I can't wait to update it when ...", "Full post coming soon!"). It answers what will
# be, never what was.
PLANNED = re.compile(
    r"\b(plan(s|ned|ning)?\s+to|hop(e|es|ing)\s+to|going\s+to|intend(s|ed)?\s+to|"
    r"can'?t\s+wait|coming\s+soon|in\s+the\s+(near\s+)?future|(next|future)\s+(part|post|"
    r"article|installment)|stay\s+tuned|would\s+(like|love)\s+to|will\s+(be\s+)?"
    r"(update|add|write|post|publish|show|cover|explore|look))\b",
    re.IGNORECASE,
)


def question_type(question: str) -> str:
    """The kind of answer a question wants, by its wording."""
    for name, pattern in _COMPILED:
        if pattern.search(question):
            return name
    return WHAT


def has_number(text: str) -> bool:
    return bool(NUMBER.search(text) or _WRITTEN_NUMBER.search(text))


def new_name(text: str, question_words: set[str]) -> bool:
    """A capitalised name (or a product such as Next.js) the question did not already say."""
    for match in NAME.finditer(text):
        word = match.group(0).lower().rstrip(".")
        if word not in question_words and word not in STOPWORDS:
            return True
    return False


def is_instruction(text: str, kind: str) -> bool:
    """A step: a list item, or a sentence that starts with an imperative ("Run ...", "Then add
    ...") or speaks to the reader ("you can ...", "to do X, ...")."""
    if kind == "item":
        return True
    match = _LEAD_WORD.search(text)
    first = match.group(0).lower() if match else ""
    lowered = text.lower()
    return first in _IMPERATIVE or lowered.startswith(("you can", "you'll", "you need", "to "))


def type_match(kind: str, sentence: str) -> float:
    """Whether the sentence holds the kind of thing the question type asks for (coarsely)."""
    if kind == COUNT:
        return float(bool(NUMBER.search(sentence)))
    if kind == WHEN:
        return float(bool(DATE.search(sentence)))
    if kind == WHERE:
        return float(bool(_PLACE.search(sentence)))
    if kind in (WHO, WHICH, WHAT):
        return float(bool(NAME.search(sentence)))
    if kind == WHY:
        return float(bool(REASON.search(sentence)))
    if kind in (HOW, STEPS):
        return float(bool(_METHOD.search(sentence)))
    return 0.0


def expected_answer(
    kind: str, text: str, sentence_kind: str, question_words: set[str]
) -> dict[str, float]:
    """One feature per question type: 1 when the question is of that type and the sentence holds
    what it asks for (a number for how many, a date for when, a place for where, a new name for
    who / which / what, a reason for why, a step for how do I), else 0. Kept apart so the ranker
    learns how much each matters."""
    return {
        "number_for_count": float(kind == COUNT and has_number(text)),
        "date_for_when": float(kind == WHEN and bool(DATE.search(text))),
        "place_for_where": float(kind == WHERE and bool(_PLACE.search(text))),
        "name_for_which": float(kind in (WHO, WHICH, WHAT) and new_name(text, question_words)),
        "reason_for_why": float(kind == WHY and bool(REASON.search(text))),
        "step_for_how": float(kind in (HOW, STEPS) and is_instruction(text, sentence_kind)),
    }


_ASKED = re.compile(
    r"\b(?:what|which|whose)(?:'s|\s+is|\s+was|\s+are|\s+were)?\s+(?:the\s+|a\s+|an\s+)?"
    r"((?:[a-z][\w'’-]*\s+){0,3}[a-z][\w'’-]*)|\bhow\s+(?:many|much)\s+((?:[a-z][\w'’-]*\s+){0,3}"
    r"[a-z][\w'’-]*)",
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
