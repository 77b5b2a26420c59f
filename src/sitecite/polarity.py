"""What a sentence asserts beyond its words: what it denies, how much it claims, and why.

Two sentences can share every word and still disagree: "could not handle typos" and "could
handle typos", "falls back instead of breaking the build" and "breaks the build instead of
falling back", "almost always" and "always", "about 70%" and "almost all". A `Stance` reads
three things from a sentence, and `conflict` compares a claim's with the source sentences it
was aligned to:

- polarity, clause by clause: the words each negation governs ("not", "never", "without"), up
  to two content words within the clause; the option "instead of" or "rather than" rejects;
  and the words a privative verb ("stopped", "replaced", "prevents") or a change ("no
  longer", "not until") governs, which are neither affirmed nor denied. A claim clause and a
  source clause disagree when one denies a word the other affirms plainly (in a clause with no
  negation) and they share another word, so they are about the same thing;
- quantity and degree: universal words (all, every, always, whole), majority words (most,
  mostly, main) and superlatives (largest, fastest, best), each with what it quantifies; a
  universal softened by a hedge ("almost always", "nearly all") counts as a majority word, and
  one inside a denied or rejected phrase ("rather than loading the whole app") claims nothing;
- cause and motive: "because", "the reason", "so that", "in order to", "wanted to",
  "believes"; a claim may give a reason only where its sources give one.

These are rules about English, not about any site.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sitecite.tokens import CARDINALS, STOPWORDS, Token, stem, tokenize

NEGATORS = frozenset("not no never none nobody nothing neither nor without cannot nowhere".split())
# Verbs that take away what they govern ("stopped the duplicate charges", "replaced the
# wizard"): what they govern is neither affirmed nor denied, so "no more per-component folders"
# does not contradict "replaced the per-component folders", nor "alerts were swapped" contradict
# "replaced the alerts".
PRIVATIVE = frozenset(
    stem(w)
    for w in """stop stopped prevent prevents prevented avoid avoids avoided remove removes removed
    replace replaces replaced swap swapped eliminate eliminates eliminated block blocks blocked
    ban banned skip skips skipped lack lacks lacked lose loses lost miss missed fail fails failed
    refuse refuses refused quit retire retired abandon abandoned delete deleted disable disabled
    forbid forbids forbade ditch ditched scrap scrapped cancel cancelled drop drops dropped cut
    cuts""".split()
)
_CONTRASTS = {("instead", "of"), ("rather", "than")}
_CHANGES = {("no", "longer"), ("not", "until"), ("not", "unless")}  # "isn't loaded until ..."
_CONDITIONS = frozenset("until unless before".split())
_CONDITIONAL = frozenset("if unless whether".split())
_RELATIVES = frozenset("which that who whom whose".split())
_NOT_TRUE = re.compile(
    r"\b(?:it\s+is|it's|it’s|that\s+is|that's|this\s+is)\s+(?:not|n[o’']t)\s+"
    r"(?:true|the\s+case|correct|accurate|right)\s+that\b|\bit\s+is\s+false\s+that\b",
    re.IGNORECASE,
)
SCOPE = 2  # content words a negation governs ("not handle typos")...
CONTRAST = 4  # ...and the option "instead of" or "rather than" rejects
_DETERMINERS = frozenset("no none nobody nothing".split())  # ...or one ("no results fell")
# Words that close a clause, and with it a negation's scope.
_CLAUSE_WORDS = frozenset(
    "but while whereas so because although though which who that when where if".split()
)
_CLAUSE_BREAK = re.compile(r"[,;:()\[\]—–]|\s-\s")

# Universal words a claim is held to ("all fourteen apps", "always in portrait"), and those that
# license them in a source ("each of its 62 components" licenses "every one of them").
UNIVERSAL = frozenset("all every always whole entire everyone everything everybody".split())
LICENSES_UNIVERSAL = UNIVERSAL | frozenset("each any".split())
MAJORITY = frozenset("most mostly majority largely mainly primarily".split())
BOUNDS = ("at", "the")
HEDGES = frozenset("almost nearly about roughly around approximately".split())
SUPERLATIVES = frozenset(
    """best worst biggest largest smallest fastest slowest highest lowest greatest strongest
    weakest longest shortest cheapest heaviest lightest hardest easiest""".split()
)
HEAD = 2  # content words after a quantity word that say what it quantifies
REASON = "gives a reason its source does not give"
_CAUSAL_CLAIM = re.compile(
    r"\b(because|reasons?|so\s+that|in\s+order\s+to|due\s+to|motivated|wanted\s+to|hoped\s+to|"
    r"believes?|believed|to\s+justify|considered\s+\w+\s+too)\b",
    re.IGNORECASE,
)
_CAUSAL_SOURCE = re.compile(
    r"\b(because|since|so|therefore|thus|hence|reasons?|why|due|thanks\s+to|as\s+a\s+result|"
    r"meant|means|caused|led\s+to|credits?|in\s+order|believe|think|feel|wanted|want|value|"
    r"care|prefer|goal|aim|to\s+avoid|helps?|lets?)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Clause:
    """One clause's content stems, sorted by what the clause does with them."""

    words: frozenset[str]
    negated: frozenset[str]  # governed by a negation
    affirmed: frozenset[str]  # neither negated, rejected nor governed by a privative verb
    plain: frozenset[str]  # affirmed, in a clause with no negation at all
    contrast: frozenset[str]  # after "instead of" or "rather than": the option not taken


