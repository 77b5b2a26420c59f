"""A sentence that hands over its evidence: the words it copied from each source it cites.

Its quotes are found in their sources first (sitecite.verify.quotes): a quote found only in
another source is a wrong citation, one found nowhere is fabricated. Then what its quotes bear
(`Bearing`: the sources' own words at each quote, the quoted sources' titles and headings,
the question, the owner's name) is what it is held to: a figure they do not hold fails, as
the reply contract asks for every figure to be quoted, and so does a comparison they state
turned round. Names, stance (sitecite.polarity) and the words they do not hold are findings
and features (`QUOTED`) for the support model fitted for quoted sentences
(sitecite.verify.verifier), which decides the rest.

Why names and stance are not fatal here as figures are: on the dev halves of the writers'
quoted replies (bench/replies/quoted) a name outside the quotes was as often a faithful
writer's (a product named elsewhere in the section, "JavaScript" for "JS") as an entity
swapped, and the stance rules misread paraphrase ("not to reduce trust but to create more").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from sitecite.facts import Fact, holds, reversed_change
from sitecite.polarity import (
    MAJORITY,
    NEGATORS,
    SUPERLATIVES,
    UNIVERSAL,
    Stance,
    conflict,
    gives_reason,
)
from sitecite.tokens import Token, names, tokenize
from sitecite.verify.checks import known_name
from sitecite.verify.features import rare
from sitecite.verify.quotes import Located, locate
from sitecite.verify.sources import ATTRIBUTION, LIGHT, Evidence, Reading, read

# Words that widen or narrow a claim ("only", "entirely", "the first", "always"): a quoted
# sentence that has one its quotes lack, or drops one they have, may say more than they do.
EXTREME = (
    UNIVERSAL
    | MAJORITY
    | SUPERLATIVES
    | frozenset(
        """only solely exclusively entirely completely fully totally ever never first last
        single sole each any none many several numerous few least""".split()
    )
)
# A claim that gives a motive or a cause ("what convinced him", "so that", "out of"): its
# quotes' sentences must give one too.
MOTIVE = re.compile(
    r"\b(because|so\s+that|in\s+order\s+to|due\s+to|motivated|wanted\s+to|hoped\s+to|"
    r"convinc\w*|persuad\w*|inspir\w*|prompt\w*|drove|driven|led\s+\w+\s+to|"
    r"made\s+\w+\s+(?:want|decide|choose)|reasons?|to\s+avoid|out\s+of\s+\w+|for\s+fear)\b",
    re.IGNORECASE,
)
BOTH = Fact("2", "", 0, 0)
COMPARED_WITHIN = 6  # words before a comparative word that say what is compared
QUOTED = (
    "q_coverage",
    "q_outside",
    "q_novel",
    "q_figures_outside",
    "q_names_outside",
    "q_names_unknown",
    "q_negation_added",
    "q_negation_dropped",
    "q_extreme_added",
    "q_extreme_dropped",
    "q_length",
    "q_names_swapped",
    "q_motive",
)
RELATIVE_QUOTED = ("q_coverage", "q_outside", "q_novel")  # also read against the answer's mean


@dataclass(frozen=True)
class Cite:
    """One citation of a quoted sentence: the source number the model gave (None when it gave
    none) and the words it says it copied from that source ("" when it quoted nothing)."""

    source: int | None
    quote: str = ""


@dataclass(frozen=True)
class QuotedSentence:
    """One sentence of a quoted reply, as the model wrote it, with its citations."""

    text: str
    cites: tuple[Cite, ...] = ()

    @property
    def unquoted(self) -> bool:
        """Whether some source is cited without a quote (read as an unquoted sentence)."""
        return any(not c.quote for c in self.cites)


def locate_cites(sentence: QuotedSentence, evidence: Evidence) -> tuple[list[Located], list[int]]:
    """(each quote located, source numbers outside the context)."""
    texts = evidence.texts()
    located, outside = [], []
    for cite in sentence.cites:
        if cite.source is not None and not 1 <= cite.source <= len(texts):
            outside.append(cite.source)
            continue
        if cite.quote:
            position = None if cite.source is None else cite.source - 1
            located.append(locate(cite.quote, position, texts))
    return located, sorted(set(outside))


def quote_problems(located: Sequence[Located]) -> dict[str, str]:
    """A wrong citation (its quote stands only in another source) or a fabricated quote."""
    problems: dict[str, str] = {}
    for quote in located:
        if quote.status == "nowhere":
            problems.setdefault("quotes", f"'{_short(quote.quote)}' is in no source")
        elif quote.status == "elsewhere":
            where = ", ".join(f"[{p + 1}]" for p in quote.elsewhere)
            cited = "no source" if quote.cited is None else f"[{quote.cited + 1}]"
            problems.setdefault(
                "citations", f"'{_short(quote.quote)}' is in {where}, not in {cited}"
            )
    return problems


def places(located: Sequence[Located]) -> set[tuple[int, int]]:
    """(section position, sentence index) of every sentence a found quote stands in."""
    return {
        (quote.found.position, index)
        for quote in located
        if quote.found is not None
        for index in quote.found.sentences
    }


@dataclass
class Bearing:
    """What a quoted sentence's quotes can vouch for, and what its cited sections hold
    beyond them: the claim is held to the first, the second only tells how far it strayed."""

    texts: list[str]  # the sources' own words at each quote, and the quoted sources' labels
    sentences: str  # the whole sentences the quotes stand in, as one text
    stances: list[Stance]  # what those sentences deny, assert, quantify and explain
    sentence_words: frozenset[str]  # their lower-case words, with the labels' and question's
    readings: list[Reading]
    stems: frozenset[str]  # content stems of the quotes, labels and question
    words: frozenset[str]  # lower-case words (and parts of web addresses) of the same
    figures: list[Fact]
    cited_stems: frozenset[str]  # the cited sections' content stems
    cited_words: frozenset[str]
    cited_figures: list[Fact]


def bearing(located: Sequence[Located], cited: Sequence[int], evidence: Evidence) -> Bearing:
    """What the found quotes of a sentence bear, beside what its cited sections hold."""
    found = [q.found for q in located if q.found is not None]
    positions = list(dict.fromkeys(f.position for f in found))
    labels = [evidence.sections[p].label for p in positions]
    readings = [read(f.text, evidence.subject) for f in found]
    placed = {(f.position, i) for f in found for i in f.sentences}
    whole = [evidence.sections[p].sentences[i] for p, i in sorted(placed)]
    sentences = " ".join(r.text for r in whole)
    every = [*readings, *labels]
    words = frozenset().union(*(r.lower for r in every)) | evidence.asked | evidence.subject
    figures = [f for r in every for f in r.facts] + list(evidence.asked_facts)
    figures += [BOTH for r in readings if "both" in r.lower]  # "both tokens": the two tokens
    sections = [evidence.sections[p] for p in dict.fromkeys([*cited, *positions])]
    return Bearing(
        [f.text for f in found] + [r.text for r in labels],
        sentences,
        [r.stance for r in whole],
        frozenset(t.lower for t in tokenize(sentences)) | words,
        readings,
        frozenset().union(*(r.stems for r in every)) | evidence.question,
        _with_hosts(words),
        figures,
        frozenset().union(*(s.stems for s in sections)),
        _with_hosts(frozenset().union(*(s.words for s in sections))) | words,
        figures + [f for s in sections for r in [s.label, *s.sentences] for f in r.facts],
    )


def unborne(claim: Reading, borne: Bearing) -> tuple[dict[str, str], dict[str, str]]:
    """(what fails outright, what the support model weighs): a figure its cited sections do
    not hold at all, or a change its quotes state the other way round, fails; a figure or
    name its quotes and labels do not hold, a name swapped beside a figure, and a stance its
    quotes do not take (sitecite.polarity) are findings."""
    fatal: dict[str, str] = {}
    findings: dict[str, str] = {}
    strong = [f for f in claim.facts if not f.weak]
    unquoted = [f for f in strong if not holds(f, borne.figures)]
    nowhere = [f for f in unquoted if not holds(f, borne.cited_figures)]
    if nowhere:
        fatal["numbers"] = f"not in its sources: {_spans(claim, nowhere)}"
    elif unquoted:
        fatal["numbers"] = f"not in its quotes: {_spans(claim, unquoted)}"
    else:
        backwards = reversed_change(claim.text, borne.texts)
        if backwards:
            fatal["numbers"] = f"reverses the change its quote states: {backwards}"
    unknown = [n.text for n in claim_names(claim) if not known_name(n.text, borne.words)]
    if unknown:
        findings["names"] = f"not in its quotes: {', '.join(dict.fromkeys(unknown))}"
    turned = reversed_comparison(claim.text, borne.texts)
    if turned:
        fatal["polarity"] = turned
    disagreement = conflict(claim.stance, borne.stances, borne.sentences)
    if disagreement:
        findings["polarity"] = disagreement
    return fatal, findings


def reversed_comparison(claim: str, quotes: Sequence[str]) -> str:
    """A comparison turned round: the claim has "X faster than Y" where a quote makes Y the
    one that is faster (Y stands before the same comparative word there, X does not)."""
    tokens = tokenize(claim)
    for i, token in enumerate(tokens):
        if token.lower != "than" or i < 2:
            continue
        compared = tokens[i - 1].lower
        before = [t.lower for t in tokens[: i - 1] if t.content and t.lower not in LIGHT]
        after = [t.lower for t in tokens[i + 1 :] if t.content]
        if not before or not after:
            continue
        mine, other = before[-1], after[0]
        for quote in quotes:
            words = [t.lower for t in tokenize(quote)]
            for j, word in enumerate(words):
                if word != compared:
                    continue
                leading = words[max(0, j - COMPARED_WITHIN) : j]
                if other in leading and mine not in leading:
                    return f"turns its source's comparison round ({compared} than {other})"
    return ""


def claim_names(claim: Reading) -> list[Token]:
    """The claim's names, its figures' words and a function word opening it ("Since SSH
    ...") left out."""
    return [
        n
        for n in _names(claim.text)
        if not any(f.start <= n.start < f.end for f in claim.facts)
        and not (n.opens_sentence and n.lower in LIGHT | ATTRIBUTION)
    ]


@lru_cache(maxsize=4096)
def _names(text: str) -> tuple[Token, ...]:
    return names(text)


def quote_features(claim: Reading, borne: Bearing, evidence: Evidence) -> dict[str, float]:
    """What the support model reads of a quoted sentence beyond the lexical features (QUOTED):
    the share of its words' weight its quotes, labels and the question hold (`q_coverage`),
    that only elsewhere in its cited sections stand (`q_outside`), that no context sentence
    uses (`q_novel`); figures and names only elsewhere in its cited sections or nowhere;
    negations and quantity words it has and its quotes lack, or the reverse; and how long
    it is beside its quotes."""
    everywhere = frozenset().union(*(s.stems for s in evidence.sections))
    weights = {s: evidence.weight(s) or rare(evidence) for s in claim.stems}
    total = sum(weights.values()) or 1.0
    outside = claim.stems - borne.stems
    strong = [f for f in claim.facts if not f.weak]
    unquoted = [f for f in strong if not holds(f, borne.figures)]
    unknown = [n for n in claim_names(claim) if not known_name(n.text, borne.words)]
    mine = frozenset(w for t in tokenize(claim.text) for w in (t.lower, *t.parts))
    left = [n for r in borne.readings for n in _names(r.text) if not known_name(n.text, mine)]
    quoted_words = [t.lower for r in borne.readings for t in tokenize(r.text)]
    claim_words = [t.lower for t in tokenize(claim.text)]
    extremes = sum(w in EXTREME and w not in borne.sentence_words for w in claim_words)
    dropped = sum(w in EXTREME and w not in claim_words for w in dict.fromkeys(quoted_words))
    negations = _negations(claim_words) - _negations(quoted_words)
    content = sum(len(r.stems) for r in borne.readings)
    return {
        "q_coverage": sum(weights[s] for s in claim.stems & borne.stems) / total,
        "q_outside": sum(weights[s] for s in outside & borne.cited_stems) / total,
        "q_novel": sum(weights[s] for s in outside - everywhere) / total,
        "q_figures_outside": float(sum(holds(f, borne.cited_figures) for f in unquoted)),
        "q_names_outside": float(sum(known_name(n.text, borne.cited_words) for n in unknown)),
        "q_names_unknown": float(sum(not known_name(n.text, borne.cited_words) for n in unknown)),
        "q_negation_added": float(max(0, negations)),
        "q_negation_dropped": float(max(0, -negations)),
        "q_extreme_added": float(extremes),
        "q_extreme_dropped": float(dropped),
        "q_length": len(claim.stems) / (1.0 + content),
        "q_names_swapped": float(bool(unknown) and bool(left)),
        "q_motive": float(bool(MOTIVE.search(claim.text)) and not gives_reason(borne.sentences)),
    }


def _negations(words: Sequence[str]) -> int:
    return sum(w in NEGATORS or w.endswith(("n't", "n’t")) for w in words)


def _with_hosts(words: frozenset[str]) -> frozenset[str]:
    """Words with the parts of web addresses and dotted names ("twitter.com" -> "twitter")."""
    parts = {p for w in words if "." in w or "/" in w for p in re.split(r"[./@:]", w) if p}
    return words | parts


def _spans(claim: Reading, figures: Sequence[Fact]) -> str:
    return ", ".join(dict.fromkeys(claim.text[f.start : f.end] for f in figures))


def _short(quote: str, limit: int = 60) -> str:
    return quote if len(quote) <= limit else quote[: limit - 1] + "…"
