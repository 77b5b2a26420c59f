"""Fact questions from the owner's own sentences, offline: a year ("In 2008, I bought my first
iPhone"), a number ("In 2017, I published four posts"), a version ("Mine is running iPhone OS
3.1.3"), a name ("I use OBS for streaming", "I moved from Jekyll to Gatsby"), a favourite, a
base, a past job. Each question asks for the one part of the sentence a visitor would want, and
`must_contain` holds that part word for word (with the figure's other spelling, "four" or "4").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from sitecite.questions.answerable import key_fact
from sitecite.questions.grammar import base_form, finish, third_person
from sitecite.questions.model import Candidate
from sitecite.questions.site import Owner, SiteText
from sitecite.tokens import CARDINALS, STOPWORDS

_YEAR = r"(?:19|20)\d\d"
_STATEMENTS = (
    # "In 2008, I bought my first iPhone." -> "When did Andrey buy his first iPhone?"
    re.compile(
        rf"^(?:In|Back in|Around) (?P<year>{_YEAR}),? "
        r"I (?P<verb>[a-z]+) (?P<rest>[^.;:!?]{3,70})[.!]?$"
    ),
    re.compile(rf"^I (?P<verb>[a-z]+) (?P<rest>[^.;:!?]{{3,70}}?) in (?P<year>{_YEAR})[.!]?$"),
)
_NUMBER = r"\d{1,3}(?:,\d{3})*|" + "|".join(w for w in CARDINALS if w not in ("zero", "one"))
# "In 2017, I published four posts." / "I found at least 80 independent Mastodon instances"
_COUNTED = re.compile(
    rf"^(?:(?:In|Back in) (?P<year>{_YEAR}),? )?I (?P<verb>[a-z]+) "
    rf"(?:at least |about |over |nearly |almost |around )?(?P<number>{_NUMBER}) "
    r"(?P<things>(?:[\w-]+ ){0,3}?[a-z][\w-]*s)\b(?P<rest> (?:in|on|at|for|with|about|from|"
    r"across|during) [^,;:.!?]{3,40})?[.!]?$",
)
# "Mine is running iPhone OS 3.1.3" / "I upgraded to Next.js 13.4": a version of the owner's.
_VERSION = re.compile(
    r"\b(?:I|I'm|I am|[Mm]ine is|[Mm]y \w+ (?:is|was)) (?P<verb>running|upgraded to|installed|"
    r"using|moved to|switched to|updated to) (?P<name>[A-Z][\w.+#-]*(?: [A-Z][\w.+#-]*)?) "
    r"v?(?P<version>\d+(?:\.\d+)+)\b"
)
_USE_FOR = re.compile(
    r"^I (?:also )?use (?P<name>[A-Z][\w.+#-]*(?: [A-Z][\w.+#-]*){0,2}) (?P<purpose>for "
    r"(?:the )?[a-z][\w -]{2,40}?)(?:,| and | because | since |[.!]?$)"
)
_SWITCHED = re.compile(
    rf"^(?:(?:In|Back in) {_YEAR},? )?I (?P<verb>switched|moved|migrated) (?P<what>(?:my|this|"
    r"our) [a-z]+ )?from (?P<old>[A-Z][\w.+#-]*(?: [A-Z][\w.+#-]*)?) to "
    r"(?P<new>[A-Z][\w.+#-]*(?: [A-Z][\w.+#-]*)?)"
)
_FAVOURITE = re.compile(
    r"\b[Mm]y favou?rite (?P<thing>[a-z]+(?: [a-z]+)?) (?:is|was|has to be) (?P<value>[^,;.()]+)"
)
_BASED = re.compile(
    r"^I(?:'m| am) based in (?P<place>[A-Z][\w-]+(?: [A-Z][\w-]+)?)|"
    r"^I (?:live in|work remotely from) (?P<place2>[A-Z][\w-]+(?: [A-Z][\w-]+)?)"
)
_WORKED = re.compile(
    r"\bI was an? (?P<role>[a-z][a-z -]{2,40}) at (?P<org>[A-Z][\w&.-]*(?: [A-Z][\w&.-]*){0,3})"
)
_DIGITS = {word: str(number) for word, number in CARDINALS.items()}


def statement_questions(
    site: SiteText, owner: Owner, known: Collection[str]
) -> Iterator[Candidate]:
    """Each first-person sentence read by every pattern; a sentence that gives a count is
    asked for the count, not for its year ("When did Jason publish four posts?" reads
    backwards)."""
    for row, sentence, kind in site.quotable():
        if kind not in ("prose", "item", "summary"):
            continue
        section = site.sections[row]
        counted, switched = _counted(sentence, owner, known), _switched(sentence, owner)
        for made in (  # one question of a sentence's year when no other asks what it says
            counted,
            switched,
            None if counted or switched else _year_statement(sentence, owner, known),
            _version(sentence, owner, known),
            _use_for(sentence, owner),
            _role(sentence, owner),
            _favourite(sentence, owner),
            _based(sentence, owner),
            _worked(sentence, owner),
        ):
            if made is not None:
                question, facts, kind_name = made
                yield Candidate(
                    finish(question),
                    "fact",
                    kind_name,
                    expected_sources=(section.id,),
                    must_contain=(facts,),
                    notes=sentence,
                )


Made = tuple[str, tuple[str, ...], str]


def _year_statement(sentence: str, owner: Owner, known: Collection[str]) -> Made | None:
    for pattern in _STATEMENTS:
        match = pattern.match(sentence)
        if match is None or re.search(rf"\b(one|{_NUMBER})\b", match.group("rest")):
            continue  # "I spent one full week in meetings in 2015" asks how long, not when
        verb = base_form(match.group("verb"), known)
        rest = third_person(match.group("rest"), owner)
        if verb and rest and verb not in ("have", "be"):
            return f"When did {owner.first} {verb} {rest}", (match.group("year"),), "year"
    return None


def _counted(sentence: str, owner: Owner, known: Collection[str]) -> Made | None:
    match = _COUNTED.match(sentence)
    if match is None:
        return None
    verb = base_form(match.group("verb"), known)
    things = third_person(match.group("things"), owner)
    if not verb or not things or verb in ("have", "be", "do") or things.split()[0] in STOPWORDS:
        return None
    number = match.group("number")
    rest = third_person((match.group("rest") or "").strip(), owner)
    when = f" in {match.group('year')}" if match.group("year") else ""
    question = f"How many {things} did {owner.first} {verb} {rest}{when}"
    spellings = (number, _DIGITS[number.lower()]) if number.lower() in _DIGITS else (number,)
    return question, spellings, "number"


def _version(sentence: str, owner: Owner, known: Collection[str]) -> Made | None:
    match = _VERSION.search(sentence)
    if match is None:
        return None
    verb, name = match.group("verb"), match.group("name")
    if verb == "running":
        question = f"Which version of {name} was {owner.first} running"
    elif verb == "using":
        question = f"Which version of {name} did {owner.first} use"
    else:
        head, _, tail = verb.partition(" ")
        base = base_form(head, known)
        if not base:
            return None
        question = f"Which version of {name} did {owner.first} {base} {tail}"
    return question, (match.group("version"),), "version"


def _use_for(sentence: str, owner: Owner) -> Made | None:
    match = _USE_FOR.match(sentence)
    if match is None:
        return None
    purpose = third_person(match.group("purpose").strip(), owner)
    name = match.group("name")
    if not purpose or name in ("I", "A", "The"):
        return None
    return f"What does {owner.first} use {purpose}", (name,), "tool"


def _switched(sentence: str, owner: Owner) -> Made | None:
    match = _SWITCHED.match(sentence)
    if match is None:
        return None
    verb = {"switched": "switch", "moved": "move", "migrated": "migrate"}[match.group("verb")]
    what = (match.group("what") or "").strip()
    if what:
        what = " " + (
            third_person(what.replace("this ", "my ", 1), owner) or what.replace("this", "the")
        )
    return (
        f"What did {owner.first} {verb}{what} to from {match.group('old')}",
        (match.group("new").rstrip("."),),
        "switch",
    )


def _role(sentence: str, owner: Owner) -> Made | None:
    """ "Jason Lengstorf is a principal engineer at Netlify" (the owner by name, or "I am")."""
    names = "|".join(re.escape(n) for n in {owner.name, owner.first} if n and n != "the author")
    subject = rf"(?:{names}|I)(?:'m| am| is)" if names else r"I(?:'m| am)"
    match = re.match(
        rf"^{subject} (?:currently )?(?:an? |the )[^.;]{{3,80}}? at "
        r"(?P<org>[A-Z][\w&.-]*(?: [A-Z][\w&.-]*){0,2})",
        sentence,
    )
    if match is None:
        return None
    return f"Where does {owner.first} work", (match.group("org").rstrip("."),), "employer"


def _favourite(sentence: str, owner: Owner) -> Made | None:
    match = _FAVOURITE.search(sentence)
    if match is None or any(w in STOPWORDS for w in match.group("thing").split()):
        return None
    fact = key_fact(match.group("value"))
    if not fact or len(fact.split()) > 5 or not re.search(r"[A-Z0-9]", fact):
        return None  # "my favorite bourbon is made" names nothing
    return f"What is {owner.possessive} favourite {match.group('thing')}", (fact,), "favourite"


def _based(sentence: str, owner: Owner) -> Made | None:
    match = _BASED.search(sentence)
    if match is None:
        return None
    place = match.group("place") or match.group("place2")
    return f"Where is {owner.first} based", (place,), "place"


def _worked(sentence: str, owner: Owner) -> Made | None:
    match = _WORKED.search(sentence)
    if match is None:
        return None
    role = match.group("role").strip()
    article = "an" if role[:1] in "aeiou" else "a"
    return f"Where did {owner.first} work as {article} {role}", (match.group("org"),), "past job"
