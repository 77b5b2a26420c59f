"""A sentence that hands over its evidence: the words it copied from each source it cites.

Its quotes are found in their sources first (sitecite.verify.quotes): a quote found only in
another source is a wrong citation, one found nowhere is fabricated. Then what can be checked
exactly must be borne by what it quoted: every figure (number, date, version, amount) and
every name of the sentence stands in its quotes, its sources' titles and headings, the
question, or the site owner's name, and a change goes the way they say. The rest is the
support model's to decide (sitecite.verify.verifier), with the claim aligned to the sentences
its quotes stand in: whether its words say what those sentences say, and what the stance
checks (sitecite.polarity: negation, quantities, superlatives, reasons) find against them.

Why stance is not fatal here as figures and names are: on the dev halves of the labelled
replies, turned into quoted ones by machine (a proxy until replies written in this format
exist), making it fatal dropped 143 supported sentences of 636 and caught 136 unsupported of
168, against 114 and 135 without (docs/verification.md); the rules misread paraphrase
("don't get me wrong", "the entire project" for "his whole thesis").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sitecite.facts import Fact, facts, holds, reversed_change
from sitecite.tokens import names, tokenize
from sitecite.verify.checks import known_name
from sitecite.verify.quotes import Located, locate
from sitecite.verify.sources import Evidence, Reading


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


def unborne(claim: Reading, located: Sequence[Located], evidence: Evidence) -> dict[str, str]:
    """The sentence's checkable claims its quotes do not bear, by check."""
    found = [q.found for q in located if q.found is not None]
    labels = [evidence.sections[p].label.text for p in dict.fromkeys(f.position for f in found)]
    bearing = [f.text for f in found] + labels
    out: dict[str, str] = {}
    figures: list[Fact] = [f for text in bearing for f in facts(text)]
    figures += evidence.asked_facts
    missing = [
        claim.text[f.start : f.end] for f in claim.facts if not f.weak and not holds(f, figures)
    ]
    if missing:
        out["numbers"] = f"not in its quotes: {', '.join(dict.fromkeys(missing))}"
    else:
        backwards = reversed_change(claim.text, [f.text for f in found])
        if backwards:
            out["numbers"] = f"reverses the change its quote states: {backwards}"
    known = frozenset(w for text in bearing for t in tokenize(text) for w in (t.lower, *t.parts))
    known |= evidence.subject | evidence.asked
    unknown = [
        n.text
        for n in names(claim.text)
        if not any(f.start <= n.start < f.end for f in claim.facts)
        and not known_name(n.text, known)
    ]
    if unknown:
        out["names"] = f"not in its quotes: {', '.join(dict.fromkeys(unknown))}"
    return out


def _short(quote: str, limit: int = 60) -> str:
    return quote if len(quote) <= limit else quote[: limit - 1] + "…"
