"""What the fitted support model reads about one claim: how well its words match, in context,
the one or two source sentences it rests on (BERTScore-style), and what the exact checks found.

A claim's content words are matched against the word pieces of its best one or two cited
sentences, each word by its contextual vector (sitecite.embed.contextual): a paraphrase
("city dwellers" for "the city's residents") matches well in context, an added detail ("which
he wrote himself") matches nothing. The features summarise those matches (the weakest, how
many are weak, the longest run of weak ones, their share of the claim's rare words) beside the
lexical coverage of sitecite.verify.align and the findings of the exact checks (a figure, a
name or a stance its sources do not hold), and how much better an uncited section would
have matched (a claim cited to the wrong source).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sitecite.embed.contextual import Encoded
from sitecite.facts import holds
from sitecite.tokens import Token, tokenize
from sitecite.verify.align import Alignment
from sitecite.verify.sources import Evidence, Reading

CANDIDATES = 3  # cited sentences (best lexical matches first) a claim is compared with
WEAK = 0.6  # a word whose best match in context is below this is not said by the sources
WEAKER = 0.5
FEATURES = (
    "words",
    "match_mean",
    "match_min",
    "match_second",
    "weak",
    "weaker",
    "weak_run",
    "weak_share",
    "match_single",
    "sentence_cosine",
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
)


@dataclass(frozen=True)
class Match:
    """A claim's content words and how well the chosen source sentences say each of them."""

    words: list[str]
    best: np.ndarray  # per word, its best cosine among the source sentences' words
    weights: np.ndarray  # per word, its rarity in the context (idf)
    single: float  # the weighted mean against the best single sentence
    sentence: float  # cosine of the mean vectors of the claim and its best sentence
    sources: tuple[int, ...]  # which candidates the claim was matched against


def candidates(
    alignment: Alignment, cited: Sequence[int], evidence: Evidence, limit: int = CANDIDATES
) -> list[Reading]:
    """The cited sentences a claim is compared with in context: its lexical alignment first,
    then the cited sentences sharing most of its rare words and figures."""
    chosen = list(alignment.sentences[:limit])
    if len(chosen) < limit:
        claim = alignment.claim
        ranked = sorted(
            (
                (_lexical(claim, reading, evidence), n, reading)
                for position in cited
                for n, reading in enumerate(evidence.sections[position].sentences)
                if reading not in chosen
            ),
            key=lambda item: (-item[0], item[1]),
        )
        chosen += [r for score, _, r in ranked[: limit - len(chosen)] if score > 0]
    return chosen


def _lexical(claim: Reading, reading: Reading, evidence: Evidence) -> float:
    shared = claim.stems & reading.stems
    figures = sum(holds(f, reading.facts) for f in claim.facts if not f.weak)
    return sum(evidence.weight(s) or 1.0 for s in shared) + 2.0 * figures


def match(
    claim: Reading, encoded: Encoded, sources: Sequence[Encoded], evidence: Evidence
) -> Match:
    """Each content word of the claim against the best one or two of `sources`."""
    tokens = [t for t in tokenize(claim.text) if t.content and claim.surface.get(t.stem) == t.lower]
    vectors = _word_vectors(encoded, tokens)
    weights = np.asarray([evidence.idf.get(t.stem, _rare(evidence)) for t in tokens])
    if not tokens or not sources:
        empty = np.zeros(len(tokens), dtype=np.float32)
        return Match([t.lower for t in tokens], empty, weights, 0.0, 0.0, ())
    per_source = [
        (vectors @ _word_vectors(s, tokenize(s.text)).T).max(axis=1)
        if len(s.vectors)
        else np.zeros(len(tokens))
        for s in sources
    ]
    scores = [_weighted(b, weights) for b in per_source]
    first = int(np.argmax(scores))
    best, chosen = per_source[first], (first,)
    for other in range(len(sources)):
        if other != first:
            pair = np.maximum(per_source[first], per_source[other])
            if _weighted(pair, weights) > _weighted(best, weights):
                best, chosen = pair, (first, other)
    sentence = float(_unit(encoded.vectors.mean(axis=0)) @ _unit(sources[first].vectors.mean(axis=0)))
    return Match([t.lower for t in tokens], best, weights, scores[first], sentence, chosen)


def _rare(evidence: Evidence) -> float:
    """The weight of a word no context sentence uses."""
    total = sum(len(s.sentences) for s in evidence.sections)
    return math.log(1 + (total + 1) / 0.5)


def _weighted(best: np.ndarray, weights: np.ndarray) -> float:
    return float((best * weights).sum() / weights.sum()) if len(best) else 1.0


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-9)


def _word_vectors(encoded: Encoded, tokens: Sequence[Token]) -> np.ndarray:
    """One unit vector per token: the mean of the word pieces inside it."""
    starts, ends = encoded.spans[:, 0], encoded.spans[:, 1]
    rows = []
    for token in tokens:
        inside = (starts < token.end) & (ends > token.start)
        if inside.any():
            rows.append(_unit(encoded.vectors[inside].mean(axis=0)))
        else:
            rows.append(np.zeros(encoded.vectors.shape[1], dtype=np.float32))
    return np.asarray(rows, dtype=np.float32).reshape(len(tokens), encoded.vectors.shape[1])


def vector(
    found: Match,
    problems: dict[str, str],
    lexical: tuple[float, int, int],
    uncited_gain: float,
    negations: int,
) -> np.ndarray:
    """The features of FEATURES, in order, for one claim."""
    best, weights = found.best, found.weights
    weak = best < WEAK
    ordered = np.sort(best) if len(best) else np.ones(1)
    polarity = problems.get("polarity", "")
    names = problems.get("names", "")
    values = {
        "words": math.log1p(len(best)),
        "match_mean": _weighted(best, weights),
        "match_min": float(ordered[0]),
        "match_second": float(ordered[min(1, len(ordered) - 1)]),
        "weak": float(weak.sum()),
        "weaker": float((best < WEAKER).sum()),
        "weak_run": float(_longest(weak)),
        "weak_share": float((weights * weak).sum() / weights.sum()) if len(best) else 0.0,
        "match_single": found.single if len(best) else 1.0,
        "sentence_cosine": found.sentence,
        "coverage": lexical[0],
        "uncovered": float(lexical[1]),
        "uncovered_run": float(lexical[2]),
        "numbers": float("numbers" in problems),
        "names": float(bool(names) and not names.startswith("says")),
        "swap": float(names.startswith("says")),
        "polarity": float(polarity.startswith(("denies", "affirms", "swaps"))),
        "quantity": float(polarity.startswith(("'", "superlative"))),
        "reason": float(polarity.startswith("gives a reason")),
        "uncited_gain": uncited_gain,
        "negations": float(negations),
    }
    return np.asarray([values[name] for name in FEATURES], dtype=np.float64)


def _longest(flags: np.ndarray) -> int:
    longest = run = 0
    for flag in flags:
        run = run + 1 if flag else 0
        longest = max(longest, run)
    return longest


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
            best[inside] = max(best[inside], _lexical(claim, reading, evidence))
    return max(0.0, best[False] - best[True]) / total
