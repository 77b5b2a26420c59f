"""Candidate sentences with their features and labels: what the ranker and the answerability
model are fitted and measured on.

A question's candidates are exactly what the extractive generator ranks: every quotable sentence
of the top 8 sections retrieved for it, with every feature of `generate/features.py`, and
whether the section gate admitted it (the ranker learns from all eight sections; the
answerability model sees what serving sees, the admitted ones). A candidate is positive when:

- answer data (training/answerdata): it is one of the gold sentences the helper copied, found
  among the indexed sentences (training/_answerdata.py);
- the real sites' dev halves (bench/questions/*-dev.json): it is on an expected page and holds
  one of the question's key facts (`must_contain`);
- SQuAD 2.0: it is a sentence of the question's own paragraph holding a gold answer span.

Unanswerable questions (answer data's near misses, the dev halves' abstention questions,
SQuAD's impossible ones) have no positive. Test halves are never read here.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench._common import CACHE, DATA, REPO, answerdata_half, require
from bench.site_answers import answerdata_sites
from training._answerdata import (
    Item,
    fitting_setup,
    load,
    map_item,
    mapping_counts,
    site_engine,
)
from training._reader_data import fold_reader, readers_version

K = 8
QUESTIONS = REPO / "bench" / "questions"
REAL_SITES = ("jarvis", "timlrx")  # the real sites with question sets in bench/questions
# whose answer data the shipped models are fitted on (its dev halves): every site it covers
FITTED_SITES = tuple(answerdata_sites())


@dataclass
class Group:
    """One question's candidates: features, labels, and where it came from."""

    site: str  # "jarvis", "timlrx", "example" or "squad"
    origin: str  # "answerdata", "dev" or "squad"
    key: str
    question: str
    answerable: bool
    matrix: np.ndarray  # one row per candidate, a column per feature of FEATURES
    labels: np.ndarray
    admitted: np.ndarray  # whether the candidate's section cleared the gate
    texts: list[str] = field(default_factory=list)
    checks: dict[str, bool] = field(default_factory=dict)  # the generator's other checks
    places: list[tuple[int, int]] = field(default_factory=list)  # (section, sentence) numbers
    must_contain: list[list[str]] = field(default_factory=list)

    def admitted_only(self) -> Group:
        mask = self.admitted.astype(bool)
        texts = [t for t, keep in zip(self.texts, mask, strict=True) if keep]
        return Group(
            self.site,
            self.origin,
            self.key,
            self.question,
            self.answerable,
            self.matrix[mask],
            self.labels[mask],
            self.admitted[mask],
            texts,
            self.checks,
            [p for p, keep in zip(self.places, mask, strict=True) if keep],
            self.must_contain,
        )


def context_for(engine: Any, question: str) -> tuple[Any, np.ndarray]:
    """The Context the generator would get with every top-8 hit admitted (the question read and
    retrieved exactly as serving does: `pipeline.retrieve_for_answer`), and which hits the gate
    admits."""
    from dataclasses import replace

    from sitecite.pipeline import generator_context, retrieve_for_answer

    found = retrieve_for_answer(engine, question, K)
    gate = np.array([hit.admitted for hit in found.hits], dtype=bool)
    every = replace(found, hits=tuple(replace(hit, admitted=True) for hit in found.hits))
    context, _ = generator_context(engine, every)
    return context, gate


def group_for(
    engine: Any,
    where: tuple[str, str, str],
    question: str,
    answerable: bool,
    positive: Callable[[Any, int, str], bool],
    must_contain: list[list[str]] | None = None,
    reader: Any = None,
) -> Group:
    """Features and labels of one question; `positive(section, number, text)` says what answers
    it. `where` is (site, origin, key); `reader` reads the candidates (the "reader" column)."""
    from sitecite.generate.extractive import unknown_names
    from sitecite.generate.features import candidate_kinds, candidates_and_features

    context, admitted = context_for(engine, question)
    kinds = candidate_kinds(question)
    read = reader.read_for(question) if reader is not None else None
    found = candidates_and_features(context, context.query_vector, question, kinds, read=read)
    candidates, matrix = found.items, found.matrix
    labels = np.array(
        [
            positive(context.sections[c.section_position], c.sentence_position, c.text)
            for c in candidates
        ],
        dtype=int,
    )
    gate = np.array([admitted[c.section_position] for c in candidates], dtype=bool)
    checks = {"entities": not unknown_names(context, context.read())}
    texts = [c.text for c in candidates]
    places = [(c.section_position, c.sentence_position) for c in candidates]
    group = Group(*where, question, answerable, matrix, labels, gate, texts, checks, places)
    group.must_contain = must_contain or []
    return group


