"""The exact checks of a claim against the source sentences it is aligned to: every figure
stands in them (or beside them) with the same unit, and a change goes the way they say;
every name (by evidence, sitecite.tokens) is used by the cited sections, and none is swapped
for another beside a figure; the claim denies, affirms, quantifies and explains no more than
they do (sitecite.polarity); it does not recite the model's instructions.

Most of what they find is evidence for the fitted support model (`findings`): on the dev
halves of model-written answers each of them was sometimes wrong. A few were never wrong
there and are fatal whatever the model says (`fatal`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sitecite.facts import Fact, facts, holds, reversed_change
from sitecite.polarity import clauses, conflict, denies_whole
from sitecite.tokens import names
from sitecite.verify.align import Alignment
from sitecite.verify.sources import Evidence, Reading

_POSSESSIVE = re.compile(r"['’]s?$")
# Exact checks never wrong on the dev halves, so fatal too: a claim whose words are an uncited
# section's far more than its cited sections' (the share of its weight, sitecite.verify.features
# .uncited_gain: 4 unsupported dev claims reach 0.8, no supported one); "it is not true that"
# before what its source says; a web address its sources do not give.
ELSEWHERE = 0.8
_ADDRESS = re.compile(
    r"\b(?:https?://[^\s)\]]+|www\.[^\s)\]]+|[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*"
    r"\.(?:com|org|net|io|dev|co|ai|app|me|is|xyz|info|example)\b)",
    re.IGNORECASE,
)


def findings(alignment: Alignment, cited: Sequence[int], evidence: Evidence) -> dict[str, str]:
    """What the exact checks find wrong with a claim, by check (numbers, names, polarity)."""
    found = _figures_and_names(alignment, cited, evidence)
    disagreement = conflict(
        alignment.claim.stance,
        [r.stance for r in alignment.sentences],
        around(alignment, evidence),
    )
    if disagreement:
        found["polarity"] = disagreement
    return found


def fatal(
    alignment: Alignment, cited: Sequence[int], evidence: Evidence, gain: float
) -> dict[str, str]:
    """The exact checks never wrong on the dev halves (see ELSEWHERE), by check; `gain` is
    the claim's uncited_gain."""
    claim = alignment.claim
    out = {}
    if gain >= ELSEWHERE:
        out["citations"] = (
            f"an uncited section says this, not the cited one ({gain:.0%} of its weight)"
        )
    if denies_whole(claim.text) and not denies_whole(around(alignment, evidence)):
        out["polarity"] = "denies what its source states ('it is not true that')"
    known = " ".join(
        [evidence.sections[p].label.text for p in cited]
        + [r.text for p in cited for r in evidence.sections[p].sentences]
    ).lower()
    addresses = [a for a in _ADDRESS.findall(claim.text) if a.lower().rstrip(".") not in known]
    if addresses:
        out["names"] = f"a web address its sources do not give: {addresses[0]}"
    return out


def _figures_and_names(
    alignment: Alignment, cited: Sequence[int], evidence: Evidence
) -> dict[str, str]:
    out = {}
    figures = [*alignment.figures(), *(f for r in _beside(alignment, evidence) for f in r.facts)]
    claim = alignment.claim
    missing = [
        claim.text[f.start : f.end] for f in claim.facts if not f.weak and not holds(f, figures)
    ]
    if missing:
        out["numbers"] = _missing(missing)
    else:
        backwards = reversed_change(claim.text, [r.text for r in alignment.sentences])
        if backwards:
            out["numbers"] = f"reverses the change its source states: {backwards}"
    known = frozenset().union(*(evidence.sections[p].words for p in cited))
    known |= evidence.subject | evidence.asked  # a name the question gives may be repeated
    unknown = [
        n.text
        for n in names(claim.text)
        if not _inside(n.start, claim.facts) and not known_name(n.text, known)
    ]
    if unknown:
        out["names"] = _missing(unknown)
    elif not missing:
        swapped = unbound(claim, alignment, evidence.subject)
        if swapped:
            out["names"] = swapped
    return out