@dataclass(frozen=True)
class Stance:
    """What one sentence denies, asserts, quantifies and explains."""

    clauses: tuple[Clause, ...]
    # (class, stems of what it quantifies): ("universal", {"fourteen", "app"}), ("majority", {})
    quantities: tuple[tuple[str, frozenset[str]], ...]
    superlatives: frozenset[str]
    causal: bool

    def union(self, name: str) -> frozenset[str]:
        return frozenset().union(*(getattr(c, name) for c in self.clauses))


def stance(text: str, tokens: Sequence[Token] | None = None) -> Stance:
    """Read a sentence's polarity, quantities and causes (from its tokens, when given)."""
    tokens = tokenize(text) if tokens is None else tokens
    clauses: list[Clause] = []
    quantities: list[tuple[str, frozenset[str]]] = []
    listing = False  # "not taking: roles; projects shorter than two weeks": the list is denied
    whole = _NOT_TRUE.search(text)  # "it is not true that ...": everything after is denied
    trailing = False  # "not tasks which need lots of memory": a relative clause stays denied
    for clause, opens_list in _clauses(text, tokens):
        after = whole is not None and clause[-1].end > whole.end()
        relative = trailing and clause[0].lower in _RELATIVES
        scoped, open_scope = _scopes(clause, "deny" if listing or after or relative else "")
        clauses.append(_clause(clause, scoped))
        quantities += _quantities(text, clause, scoped)
        listing = listing or (open_scope and opens_list)
        content = [s for t, s in zip(clause, scoped, strict=True) if _stems(t)]
        trailing = bool(content) and content[-1] == "deny"
    return Stance(
        tuple(clauses),
        tuple(quantities),
        _superlatives(tokens),
        bool(_CAUSAL_CLAIM.search(text)),
    )


def _clauses(text: str, tokens: Sequence[Token]) -> list[tuple[list[Token], bool]]:
    """The clauses of a sentence, each with whether a colon follows it."""
    clauses: list[tuple[list[Token], bool]] = []
    current: list[Token] = []
    for i, token in enumerate(tokens):
        if i and _breaks(text, tokens[i - 1], token):
            gap = text[tokens[i - 1].end : token.start]
            clauses.append((current, ":" in gap))
            current = []
        current.append(token)
    clauses.append((current, False))
    return [(c, colon) for c, colon in clauses if c]


