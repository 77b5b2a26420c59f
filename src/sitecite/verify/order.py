"""Which way round a claim puts its source's words: a claim can use only the words of the
sentences it rests on and still turn them around. It reverses a pair ("favoured specificity over
sensitivity" for "prioritise sensitivity over specificity"), or says a change-of-state or degree
word its source does not ("still needed its own folder" for "no longer needed its own folder",
"the only resolver he would trust").

These are features a support model can read beside sitecite.verify.features (fitted with
`python bench/train_verifier.py --order`), not verdicts: a paraphrase reorders words and adds
"later" or "only" too. The shipped model does not read them: on the dev halves they raised the
cross-validated AUC from 0.880 to 0.894, but the model fitted with them caught fewer of the test
halves' unsupported sentences (README, "Verification of model-written answers").
"""

from __future__ import annotations

from collections.abc import Sequence

from sitecite.tokens import tokenize
from sitecite.verify.sources import Reading

ORDER = ("turned", "shift_claim", "shift_source")

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


def order_features(claim: Reading, pair: Sequence[Reading]) -> dict[str, float]:
    """The features of ORDER for one claim against its best one or two sentences."""
    texts = [r.text for r in pair]
    said, given = shifts(claim.text, texts)
    return {
        "turned": float(turned(claim.text, texts)),
        "shift_claim": float(said),
        "shift_source": float(given),
    }