def unbound(claim: Reading, alignment: Alignment, subject: frozenset[str]) -> str:
    """A name swapped for another beside a figure: the claim's clause names X with a figure
    whose source clause names Y instead, and Y nowhere in the claim ("orders from
    Hebrew-language sessions grew to 8%" against "orders from Arabic-language sessions grew to
    8%, and the Hebrew locale ...")."""
    source_clauses = [c for r in alignment.sentences for c in clauses(r.text)]
    everywhere = claim.lower
    for clause in clauses(claim.text):
        figures = [f for f in facts(clause) if not f.weak]
        mentioned = _names(clause) - subject
        if not figures or not mentioned:
            continue
        for source in source_clauses:
            if not any(holds(f, facts(source)) for f in figures):
                continue
            named = _names(source) - subject
            instead = sorted(n for n in named if not _known(n, everywhere))
            added = sorted(n for n in mentioned if not _known(n, named))
            if instead and added:
                said = f"{', '.join(added)} where its source says {', '.join(instead)}"
                return f"says {said} ({clause_figures(clause, figures)})"
    return ""


def _names(text: str) -> frozenset[str]:
    """The names of a text, lower-case, figures (month names) left out."""
    figures = facts(text)
    return frozenset(n.lower for n in names(text) if not _inside(n.start, figures))


def clause_figures(clause: str, figures: list[Fact]) -> str:
    return ", ".join(clause[f.start : f.end] for f in figures)


def _inside(position: int, figures: Sequence[Fact]) -> bool:
    return any(f.start <= position < f.end for f in figures)


def recites(sentence: str, rules: str) -> str:
    """Whether a sentence repeats the model's own instructions ("Use only the sources.")."""
    words = " ".join(sentence.lower().strip(" .!?").split())
    if rules and len(words.split()) >= 3 and words in rules:
        return f"repeats the model's instructions: '{sentence[:60]}'"
    return ""


def _beside(alignment: Alignment, evidence: Evidence) -> list[Reading]:
    """The aligned sentences' neighbours: where a source gives a fact's reason, or the year of
    a paper it has just named."""
    found: dict[tuple[int, int], Reading] = {}
    for position, index in alignment.places:
        sentences = evidence.sections[position].sentences
        for near in (index - 1, index + 1):
            if 0 <= near < len(sentences) and (position, near) not in alignment.places:
                found[(position, near)] = sentences[near]
    return list(found.values())


def around(alignment: Alignment, evidence: Evidence) -> str:
    """The aligned sentences and their neighbours, as one text."""
    texts = [r.text for r in alignment.sentences] + [r.text for r in _beside(alignment, evidence)]
    return " ".join(dict.fromkeys(texts))


def _missing(items: list[str]) -> str:
    return f"not in its sources: {', '.join(dict.fromkeys(items))}"


def _known(name: str, known: frozenset[str]) -> bool:
    parts = [p for p in name.replace("/", "-").split("-") if p]
    return name in known or (len(parts) > 1 and all(p in known for p in parts))


def known_name(name: str, known: frozenset[str]) -> bool:
    """Whether the sources use a name, as written or in a form a writer would change: plural
    or singular ("vCPUs", "VPSes", "Worker" for "Workers"), punctuation ("Next.js",
    "Nextjs"), a derived word ("Japanese", "Bayesian"), or only its capitalised parts
    ("Bayes-style")."""
    lower = _POSSESSIVE.sub("", name.lower())
    forms = {lower.removesuffix("s"), lower.removesuffix("es"), f"{lower}s", f"{lower}es"}
    if _known(lower, known) or forms & known:
        return True
    squashed = _squash(lower)
    if squashed in {_squash(k) for k in known}:
        return True
    if any(lower.startswith(k) and len(lower) - len(k) <= 4 for k in known if len(k) >= 4):
        return True
    capitals = [p.lower() for p in re.split(r"[-/]", name) if p[:1].isupper()]
    return 0 < len(capitals) < len(re.split(r"[-/]", name)) and all(c in known for c in capitals)


def _squash(word: str) -> str:
    return re.sub(r"[.\-_'’]", "", word)
