"""Whether a second sentence adds what the question asks for, beyond the sentence that leads.

An answer often needs two sentences ("what does he back up with, and where do the backups
go?"), but a second sentence that only repeats the first, or drifts to another topic, makes the
answer worse. For each of the few best-ranked sentences after the lead, a logistic regression
fitted by `bench/train_answerable.py` (on the answer data and the dev halves: did adding this
sentence bring in a key fact the lead lacked?) reads how it stands to the lead: how far below
it the ranker put it, whether it is the lead's neighbour or in its section, how much of the
question's words the lead left out it covers, how much of it repeats the lead, and whether it
holds the kind of thing asked for. The best one joins when its probability clears the
threshold chosen there.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from sitecite.generate.answerable import EXPECTED, Ranked, expected_column
from sitecite.generate.ranker import Ranker, shipped_model

WEIGHTS = "answer_follower.json"
FOLLOW_FEATURES = (
    "gap",
    "rank",
    "same_section",
    "next_to_lead",
    "before_lead",
    "lead_colon",
    "leftover",
    "redundancy",
    "cosine",
    "coverage",
    "expected",
    "both_items",
)
NEEDS = ("cosine", "coverage", *EXPECTED)  # the candidate features these rows are made of
POOL = 5  # a follower is one of the best this many sentences after the lead


def follower_rows(
    ranked: Ranked, lead: int, said: Iterable[int] = ()
) -> tuple[list[int], np.ndarray]:
    """The candidates that may follow `lead` (indexes into the candidates, best first) and a row
    of FOLLOW_FEATURES for each; `said` are sentences already in the answer."""
    found = ranked.candidates
    items = found.items
    first = items[lead]
    spoken = set(first.terms).union(*(items[i].terms for i in said))
    left = found.asked.stems - spoken
    expected = expected_column(found)
    # the same words twice (a page repeating a line) are never a second sentence
    texts = {items[i].text for i in (lead, *said)}
    pool = [i for i in ranked.eligible if items[i].text not in texts][:POOL]
    rows = []
    for rank, i in enumerate(pool):
        other = items[i]
        same = other.section_position == first.section_position
        step = other.sentence_position - first.sentence_position
        values = {
            "gap": ranked.scores[lead] - ranked.scores[i],
            "rank": 1.0 / (1.0 + rank),
            "same_section": float(same),
            "next_to_lead": float(same and step == 1),
            "before_lead": float(same and step == -1),
            "lead_colon": float(first.text.rstrip().endswith(":")),
            "leftover": len(left & other.terms) / len(left) if left else 0.0,
            "redundancy": len(other.terms & spoken) / len(other.terms) if other.terms else 1.0,
            "cosine": other.cosine,
            "coverage": other.coverage,
            "expected": expected[i],
            "both_items": float(first.kind == other.kind == "item"),
        }
        rows.append([float(values[name]) for name in FOLLOW_FEATURES])
    return pool, np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FOLLOW_FEATURES))


def default_follower() -> Ranker:
    """The follower model shipped with sitecite."""
    return shipped_model(WEIGHTS, FOLLOW_FEATURES)