def answerdata_groups(engines: dict[str, Any], items: list[Item]) -> list[Group]:
    groups = []
    for item in items:
        engine = engines[item.site]
        map_item(engine.index, item)
        if item.answerable and not item.gold:
            continue  # no gold sentence found in the index: neither a positive nor a near miss

        def positive(section: Any, number: int, text: str, gold: Any = item.gold) -> bool:
            return (section.id, number) in gold

        where = (item.site, "answerdata", item.key)
        reader = fold_reader(item.site)
        groups.append(
            group_for(
                engine, where, item.question, item.answerable, positive, item.must_contain, reader
            )
        )
    return groups


def dev_groups(engines: dict[str, Any]) -> list[Group]:
    """The dev halves: the real sites' questions and the questions about the owner (all three
    sites), answerable ones with key facts, and abstention ones."""
    from sitecite.eval.metrics import matches

    groups = []
    for site, origin, q in dev_questions():
        answerable = q.expect == "answer" and bool(q.must_contain)
        if not answerable and q.category != "abstention":
            continue
        wordings = [w.lower() for g in q.must_contain for w in g]

        def positive(section: Any, number: int, text: str, w: Any = wordings, q: Any = q):
            on_page = any(matches(s, section.id, section.page_id) for s in q.expected_sources)
            return on_page and any(x in text.lower() for x in w)

        where = (site, origin, q.id)
        groups.append(
            group_for(
                engines[site],
                where,
                q.question,
                answerable,
                positive,
                q.must_contain,
                fold_reader(site),
            )
        )
    return groups


def dev_questions() -> list[tuple[str, str, Any]]:
    """(site, origin, question) of every dev half: origin "dev" for the real sites' question
    sets, "owner" for the questions about the owner (bench/questions/owner-<site>-dev.json)."""
    from sitecite.eval.questions import load_question_set

    found = []
    for site in REAL_SITES:
        found += [
            (site, "dev", q) for q in load_question_set(QUESTIONS / f"{site}-dev.json").questions
        ]
    for site in (*REAL_SITES, "example"):
        path = QUESTIONS / f"owner-{site}-dev.json"
        found += [(site, "owner", q) for q in load_question_set(path).questions]
    return found


def squad_groups(embedder: Any, settings: Any) -> list[Group]:
    from bench import eval_squad2 as squad
    from sitecite.generate.reader import default_reader
    from sitecite.index.build import write_index
    from sitecite.index.store import load_index
    from sitecite.pipeline import Engine

    rows = squad.read_rows(require(squad.DATA, "SQuAD 2.0 sample"))
    index_dir = CACHE / "ranker" / "squad2"
    write_index(squad.sections_of(rows), index_dir, embedder)
    engine = Engine.for_index(load_index(index_dir, embedder.id), settings, embedder)
    reader = default_reader()  # fitted on no SQuAD question
    groups = []
    for row in rows:
        answers = [a.lower() for a in row["answers"]]
        pid = squad.page_id(row)

        def positive(section: Any, number: int, text: str, pid: str = pid, a: Any = answers):
            return section.page_id == pid and any(x in text.lower() for x in a)

        where = ("squad", "squad", f"{row['title']}/{row['paragraph_index']}")
        groups.append(
            group_for(engine, where, row["question"], bool(answers), positive, reader=reader)
        )
    return groups


def fitted_items() -> list[Item]:
    """The answer data the models are fitted on: every site's dev half (the test halves are
    `bench.site_answers --set answerdata --half test`'s)."""
    return [item for item in load() if answerdata_half(item.site, item.question) == "dev"]


def collect(reuse: bool) -> tuple[list[Group], dict[str, Any]]:
    """Every group (answer data, dev halves, SQuAD) and the gold-sentence mapping counts, or the
    previous run's with `reuse` when the features have not changed since."""
    from sitecite.generate.features import FEATURES

    names = " ".join((*FEATURES, *FITTED_SITES, readers_version()))
    version = hashlib.sha256(names.encode()).hexdigest()[:12]
    saved = CACHE / "ranker" / f"groups-{version}.pickle"
    if reuse and saved.exists():
        try:
            return pickle.loads(saved.read_bytes())  # type: ignore[no-any-return]
        except (ModuleNotFoundError, AttributeError):
            pass  # written by an older layout of these modules: collect again
    settings, embedder = fitting_setup()
    engines = {site: site_engine(site, embedder, settings) for site in FITTED_SITES}
    items = fitted_items()
    groups = answerdata_groups(engines, items)
    groups += dev_groups(engines)
    groups += squad_groups(embedder, settings)
    result = (groups, mapping_counts(items))
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_bytes(pickle.dumps(result))
    return result


__all__ = ["DATA", "Group", "collect", "fitted_items"]
