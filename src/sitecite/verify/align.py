"""Aligning a claim to the source sentences it rests on, and measuring how much of it they cover.

A claim is aligned greedily: first the cited sentence that shares the most of its words
(rare words weigh more, figures count too), then further sentences while each adds at least
two words or figures the claim needs (or one, when it shares three with the claim), up to
four. A sentence that would add only one word is
not evidence for that word: a claim that takes "Hebrew" from one sentence and "8%" from
another ("orders from Hebrew-language sessions grew to 8%") is a swap, not a summary.

Coverage is then per content word: 1 for a word the aligned sentences (or their sections'
titles) use, else the cosine of its closest word there, from the site's vocabulary vectors
(a paraphrase: "shoppers" and "customers").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from sitecite.facts import Fact, holds
from sitecite.tokens import stem, tokenize
from sitecite.verify.sources import CHANGE, Evidence, Reading

WORD_MATCH = 0.6  # a word whose closest aligned word is this close counts as said
NEARBY = 0.75  # a word the cited sections use, though not in the aligned sentences
MAX_ALIGNED = 4  # source sentences one claim may rest on
MIN_GAIN = 2  # words or figures a further sentence must add...
MIN_SHARED = 3  # ...unless it shares this many words with the claim in all
FACT_WEIGHT = 2.0  # a shared figure weighs like a rare word


@dataclass
class Alignment:
    """The source sentences a claim rests on and what they cover of it."""

    claim: Reading
    positions: tuple[int, ...]  # context positions of the sections the sentences come from
    places: list[tuple[int, int]]  # (section position, sentence index) of each aligned sentence
    sentences: list[Reading]
    labels: list[Reading]
    exact: frozenset[str]  # claim stems the aligned sentences or labels use
    vectors: np.ndarray  # word vectors of the aligned sentences' words (and labels')
    nearby: frozenset[str]  # other claim stems the cited sections use elsewhere

    @property
    def missing(self) -> list[str]:
        """Claim words not used by the aligned sentences, in reading order."""
        return [self.claim.surface[s] for s in self.claim.surface if s not in self.exact]

    def figures(self) -> list[Fact]:
        return [f for r in [*self.sentences, *self.labels] for f in r.facts]

    def words(self) -> frozenset[str]:
        return frozenset().union(*(r.lower for r in [*self.sentences, *self.labels]))


def align(
    claim: Reading,
    cited: Sequence[int],
    evidence: Evidence,
    places: Collection[tuple[int, int]] | None = None,
) -> Alignment:
    """The cited sentences `claim` rests on (see the module docstring); only those at `places`
    ((section position, sentence index): where its quotes stand) when given."""
    candidates = [
        (position, index, reading)
        for position in cited
        for index, reading in enumerate(evidence.sections[position].sentences)
        if places is None or (position, index) in places
    ]
    needed = [f for f in claim.facts if not f.weak]
    covered: set[str] = set()
    held: set[int] = set()
    chosen: list[tuple[int, int, Reading]] = []
    while len(chosen) < MAX_ALIGNED:
        best, best_score, best_gain, best_shared = None, 0.0, 0, 0
        for candidate in candidates:
            if any(candidate[:2] == c[:2] for c in chosen):
                continue
            reading = candidate[2]
            new = (claim.stems & reading.stems) - covered
            facts = {k for k, f in enumerate(needed) if holds(f, reading.facts)}
            fresh = facts - held
            score = sum(evidence.weight(s) or 1.0 for s in new) + FACT_WEIGHT * len(fresh)
            if score > best_score:
                best, best_score = candidate, score
                best_gain = len(new) + (len(facts) if fresh else 0)  # "June 2026" is two
                best_shared = len(claim.stems & reading.stems)
        if best is None or (chosen and best_gain < MIN_GAIN and best_shared < MIN_SHARED):
            break
        chosen.append(best)
        covered |= claim.stems & best[2].stems
        held |= {k for k, f in enumerate(needed) if holds(f, best[2].facts)}
    return _alignment(claim, cited, chosen, evidence)


def _alignment(
    claim: Reading,
    cited: Sequence[int],
    chosen: list[tuple[int, int, Reading]],
    evidence: Evidence,
) -> Alignment:
    positions = tuple(dict.fromkeys(c[0] for c in chosen)) or tuple(cited)
    labels = [evidence.sections[p].label for p in positions]
    sentences = [c[2] for c in chosen]
    said = frozenset().union(*(r.stems for r in [*sentences, *labels])) | evidence.question
    exact = claim.stems & said  # restating the question adds nothing
    if sum(len(r.facts) for r in sentences) >= 2:
        exact |= claim.stems & CHANGE  # two figures say "rose", "fell" and "faster"
    nearby = frozenset().union(*(evidence.sections[p].stems for p in cited)) & claim.stems
    vectors = [evidence.sections[p].word_vectors[i] for p, i, _ in chosen]
    vectors += [evidence.lexicon.known(sorted(r.surface.values())) for r in labels]
    stacked = np.vstack(vectors) if vectors else np.zeros((0, evidence.lexicon.dim), np.float32)
    places = [(p, i) for p, i, _ in chosen]
    return Alignment(claim, positions, places, sentences, labels, exact, stacked, nearby - exact)


def soft_coverage(alignment: Alignment, vectors: dict[str, np.ndarray]) -> tuple[float, list[str]]:
    """(mean coverage of the claim's words, the words its cited sections do not say at all).

    A word counts 1 when the aligned sentences use it, NEARBY when only another sentence of the
    cited sections does, else the cosine of its closest aligned word if that reaches
    WORD_MATCH (below it, two unrelated words still score 0.3 to 0.5); it is left uncovered
    when no aligned word is that close and the cited sections never use it."""
    claim = alignment.claim
    if not claim.surface:
        return 1.0, []
    total = float(len(alignment.exact))
    uncovered = []
    for word in alignment.missing:
        vector = vectors.get(word)
        closest = 0.0
        if vector is not None and len(alignment.vectors):
            closest = max(0.0, float((alignment.vectors @ vector).max()))
        near = stem(word) in alignment.nearby
        total += max(closest if closest >= WORD_MATCH else 0.0, NEARBY if near else 0.0)
        if closest < WORD_MATCH and not near:
            uncovered.append(word)
    return total / len(claim.surface), uncovered


def longest_run(text: str, uncovered: Sequence[str]) -> int:
    """The most uncovered content words in a row (stop words between them, not punctuation nor
    a covered word): an invented detail comes as a phrase ("delivered as a shared spreadsheet"),
    a paraphrase as scattered words."""
    missing = set(uncovered)
    longest = 0
    run: set[str] = set()
    tokens = tokenize(text)
    for i, token in enumerate(tokens):
        if i and re.search(r"[,;:()\[\]—–]", text[tokens[i - 1].end : token.start]):
            run = set()
        if token.lower in missing or any(p in missing for p in token.parts):
            run.add(token.lower)  # "side by side" is one word twice
            longest = max(longest, len(run))
        elif token.content or token.numeric:
            run = set()
    return longest
