"""The reader's data: each answer-data question with the candidate sentences serving would read.

A question's candidates are what the answer path ranks: every quotable sentence of the top K
sections retrieved for it exactly as serving retrieves (`pipeline.retrieve_for_answer`), the
gate's verdict on each section kept (`admitted`). These are the hard negatives: sentences of the
site's own closest sections. A candidate is positive when it is one of the gold sentences the
helper copied, found among the page's indexed sentences (training/_answerdata.py).

For fitting only, a question whose gold sentences retrieval missed also gets its gold
sections' sentences (`retrieved` False), so every answerable question teaches the reader
something; measurement reads the retrieved candidates alone, as serving does.

Each candidate is stored by where its vector is: the row of the site index's sentence vectors,
and its section's row. The vectors stay in the site's index (loaded once per site).
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench._common import CACHE
from training._answerdata import Item, fitting_setup, load, map_item, mapping_counts, site_engine

K = 8
FOLDS = CACHE / "reader" / "folds"  # each site's reader, fitted without it (train_reader)


def fold_reader(site: str) -> Any:
    """The reader fitted on the other sites' dev halves (`train_reader --write` writes them):
    what a site's candidates are read with wherever a fit learns from them, so that the models
    downstream learn how far to trust the reader on a site it never read."""
    from sitecite.generate.reader import load_reader

    folder = FOLDS / site
    if not (folder / "card.json").is_file():
        raise SystemExit(
            f"{folder}: no reader fitted without {site}; run python -m training.train_reader "
            "--write first"
        )
    return load_reader(str(folder))


def readers_version(judges: bool = False) -> str:
    """A hash of every fold reader's and the shipped reader's weights (with `judges`, their
    judges' too): cached features made with other readers are stale."""
    from sitecite.generate.reader import ReaderCard, reader_folder

    digest = hashlib.sha256()
    for folder in [*sorted(p for p in FOLDS.glob("*") if p.is_dir()), reader_folder()]:
        if (folder / "card.json").is_file():
            card = ReaderCard.read(folder / "card.json")
            digest.update(f"{card.null} {card.bundled_weight}".encode())
            digest.update((folder / "layers.npz").read_bytes())
            if judges and (folder / "judge.npz").is_file():  # the pair judge (train_judge)
                digest.update((folder / "judge.npz").read_bytes())
    return digest.hexdigest()[:12]


@dataclass
class Candidate:
    section_id: str
    number: int  # the sentence's number in its section
    text: str
    kind: str
    title: str
    heading: str
    sentence_row: int  # row of the index's sentence_vectors
    section_row: int  # row of the index's vectors
    rank: int  # the section's rank among the hits (0 = first)
    admitted: bool
    retrieved: bool
    label: bool


@dataclass
class Question:
    site: str
    key: str
    page: str
    question: str
    answerable: bool
    type: str
    must_contain: list[list[str]]
    candidates: list[Candidate] = field(default_factory=list)
    gold_found: bool = False  # a gold sentence is among the retrieved candidates

    @property
    def labels(self) -> np.ndarray:
        return np.array([c.label for c in self.candidates], dtype=bool)


def candidates_for(engine: Any, item: Item) -> Question:
    """The question's candidates, retrieved as serving retrieves."""
    from sitecite.generate.features import candidate_kinds
    from sitecite.pipeline import retrieve_for_answer

    index = engine.index
    found = retrieve_for_answer(engine, item.question, K)
    kinds = candidate_kinds(item.question)
    question = Question(
        item.site,
        item.key,
        item.page,
        item.question,
        item.answerable,
        item.type,
        item.must_contain,
    )
    seen: set[str] = set()
    for rank, hit in enumerate(found.hits):
        _add_section(question, index, hit.section, rank, hit.admitted, True, kinds, item.gold)
        seen.add(hit.section.id)
    question.gold_found = any(c.label for c in question.candidates)
    for section_id in sorted({s for s, _ in item.gold} - seen):
        section = index.sections[index.row_of[section_id]]
        _add_section(question, index, section, K, False, False, kinds, item.gold)
    return question


def _add_section(
    question: Question,
    index: Any,
    section: Any,
    rank: int,
    admitted: bool,
    retrieved: bool,
    kinds: frozenset[str],
    gold: set[tuple[str, int]],
) -> None:
    row = index.row_of[section.id]
    span = index.sentence_rows(row)
    for number, (text, kind) in enumerate(
        zip(section.sentences, section.sentence_kinds, strict=True)
    ):
        if kind not in kinds and (section.id, number) not in gold:
            continue
        question.candidates.append(
            Candidate(
                section.id,
                number,
                text,
                kind,
                section.title,
                section.heading,
                span.start + number,
                row,
                rank,
                admitted,
                retrieved,
                (section.id, number) in gold,
            )
        )


def site_questions(site: str, items: list[Item], engine: Any) -> list[Question]:
    """The site's questions with their candidates; an answerable question none of whose gold
    sentences is found in the index is left out (counted in `MAPPING`)."""
    questions = []
    for item in items:
        map_item(engine.index, item)
        if item.answerable and not item.gold:
            continue  # no gold sentence found in the index: neither a positive nor a near miss
        questions.append(candidates_for(engine, item))
    return questions


def mapping(items: list[Item]) -> dict[str, dict[str, int]]:
    """Per site, how the gold sentences were found (training/_answerdata.mapping_counts) and
    how many near misses there are; items must have been mapped (`collect` does it)."""
    counts = mapping_counts(items)
    for item in items:
        if not item.answerable:
            site = counts.setdefault(item.site, {})
            site["near misses"] = site.get("near misses", 0) + 1
    return counts


def collect(
    sites: list[str] | None = None,
    files: list[Path] | None = None,
    reuse: bool = True,
    mapped: list[Item] | None = None,
) -> tuple[dict[str, list[Question]], dict[str, Any]]:
    """Per site, its questions with candidates, and its index (for the vectors); cached per
    site under .sitecite/bench/reader/ by a hash of the site's answer-data lines and of its
    index's sections. `mapped` receives the items, their gold sentences found."""
    settings, embedder = fitting_setup()
    items = load(files)
    by_site: dict[str, list[Item]] = {}
    for item in items:
        by_site.setdefault(item.site, []).append(item)
    out: dict[str, list[Question]] = {}
    indexes: dict[str, Any] = {}
    for site in sites or sorted(by_site):
        if site not in by_site:
            continue
        engine = site_engine(site, embedder, settings)
        indexes[site] = engine.index
        if mapped is not None:
            mapped.extend(by_site[site])
        digest = hashlib.sha256(
            "\n".join(
                f"{i.key}|{i.page}|{i.question}|{i.answer_sentences}" for i in by_site[site]
            ).encode()
        )
        digest.update("".join(s.hash for s in engine.index.sections).encode())
        saved = CACHE / "reader" / f"{site}-{digest.hexdigest()[:12]}.pickle"
        if reuse and saved.exists():
            out[site] = pickle.loads(saved.read_bytes())
            for item in by_site[site]:
                map_item(engine.index, item)
            continue
        out[site] = site_questions(site, by_site[site], engine)
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_bytes(pickle.dumps(out[site]))
    return out, indexes
