"""The little English the offline writer needs: a past-tense verb's base form, the owner's
first person turned into the third, and a question's finish.

Base forms are checked against a word list (the embedding model's whole-word vocabulary and
the site's own words), so an unknown verb leaves a sentence unused rather than misspelt.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from sitecite.questions.site import Owner

# The irregular past tenses a personal site's "In 2012, I ..." sentences use.
IRREGULAR = {
    "began": "begin",
    "became": "become",
    "bought": "buy",
    "brought": "bring",
    "built": "build",
    "chose": "choose",
    "came": "come",
    "did": "do",
    "drew": "draw",
    "fell": "fall",
    "felt": "feel",
    "found": "find",
    "gave": "give",
    "got": "get",
    "grew": "grow",
    "had": "have",
    "heard": "hear",
    "held": "hold",
    "kept": "keep",
    "knew": "know",
    "led": "lead",
    "left": "leave",
    "lost": "lose",
    "made": "make",
    "met": "meet",
    "paid": "pay",
    "ran": "run",
    "sold": "sell",
    "sent": "send",
    "spent": "spend",
    "spoke": "speak",
    "taught": "teach",
    "took": "take",
    "thought": "think",
    "told": "tell",
    "went": "go",
    "won": "win",
    "wrote": "write",
    "quit": "quit",
    "set": "set",
    "put": "put",
    "read": "read",
    "shut": "shut",
}
_VOWELS = set("aeiou")


def base_form(verb: str, known: Collection[str]) -> str:
    """The base form of a past-tense verb ("moved" -> "move", "stopped" -> "stop",
    "tried" -> "try"), or "" when `verb` is not a past tense this can undo."""
    verb = verb.lower()
    if verb in IRREGULAR:
        return IRREGULAR[verb]
    if not verb.endswith("ed") or len(verb) < 4:
        return ""
    if verb.endswith("ied"):
        return verb[:-3] + "y"
    candidates = [verb[:-1], verb[:-2]]  # "moved" -> "move", "started" -> "start"
    if verb[-3] == verb[-4] and verb[-3] not in _VOWELS:  # "stopped" -> "stop"
        candidates.insert(0, verb[:-3])
    if len(verb[:-2]) <= 2:
        candidates.remove(verb[:-2])  # "used" is "use", never "us"
    return next((c for c in candidates if c in known), "")


_FIRST_PERSON = (
    (re.compile(r"\bmyself\b", re.IGNORECASE), "reflexive"),
    (re.compile(r"\bmine\b", re.IGNORECASE), "theirs"),
    (re.compile(r"\bmy\b", re.IGNORECASE), "their"),
    (re.compile(r"\bme\b"), "them"),
    (re.compile(r"\bI\b"), "they"),
)
_REFLEXIVE = {"he": "himself", "she": "herself", "they": "themself"}
_THEIRS = {"he": "his", "she": "hers", "they": "theirs"}
_WE = re.compile(r"\b(we|us|our|ours|we're|we've|I'm|I've|I'd|I'll)\b", re.IGNORECASE)


def third_person(text: str, owner: Owner) -> str:
    """The owner's "my first iPhone" as "her first iPhone"; "" when the text speaks for a
    group ("our team") or uses a contraction this does not turn."""
    if _WE.search(text):
        return ""
    forms = {
        "reflexive": _REFLEXIVE[owner.they],
        "theirs": _THEIRS[owner.they],
        "their": owner.their,
        "them": owner.them,
        "they": owner.they,
    }
    for pattern, form in _FIRST_PERSON:
        text = pattern.sub(forms[form], text)
    if owner.they == "they":  # "I was wrong" -> "they were wrong"
        for singular, plural in _THEY_AGREES:
            text = re.sub(rf"\bthey {singular}\b", f"they {plural}", text)
    return text


_THEY_AGREES = (("was", "were"), ("is", "are"), ("has", "have"), ("doesn't", "don't"))


def finish(question: str) -> str:
    """One line, capitalised, ending in one question mark."""
    text = " ".join(question.split()).rstrip(" .?!:;,")
    return text[:1].upper() + text[1:] + "?"


def lower_first(text: str, casing: dict[str, int]) -> str:
    """The first word in lower case unless the site writes it as a name ("Finding" ->
    "finding", "Right-to-left" -> "right-to-left", "Python" stays when the site says so)."""
    head, _, rest = text.partition(" ")
    parts = head.split("-")
    core = re.split(r"['’]", parts[0])[0]
    if core in ("A", "An", "The") or (
        core[:1].isupper() and core[1:].islower() and casing.get(core.lower(), 0) >= 0
    ):
        head = "-".join(p.lower() if p[:1].isupper() and p[1:].islower() else p for p in parts)
        head = head[:1].lower() + head[1:]
    return f"{head} {rest}".strip()


def gerund_base(word: str, known: Collection[str]) -> str:
    """The base form of an -ing word ("adding" -> "add", "creating" -> "create", "running" ->
    "run"), or "" when `word` is no -ing form this can undo."""
    word = word.lower()
    if not word.endswith("ing") or len(word) < 5:
        return ""
    stem = word[:-3]
    if not _VOWELS & set(stem):
        return ""  # "thing", "string": no verb inside
    candidates = [stem, stem + "e"]
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS:
        candidates.append(stem[:-1])  # "running" -> "run"
    return next((c for c in candidates if c in known and len(c) > 2), "")
