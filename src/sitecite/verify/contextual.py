"""A claim matched to its sources word by word in context (BERTScore-style), with the bundled
model's contextual word-piece vectors (sitecite.embed.contextual).

Each content word of the claim is compared with every word of its best one or two cited
sentences (chosen among CANDIDATES, the best lexical matches first): "city dwellers" should
land near "the city's residents", an added detail ("which he wrote himself") near nothing.
The features summarise those matches: the weakest, how many are weak, the longest run of weak
ones, their share of the claim's rare words, and how often neighbouring claim words match far
apart in the source.

Measured (bench/train_verifier.py --contextual): on the labelled replies' dev halves these
features separate supported from unsupported claims no better than the lexical coverage with
the site's word vectors (sitecite.verify.features) does, with or beside it, at any of MiniLM's
layers; so the shipped model does not use them, and no encoder runs when it answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sitecite.embed.contextual import Encoded
from sitecite.tokens import Token, tokenize
from sitecite.verify.align import Alignment
from sitecite.verify.features import lexical_score, rare
from sitecite.verify.sources import Evidence, Reading

CANDIDATES = 3  # cited sentences (best lexical matches first) a claim is compared with
WEAK = 0.6  # a word whose best match in context is below this is not said by the sources
WEAKER = 0.5
JUMP = 4  # source words between the matches of two neighbouring claim words: a jump
CONTEXTUAL = (
    "match_mean",
    "match_min",
    "match_second",
    "weak",
    "weaker",
    "weak_run",
    "weak_share",
    "match_single",
    "sentence_cosine",
    "jumps",
    "weak_names",
)


@dataclass(frozen=True)
class Match:
    """A claim's content words and how well the chosen source sentences say each of them."""

    tokens: tuple[Token, ...]  # the claim's content words
    best: np.ndarray  # per word, its best cosine among the chosen sentences' words
    weights: np.ndarray  # per word, its rarity in the context (idf)
    single: float  # the weighted mean against the best single sentence
    sentence: float  # cosine of the mean vectors of the claim and its best sentence
    sources: tuple[int, ...]  # which candidates were chosen
    where: tuple[tuple[int, int], ...]  # per word, (source, word index) of its best match


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
                (lexical_score(claim, reading, evidence), n, reading)
                for position in cited
                for n, reading in enumerate(evidence.sections[position].sentences)
                if reading not in chosen
            ),
            key=lambda item: (-item[0], item[1]),
        )
        chosen += [r for score, _, r in ranked[: limit - len(chosen)] if score > 0]
    return chosen


def match(
    claim: Reading, encoded: Encoded, sources: Sequence[Encoded], evidence: Evidence
) -> Match:
    """Each content word of the claim against the best one or two of `sources`."""
    tokens = tuple(
        t for t in tokenize(claim.text) if t.content and claim.surface.get(t.stem) == t.lower
    )
    vectors = _word_vectors(encoded, tokens)
    weights = np.asarray([evidence.idf.get(t.stem, rare(evidence)) for t in tokens])
    if not tokens or not sources:
        return Match(tokens, np.zeros(len(tokens)), weights, 0.0, 0.0, (), ())
    similarities = [vectors @ _word_vectors(s, tokenize(s.text)).T for s in sources]
    per_source = [m.max(axis=1) if m.shape[1] else np.zeros(len(tokens)) for m in similarities]
    scores = [_weighted(b, weights) for b in per_source]
    first = int(np.argmax(scores))
    best, chosen = per_source[first], [first]
    for other in range(len(sources)):
        pair = np.maximum(per_source[first], per_source[other])
        if other != first and _weighted(pair, weights) > _weighted(best, weights):
            best, chosen = pair, [first, other]
    where = []
    for word in range(len(tokens)):
        source = max(chosen, key=lambda c: per_source[c][word])
        row = similarities[source][word]
        where.append((source, int(np.argmax(row)) if len(row) else -1))
    mean = _unit(encoded.vectors.mean(axis=0)) @ _unit(sources[first].vectors.mean(axis=0))
    return Match(tokens, best, weights, scores[first], float(mean), tuple(chosen), tuple(where))


def contextual_features(found: Match) -> dict[str, float]:
    """The features of CONTEXTUAL for one claim."""
    best, weights = found.best, found.weights
    weak = best < WEAK
    ordered = np.sort(best) if len(best) else np.ones(1)
    return {
        "match_mean": _weighted(best, weights),
        "match_min": float(ordered[0]),
        "match_second": float(ordered[min(1, len(ordered) - 1)]),
        "weak": float(weak.sum()),
        "weaker": float((best < WEAKER).sum()),
        "weak_run": float(_longest(weak)),
        "weak_share": float((weights * weak).sum() / weights.sum()) if len(best) else 0.0,
        "match_single": found.single if len(best) else 1.0,
        "sentence_cosine": found.sentence,
        "jumps": _jumps(found),
        "weak_names": float(
            sum(bool(w) and t.text[:1].isupper() for w, t in zip(weak, found.tokens, strict=True))
        ),
    }


def _weighted(best: np.ndarray, weights: np.ndarray) -> float:
    return float((best * weights).sum() / weights.sum()) if len(best) else 1.0


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-9)


def _word_vectors(encoded: Encoded, tokens: Sequence[Token]) -> np.ndarray:
    """One unit vector per token: the mean of the word pieces inside it."""
    starts, ends = encoded.spans[:, 0], encoded.spans[:, 1]
    dim = encoded.vectors.shape[1]
    rows = np.zeros((len(tokens), dim), dtype=np.float32)
    for row, token in enumerate(tokens):
        inside = (starts < token.end) & (ends > token.start)
        if inside.any():
            rows[row] = _unit(encoded.vectors[inside].mean(axis=0))
    return rows


def _longest(flags: np.ndarray) -> int:
    longest = run = 0
    for flag in flags:
        run = run + 1 if flag else 0
        longest = max(longest, run)
    return longest


def _jumps(found: Match) -> float:
    """The share of neighbouring claim words whose best matches lie apart in the sources (a
    word taken from elsewhere in the sentence: "tied together with Go code" where Go is what
    websocketd is written in)."""
    pairs = list(zip(found.where, found.where[1:], strict=False))
    if not pairs:
        return 0.0
    apart = sum(a[0] != b[0] or abs(a[1] - b[1]) > JUMP for a, b in pairs)
    return apart / len(pairs)