def _scopes(clause: Sequence[Token], inherited: str) -> tuple[list[str], bool]:
    """What governs each token of a clause ("deny", "contrast", "neutral", a negation's own
    "negator", or ""), and whether a denial is still open at its end ("not taking:"). A
    condition denies nothing: "if you haven't created a bucket" says nobody has not."""
    kinds = [_negation(clause, i) for i in range(len(clause))]
    if clause and clause[0].lower in _CONDITIONAL:
        kinds = ["neutral" if kind == "deny" else kind for kind in kinds]
    scoped = [("negator" if kind in ("deny", "contrast") else inherited) for kind in kinds]
    open_scope = False
    for i, kind in enumerate(kinds):
        if not kind:
            continue
        governed = []
        for j in range(i + 1, len(clause)):
            if kinds[j] in ("deny", "contrast"):
                break  # "rather than X as they do not map": the next negation takes over
            if _stems(clause[j]):
                governed.append(j)
        reach = CONTRAST if kind == "contrast" else SCOPE
        if clause[i].lower in _DETERMINERS:
            reach = 1
        for j in governed[:reach]:
            scoped[j] = scoped[j] or kind
        open_scope = kind == "deny" and len(governed) == 1  # "not taking:", then its objects
    return scoped, open_scope


def _clause(tokens: Sequence[Token], scoped: Sequence[str]) -> Clause:
    sets: dict[str, set[str]] = {k: set() for k in ("deny", "neutral", "contrast", "", "all")}
    for token, scope in zip(tokens, scoped, strict=True):
        stems = _stems(token)
        sets["all"] |= stems
        if scope != "negator":
            sets[scope] |= stems
    denying = any(s in ("deny", "contrast", "negator") for s in scoped)
    affirmed = frozenset(sets[""] - sets["neutral"])
    return Clause(
        frozenset(sets["all"]),
        frozenset(sets["deny"]),
        affirmed,
        frozenset() if denying else affirmed,
        frozenset(sets["contrast"]),
    )


def _negation(tokens: Sequence[Token], i: int) -> str:
    """ "deny" for a negation, "contrast" for "instead of" and "rather than", "neutral" for a
    privative verb ("replaced": the verb itself is affirmed) or a change ("no longer", "not
    ... until"), "" for any other word."""
    word = tokens[i].lower
    following = tokens[i + 1].lower if i + 1 < len(tokens) else ""
    previous = tokens[i - 1].lower if i else ""
    if (word, following) in _CONTRASTS or (previous, word) in _CONTRASTS:
        return "contrast"
    if word in NEGATORS or word.endswith(("n't", "n’t")):
        later = {t.lower for t in tokens[i + 1 : i + 6]}
        changing = (word, following) in _CHANGES or later & _CONDITIONS
        return "neutral" if changing else "deny"
    return "neutral" if stem(word) in PRIVATIVE and not tokens[i].capitalised else ""


def _breaks(text: str, before: Token, token: Token) -> bool:
    return bool(_CLAUSE_BREAK.search(text[before.end : token.start])) or (
        token.lower in _CLAUSE_WORDS
    )


def _stems(token: Token) -> set[str]:
    if token.content:
        return {token.stem} | {stem(p) for p in token.parts if p.isalpha() and p not in STOPWORDS}
    return set()


def _quantities(
    text: str, tokens: Sequence[Token], scoped: Sequence[str]
) -> list[tuple[str, frozenset[str]]]:
    """Each quantity word's class and what it quantifies (the next content words or figures of
    its clause); a universal after a hedge ("almost always") is a majority, and one that a
    negation or "rather than" governs claims nothing."""
    found = []
    for i, token in enumerate(tokens):
        word = token.lower
        if scoped[i] in ("deny", "contrast"):
            continue
        if word in LICENSES_UNIVERSAL and not _at_all(tokens, i):
            hedged = i > 0 and tokens[i - 1].lower in HEDGES
            kind = "majority" if hedged else "universal" if word in UNIVERSAL else "each"
        elif word in MAJORITY and not (word == "most" and i and tokens[i - 1].lower in BOUNDS):
            kind = "majority"  # "at most 90 seconds" is a bound, "the most popular" a superlative
        else:
            continue
        head: set[str] = set()
        for after in tokens[i + 1 :]:
            if len(head) == HEAD:
                break
            head |= {after.lower} if after.numeric or after.lower in CARDINALS else _stems(after)
        found.append((kind, frozenset(head)))
    return found


