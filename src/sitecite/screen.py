"""Question screening: recognise instructions dressed up as questions, and what kind of answer a
question asks for.

A question that tries to give orders ("ignore previous instructions", "you are now...",
"print your system prompt") is refused before retrieval results reach any generator: the
site's visitors ask questions, they do not configure the assistant. The answer kind
("how old", "phone number", "how much did they pay") lets the generator demand that its
evidence contains that kind of thing (an age, a phone number, an amount of money) instead
of quoting something merely similar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sitecite.injection import INSTRUCTION_PATTERNS
from sitecite.tokens import stem

_I = re.IGNORECASE | re.DOTALL

# Requests that are not questions about the site at all, screened in questions only (a page may
# well say "write a script" or "reveal"; that is not an instruction planted in it).
REQUEST_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, _I))
    for name, pattern in (
        (
            "off-topic-task",
            r"^\W*(please\s+)?(write|compose|generate|draft|code|create)\s+(me\s+|us\s+)?(a|an|some)\s+"
            r"([\w-]+\s+){0,3}(poem|story|essay|script|program|function|song|joke|haiku|limerick|"
            r"tweet|letter|email|scraper|bot|app)\b",
        ),
        (
            "intrusion",
            r"\b(log(ging)?\s*in(to)?|hack(ing)?|break(ing)?\s+in(to)?|take\s+over|exploit(ing)?)\b"
            r"[^.?!]{0,60}\b(exposed|someone\s+else'?s|other\s+people'?s|with\s+(its|their|the)\s+"
            r"default\s+passwords?|without\s+(permission|authori[sz]ation))\b",
        ),
        (
            "secrets",
            r"\b(reveal|give|show|leak|share|send|tell|print|dump)\b[^.?!]{0,50}\b(passwords?|"
            r"passphrases?|api[\s-]?keys?|access[\s-]?keys?|secret[\s-]?keys?|private[\s-]?keys?|"
            r"credentials|tokens?)\b(?!\s+managers?)",
        ),
    )
)

# "You are Elena Vasquez": a new identity by name (case matters, so no IGNORECASE).
_NAMED_IDENTITY = re.compile(r"\b[Yy]ou\s+are\s+(?:now\s+)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+")


@dataclass(frozen=True)
class Screen:
    """The verdict on a question: instructions found (refuse), and the kind of answer expected."""

    instruction: str
    matched: str
    answer_kind: str

    @property
    def refuse(self) -> bool:
        return bool(self.instruction)


# Each kind: a pattern that recognises the question, and one that evidence must contain.
ANSWER_KINDS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (name, re.compile(asks, _I), re.compile(evidence, _I))
    for name, asks, evidence in (
        (
            "phone",
            r"\b(phone|mobile|cell|telephone|whatsapp)\b(\s+\w+){0,2}\s+(number|no\.?)\b"
            r"|\b(number)\b[^.?]{0,20}\b(call|text|phone)\b",
            r"\+?\d[\d ().-]{7,}\d",
        ),
        (
            "email",
            r"\be-?mail(\s+address)?\b(?![^.?]{0,30}\b(reply|respond|answer))",
            r"[\w.+-]+@[\w-]+\.[\w.]+",
        ),
        (
            "address",
            r"\b(home|street|postal|mailing|house|physical)\s+address\b|\bwhere\s+(exactly\s+)?does\s+\w+\s+live\b",
            r"\b\d+[a-z]?,?\s+(\w+\s+){0,3}(street|st\.|road|rd\.|avenue|ave\.|rua|lane|square|praça|travessa|largo)\b"
            r"|\b(street|rua|avenue|avenida|travessa)\s+\w+[^.]{0,30}\d",
        ),
        (
            "bank",
            r"\b(bank\s+(account|details)|iban|account\s+number|sort\s+code|card\s+number|routing\s+number)\b",
            r"\b[A-Z]{2}\d{2}[A-Z0-9 ]{10,30}\b",
        ),
        (
            "age",
            r"\bhow\s+old\b|\b(her|his|their)\s+age\b|\bdate\s+of\s+birth\b|\bwhen\s+was\s+\w+\s+born\b|\bbirthday\b",
            r"\b\d{1,3}\s*(years?\s+old|-year-old)\b|\baged\s+\d+\b|\bborn\s+(in|on)\b",
        ),
        (
            "money",
            r"\bhow\s+much\b[^.?]{0,60}\b(pay|paid|charges?|charged|cost|costs|earn|earned|make|makes|"
            r"made|worth|bill|billed|invoice|invoiced)\b|\b(salary|salaries|day\s+rate|hourly\s+rate|daily\s+rate|"
            r"fees?|pricing|price\s+list|income|earnings)\b|\b(her|his|their|your)\s+rates?\b"
            r"|\bwhat\s+(does|did|would|will)\s+\w+\s+charge\b",
            r"[€$£¥]\s?\d|\d\s?(€|\$|£|eur|euros?|usd|dollars?|gbp|pounds?|k\s?(€|\$|£))\b|\b(EUR|USD|GBP)\s?\d",
        ),
        (
            "count",
            r"^\s*(how\s+many|what\s+number\s+of)\b|\bhow\s+many\b",
            r"\d|\b(one|two|three|four|five|six|"
            r"seven|eight|nine|ten|eleven|twelve|dozen|hundred|thousand|million)\b",
        ),
        (
            "version",
            r"\b(which|what)\s+version\b|\bversion\s+number\b",
            r"\bv?\d+\.\d+(\.\d+)*\b|\bversion\s+\d+",
        ),
        (
            "duration",
            r"^\s*(for\s+)?how\s+long\b",
            r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|several|few|"
            r"couple\s+of)\s+(seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?)\b",
        ),
        (
            "date",
            r"^\s*(when|what\s+year|which\s+year|since\s+when|what\s+date|on\s+what\s+date|in\s+what\s+year)\b",
            # a month by its capital ("may" and "march" are verbs too), a season, a year
            r"\b(1[89]\d\d|20\d\d)\b|\b(?-i:January|February|March|April|May|June|July|August|"
            r"September|October|November|December)\b|\b(spring|summer|autumn|winter|today|"
            r"yesterday)\b",
        ),
    )
)


def answer_kind(question: str) -> str:
    """The first kind of answer the question asks for, or "" when any sentence may answer it."""
    for name, asks, _ in ANSWER_KINDS:
        if asks.search(question):
            return name
    return ""


_COUNTED = re.compile(
    r"\bhow\s+many\s+(?:[\w-]+\s+){0,3}?([a-z][\w-]*)\s+(?:do|does|did|is|are|was|were|has|have|had|"
    r"can|could|will|would|should|in|on|at|of|per|a|an|the|she|he|they|it|you|we|there|\w+ed)\b",
    _I,
)
_NUMBER_WORDS = (
    r"\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"twenty|thirty|forty|fifty|hundred|thousand|million|dozens?|hundreds|thousands"
)


def counted_noun(question: str) -> str:
    """The thing a "how many" question counts: "How many GitHub stars does..." -> "stars"."""
    match = _COUNTED.search(question)
    return match.group(1).lower() if match else ""


def has_answer_kind(kind: str, text: str, question: str = "") -> bool:
    """Whether `text` contains an answer of that kind (always true for the empty kind).

    A count must count the thing asked about: a number within three words before it."""
    if not kind:
        return True
    if kind == "count":
        noun = counted_noun(question)
        if noun:
            target = stem(noun)
            tokens = re.findall(r"[\w'’,.-]+", text.lower())
            for position, token in enumerate(tokens):
                if re.fullmatch(_NUMBER_WORDS, token.strip(",.")):
                    window = tokens[position + 1 : position + 5]
                    if any(stem(w.strip(",.'’")) == target for w in window):
                        return True
            return False
    evidence = next(pattern for name, _, pattern in ANSWER_KINDS if name == kind)
    return bool(evidence.search(text))


def screen_question(question: str) -> Screen:
    for name, pattern in (*INSTRUCTION_PATTERNS, *REQUEST_PATTERNS):
        match = pattern.search(question)
        if match:
            return Screen(name, match.group(0)[:80], answer_kind(question))
    named = _NAMED_IDENTITY.search(question)
    if named:
        return Screen("identity-override", named.group(0)[:80], answer_kind(question))
    return Screen("", "", answer_kind(question))
