"""What the fitted support model reads about one claim: how much of it the sentences it rests
on say (sitecite.verify.align's coverage, with the site's word vectors for paraphrase), what
the exact checks found (a figure, a name or a stance its sources do not hold), what it holds
that its best one or two sentences do not, how much better an uncited section would have
matched (a claim cited to the wrong source), and how it compares with the other claims of
its answer (a model paraphrases a whole answer alike, so the one sentence that says less of
its sources than its neighbours stands out).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sitecite.facts import holds
from sitecite.polarity import NEGATORS, REASON
from sitecite.tokens import names, tokenize
from sitecite.verify.sources import Evidence, Reading

LEXICAL = (
    "words",
    "coverage",
    "uncovered",
    "uncovered_run",
    "numbers",
    "names",
    "swap",
    "polarity",
    "quantity",
    "reason",
    "uncited_gain",
    "negations",
    "figures_pair",
    "names_pair",
    "imported",
    "novel",
)
# Features also read relative to the answer's other claims ("relative_coverage"), and how many
# claims the answer makes.
RELATIVE = (
    "coverage",
    "uncovered",
    "uncovered_run",
    "imported",
    "novel",
)


def lexical_features(
    claim: Reading,
    findings: dict[str, str],
    coverage: tuple[float, int, int],
    gain: float,
    pair: Sequence[Reading],
    evidence: Evidence,
) -> dict[str, float]:
    """The features of LEXICAL for one claim: `coverage` is (mean coverage, uncovered words,
    most of them in a row), `gain` its uncited_gain, `pair` the one or two sentences it rests
    on most."""
    polarity = findings.get("polarity", "")
    named = findings.get("names", "")
    return {
        "words": float(len(claim.surface)),
        "coverage": coverage[0],
        "uncovered": float(coverage[1]),
        "uncovered_run": float(coverage[2]),
        "numbers": float("numbers" in findings),
        "names": float(bool(named) and not named.startswith("says")),
        "swap": float(named.startswith("says")),
        "polarity": float(polarity.startswith(("denies", "affirms", "swaps"))),
        "quantity": float(polarity.startswith(("'", "superlative"))),
        "reason": float(polarity.startswith(REASON)),
        "uncited_gain": gain,
        "negations": float(
            _negations(claim.text) - max((_negations(r.text) for r in pair), default=0)
        ),
        **_beyond(claim, pair, evidence),
    }


def relative(
    claims: list[dict[str, float]], names: Sequence[str] = RELATIVE, count: bool = True
) -> None:
    """Add to each claim's features how far each of `names` stands from its answer's mean,
    and (`count`) how many claims the answer makes."""
    for name in [n for n in names if claims and n in claims[0]]:
        mean = sum(c[name] for c in claims) / len(claims)
        for features in claims:
            features[f"relative_{name}"] = features[name] - mean
    for features in claims if count else ():
        features["claims"] = float(len(claims))


def _beyond(claim: Reading, pair: Sequence[Reading], evidence: Evidence) -> dict[str, float]:
    """What the claim holds that its best one or two sentences do not: figures, names, and
    the share of its rare words that only other context sentences use (imported) or that no
    context sentence uses (novel)."""
    figures = [f for r in pair for f in r.facts]
    said = frozenset().union(*(r.stems for r in pair)) | evidence.question
    lower = frozenset().union(*(r.lower for r in pair)) | evidence.asked | evidence.subject
    everywhere = frozenset().union(*(s.stems for s in evidence.sections))
    total = sum(evidence.weight(s) or rare(evidence) for s in claim.stems) or 1.0
    imported = sum(evidence.weight(s) for s in claim.stems - said if s in everywhere)
    novel = sum(rare(evidence) for s in claim.stems - said if s not in everywhere)
    return {
        "figures_pair": float(sum(not f.weak and not holds(f, figures) for f in claim.facts)),
        "names_pair": float(sum(n.lower not in lower for n in names(claim.text))),
        "imported": imported / total,
        "novel": novel / total,
    }


def uncited_gain(claim: Reading, cited: Sequence[int], evidence: Evidence) -> float:
    """How much more of the claim's rare words and figures the best sentence of an uncited
    section shares than the best cited one, as a share of the claim's weight (kind e: the
    right claim cited to the wrong source)."""
    total = sum(evidence.weight(s) or 1.0 for s in claim.stems) + 2.0 * len(claim.facts)
    if not total:
        return 0.0
    best = {True: 0.0, False: 0.0}
    for position, section in enumerate(evidence.sections):
        inside = position in cited
        for reading in section.sentences:
            best[inside] = max(best[inside], lexical_score(claim, reading, evidence))
    return max(0.0, best[False] - best[True]) / total


def _negations(text: str) -> int:
    """Negations in a text ("not", "never", "without", "n't")."""
    return sum(t.lower in NEGATORS or t.lower.endswith(("n't", "n’t")) for t in tokenize(text))


def lexical_score(claim: Reading, reading: Reading, evidence: Evidence) -> float:
    """The claim's rare words (idf) and figures a sentence shares."""
    shared = claim.stems & reading.stems
    figures = sum(holds(f, reading.facts) for f in claim.facts if not f.weak)
    return sum(evidence.weight(s) or 1.0 for s in shared) + 2.0 * figures


def rare(evidence: Evidence) -> float:
    """The weight of a word no context sentence uses."""
    total = sum(len(s.sentences) for s in evidence.sections)
    return math.log(1 + (total + 1) / 0.5)
