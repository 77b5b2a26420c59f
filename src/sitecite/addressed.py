"""Questions put to the site as if to its owner: "who are you?", "where do you work?".

The box on a personal site speaks for its owner, so visitors write to it in the second person.
Read that way, "you" is the owner: the question is searched and answered as "Who is Timothy
Lin?", "Where does Timothy Lin work?", "What is Timothy Lin's tech stack?". A "you" asked to
do something ("can you tell me...", "could you list...") is the box itself and stays. The
visitor's own words are what the screen reads and what the answer shows as the question.
"""

from __future__ import annotations

import re

_KEEP = "\x00"  # stands for a "you" that is the box, while the others are replaced
# "can you tell me", "could you please list": the box is asked to do something
_REQUEST = re.compile(
    r"\b((?:can|could|would|will)\s+)you(\s+(?:please\s+)?(?:tell|explain|describe|show|give|"
    r"list|summari[sz]e|share|help|recommend|say|provide|point|suggest|name|find|walk|clarify|"
    r"check|look)\b)",
    re.IGNORECASE,
)
# the verb agrees with a third person: "do you" -> "does Timothy Lin", "you are" -> "... is"
_AGREE = {"do": "does", "are": "is", "were": "was", "have": "has"}
_ASKED = re.compile(
    r"\b(do|does|did|are|were|was|have|has|had|can|could|would|will|should|shall|may|might)"
    r"\s+you\b",
    re.IGNORECASE,
)
_STATED = re.compile(r"\byou\s+(are|were|have|do)\b", re.IGNORECASE)
_CONTRACTED = re.compile(r"\byou['’](re|ve|d|ll)\b", re.IGNORECASE)
_CONTRACTIONS = {"re": "is", "ve": "has", "d": "would", "ll": "will"}
_POSSESSIVE = re.compile(r"\byours?\b", re.IGNORECASE)
_SELF = re.compile(r"\byourself\b", re.IGNORECASE)
_YOU = re.compile(r"\byou\b", re.IGNORECASE)
_ANY = re.compile(r"\b(you|your|yours|yourself|you['’](?:re|ve|d|ll))\b", re.IGNORECASE)


def addressed(question: str, owner: str) -> str:
    """`question` with the second person read as the site's owner, or unchanged when the site
    does not say who its owner is or the question does not address anyone."""
    if not owner or not _ANY.search(question):
        return question
    text = _REQUEST.sub(lambda m: f"{m.group(1)}{_KEEP}{m.group(2)}", question)
    text = _ASKED.sub(lambda m: f"{_agree(m.group(1))} {owner}", text)
    text = _STATED.sub(lambda m: f"{owner} {_agree(m.group(1))}", text)
    text = _CONTRACTED.sub(lambda m: f"{owner} {_CONTRACTIONS[m.group(1).lower()]}", text)
    text = _SELF.sub(owner, text)
    text = _POSSESSIVE.sub(f"{owner}'s", text)
    text = _YOU.sub(owner, text)
    return text.replace(_KEEP, "you")


def _agree(verb: str) -> str:
    agreed = _AGREE.get(verb.lower(), verb.lower())
    return agreed.capitalize() if verb[:1].isupper() else agreed