def _superlatives(tokens: Sequence[Token]) -> frozenset[str]:
    """Superlative words, and "most" or "least" after "the" ("the most popular template")."""
    found = {t.lower for t in tokens if t.lower in SUPERLATIVES}
    for i, token in enumerate(tokens[1:], start=1):
        if token.lower in ("most", "least") and tokens[i - 1].lower == "the":
            found.add(token.lower)
    return frozenset(found)


def _at_all(tokens: Sequence[Token], i: int) -> bool:
    """ "not ... at all" is emphasis, not a quantity."""
    return tokens[i].lower == "all" and i > 0 and tokens[i - 1].lower == "at"


def gives_reason(text: str) -> bool:
    """Whether a source text gives a reason or a cause ("because", "so", "I wanted")."""
    return _CAUSAL_SOURCE.search(text) is not None


def denies_whole(text: str) -> bool:
    """Whether a sentence denies all that follows "it is not true that" (or "it is false
    that")."""
    return _NOT_TRUE.search(text) is not None


def conflict(claim: Stance, sources: Sequence[Stance], sources_text: str) -> str:
    """How the claim says more or other than its aligned source sentences, or ""."""
    return (
        _polarity(claim, sources)
        or _quantity(claim, sources)
        or (REASON if claim.causal and not _CAUSAL_SOURCE.search(sources_text) else "")
    )


def _polarity(claim: Stance, sources: Sequence[Stance]) -> str:
    """A claim clause that denies what a source clause affirms plainly, or affirms plainly
    what it denies, when the claim clause shares another word with that source clause or with
    what its sentence affirms (they are about the same thing); or that takes the option its
    source rejects."""
    pairs = [
        (mine, theirs, theirs.words | source.union("affirmed"))
        for mine in claim.clauses
        for source in sources
        for theirs in source.clauses
    ]
    negated = frozenset().union(*(s.union("negated") for s in sources))
    affirmed = frozenset().union(*(s.union("affirmed") for s in sources))
    rejected = frozenset().union(*(s.union("contrast") for s in sources))
    for mine in claim.clauses:
        taken = mine.affirmed & (rejected | negated) - affirmed
        refused = mine.contrast & affirmed - rejected
        if taken and refused:
            return f"swaps what its source prefers: {', '.join(sorted(taken | refused))}"
    for mine, theirs, sentence in pairs:
        about = mine.words & sentence  # the two are about the same thing
        denied = {w for w in mine.negated & theirs.plain - negated if about - {w}}
        if denied:
            return f"denies what its source affirms: {', '.join(sorted(denied))}"
        asserted = {w for w in mine.plain & theirs.negated - affirmed if about - {w}}
        if asserted:
            return f"affirms what its source denies: {', '.join(sorted(asserted))}"
    return ""


def _quantity(claim: Stance, sources: Sequence[Stance]) -> str:
    quantities = [q for s in sources for q in s.quantities]
    licensed = {"universal": {"universal", "each"}, "majority": {"majority", "universal", "each"}}
    for kind, head in claim.quantities:
        if kind == "each":
            continue
        allowed = licensed[kind]
        if not any(k in allowed and (not head or not h or head & h) for k, h in quantities):
            quantified = " ".join(sorted(head))
            return f"'{kind}' quantity its source does not state ({quantified})".replace(" ()", "")
    supers = frozenset().union(*(s.superlatives for s in sources))
    if claim.superlatives and not claim.superlatives & supers:
        return f"superlative its source does not state: {', '.join(sorted(claim.superlatives))}"
    return ""


def clauses(text: str) -> list[str]:
    """A sentence's clauses as text, split at punctuation (commas, semicolons, colons, dashes)."""
    return [part for part in _PUNCTUATION.split(text) if part.strip()]


_PUNCTUATION = re.compile(r"[,;:()\[\]—–]|\s-\s")
