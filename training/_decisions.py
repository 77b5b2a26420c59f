"""Each question of the answer data and the dev halves run as serving runs it, up to the two
decisions the answerability and follower models make: what training/train_answerable.py fits on.

A question goes through retrieval, the section gate, the quarantine and the extractive
generator's ranking (`ExtractiveGenerator.rank_part`) with a ranker fitted on the OTHER sites
(training/train_ranker.py), so no row is read off a ranker that saw the question's site. It
records the answerability features of the question (of each part, for a question of several),
and, for a question of one part, the follower features of the sentences that may follow the
lead and how many key facts (`must_contain`) each would add. Questions the generator refuses
before these models (a name the site never uses, no admitted sentence of the kind asked for,
none supported) are kept, marked refused.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from bench._common import CACHE, question_context
from training import train_ranker
from training._answerdata import fitting_setup, site_engine
from training._ranker_data import collect, dev_questions, fitted_items
from training._reader_data import fold_reader

SITES = train_ranker.SITES


@dataclass
class Decision:
    """What one question looked like at the two decisions."""

    site: str
    origin: str
    question: str
    answerable: bool
    refused_early: bool = False  # refused before the answerability model (or several parts)
    row: np.ndarray | None = None  # answerability features
    lead_hits: int = 0  # key-fact groups the lead holds
    groups: int = 0  # key-fact groups the question has
    pool_rows: np.ndarray | None = None  # follower features of the sentences after the lead
    pool_gain: list[int] = field(default_factory=list)  # key-fact groups each adds
    pool_texts: list[str] = field(default_factory=list)
    lead_text: str = ""
    must_contain: list[list[str]] = field(default_factory=list)
    part_rows: list[np.ndarray] = field(default_factory=list)  # a question of several parts

    @property
    def lead_correct(self) -> bool:
        return self.answerable and self.groups > 0 and self.lead_hits == self.groups


def questions() -> list[tuple[str, str, str, bool, list[list[str]]]]:
    """(site, origin, question, answerable, must_contain) of the answer data and the dev halves."""
    found = [
        (i.site, "answerdata", i.question, i.answerable, i.must_contain)
        for i in fitted_items()  # every site's answer data, dev halves (training/_ranker_data.py)
    ]
    for site, origin, q in dev_questions():
        if q.expect == "answer" or q.category == "abstention":
            groups = [list(g) for g in q.must_contain]
            found.append((site, origin, q.question, q.expect == "answer", groups))
    return found


def placeholder(features: Sequence[str]) -> Any:
    """A model that is never read (the rows are made before any is fitted)."""
    from sitecite.generate.ranker import Ranker

    n = len(features)
    return Ranker(tuple(features), np.zeros(n), np.ones(n), np.zeros(n), 0.0, {})


def decide(
    engine: Any,
    generator: Any,
    site: str,
    origin: str,
    question: str,
    answerable: bool,
    must_contain: list[list[str]],
) -> Decision:
    """Run one question as serving does, up to the two decisions, and record their rows."""
    from sitecite.generate.answerable import answerable_row
    from sitecite.generate.extractive import part_names, unknown_names
    from sitecite.generate.follow import follower_rows
    from sitecite.question import question_parts

    decision = Decision(site, origin, question, answerable, must_contain=must_contain)
    decision.groups = len(must_contain)
    vector, context = question_context(engine, question)
    if context is None:
        decision.refused_early = True
        return decision
    if unknown_names(context, context.read()):
        decision.refused_early = True
        return decision
    parts = question_parts(question)
    if len(parts) > 1:
        return several_parts(decision, generator, context, parts)
    names = part_names(context, question, [])
    ranked, _ = generator.rank_part(context, question, vector, names)
    if ranked is None or not ranked.eligible:
        decision.refused_early = True
        return decision
    decision.row = answerable_row(ranked)
    items = ranked.candidates.items
    lead = ranked.eligible[0]
    decision.lead_text = items[lead].text
    decision.lead_hits = len(_held(must_contain, decision.lead_text))
    pool, decision.pool_rows = follower_rows(ranked, lead)
    decision.pool_texts = [items[i].text for i in pool]
    before = _held(must_contain, decision.lead_text)
    decision.pool_gain = [len(_held(must_contain, items[i].text) - before) for i in pool]
    return decision


def several_parts(decision: Decision, generator: Any, context: Any, parts: list[str]) -> Decision:
    """A question of several parts is refused only when every part is: its rows are the parts'
    (no follower rows, and no key facts counted: those are the whole question's)."""
    from sitecite.generate.answerable import answerable_row
    from sitecite.generate.extractive import part_names

    names: list[str] = []
    for part, vector in zip(parts, context.embedder.embed(parts), strict=True):
        names = part_names(context, part, names)
        ranked, _ = generator.rank_part(context, part, vector, names, whole=False)
        if ranked is not None and ranked.eligible:
            decision.part_rows.append(answerable_row(ranked))
    decision.refused_early = not decision.part_rows
    decision.groups = 0  # not graded on key facts here
    return decision


def _held(groups: list[list[str]], text: str) -> set[int]:
    lowered = text.lower()
    return {n for n, g in enumerate(groups) if any(w.lower() in lowered for w in g)}


def decisions(reuse: bool) -> list[Decision]:
    """Every question's decision rows, each made with a ranker fitted on the other sites."""
    from sitecite.generate.answerable import ANSWERABLE_FEATURES
    from sitecite.generate.extractive import ExtractiveGenerator
    from sitecite.generate.follow import FOLLOW_FEATURES

    saved = CACHE / "ranker" / "decisions.pickle"
    if reuse and saved.exists():
        return [Decision(**row) for row in pickle.loads(saved.read_bytes())]
    groups, _ = collect(True)
    sites = [g for g in groups if g.site in SITES]
    settings, embedder = fitting_setup()
    found = []
    asked = questions()
    for site in SITES:
        ranker = train_ranker.fit(
            [g for g in sites if g.site != site], train_ranker.FEATURE_SETS[train_ranker.CHOSEN]
        )
        generator = ExtractiveGenerator(
            ranker=ranker,
            answerability=placeholder(ANSWERABLE_FEATURES),
            follower=placeholder(FOLLOW_FEATURES),
            reader=fold_reader(site),
        )
        engine = site_engine(site, embedder, settings)
        for where, origin, question, answerable, must in asked:
            if where == site:
                found.append(decide(engine, generator, site, origin, question, answerable, must))
    saved.write_bytes(pickle.dumps([asdict(d) for d in found]))  # plain data: readable anywhere
    return found
