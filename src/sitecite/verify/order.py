"""What a claim says beyond its source's words: a claim can use only the words of the sentences
it rests on and still turn them around. It reverses a pair ("favoured specificity over
sensitivity" for "prioritise sensitivity over specificity"), or says a change-of-state or degree
word its source does not ("still needed its own folder" for "no longer needed its own folder",
"the only resolver he would trust").

These are features for the fitted support model (sitecite.verify.features), not verdicts: a
paraphrase reorders words and adds "later" or "only" too.
"""

from __future__ import annotations

from collections.abc import Sequence

from sitecite.tokens import tokenize

NEAR = 4  # content words apart that count as a pair
# Words that say how things changed, compare or rank.
SHIFTS = frozenset(
    """still longer anymore stopped replaced instead only never used already yet later earlier
    first last again more less fewer most least better worse before after mainly primarily
    than""".split()
)


def turned(claim: str, sources: Sequence[str]) -> int:
    """Pairs of the claim's content words at most NEAR apart that a source also puts at most
    NEAR apart, but the other way round."""
    tokens = [t.stem for t in tokenize(claim) if t.content]
    count = 0
    for source in sources:
        where: dict[str, int] = {}
        for i, word in enumerate(t.stem for t in tokenize(source) if t.content):
            where.setdefault(word, i)
        for i, first in enumerate(tokens):
            for second in tokens[i + 1 : i + 1 + NEAR]:
                a, b = where.get(first), where.get(second)
                if first != second and a is not None and b is not None:
                    count += 0 < a - b <= NEAR
    return count


def shifts(claim: str, sources: Sequence[str]) -> tuple[int, int]:
    """Change-of-state and degree words (SHIFTS) the claim says and its sources do not, and
    those its sources say and it does not."""
    said = {t.lower for t in tokenize(claim)} & SHIFTS
    given = {t.lower for s in sources for t in tokenize(s)} & SHIFTS
    return len(said - given), len(given - said)
