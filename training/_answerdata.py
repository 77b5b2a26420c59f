"""The answer-selection data (training/answerdata/*.jsonl) and where its gold sentences are indexed.

Each line is a visitor's question about one page of a site, with the page's sentences that
answer it copied by hand (`answer_sentences`), its key facts (`must_contain`), its type, and
whether the page answers it at all (training/answerdata/README.md). A gold sentence is found among
the indexed sentences of its page by normalised text (lower-case letters and digits only):
equal; else contained one in the other (a gold sentence that spans two indexed ones, or an
indexed one that the splitter cut further); else the closest by difflib's ratio when it is at
least 0.8 (markup the helper kept or dropped differently); else the shortest sentence holding
90% of its words (a footnote left out) or, for a table row copied with its pipes, every cell.
What is left is unmapped.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench._common import DATA, REPO, answerdata_rows

# The site each file is about: the example site, and every shared real site (by folder name).
SITES = {
    "example": REPO / "examples" / "site",
    **{
        path.name: path
        for path in sorted((DATA / "sites").glob("*"))
        if (path / "SOURCE.txt").is_file()
    },
}
FUZZY_RATIO = 0.8
MIN_CONTAINED_WORDS = 4
WORD_SHARE = 0.9


@dataclass
class Item:
    """One question of the answer data, with its gold sentences' places once mapped."""

    site: str
    page: str
    question: str
    answerable: bool
    answer_sentences: list[str]
    must_contain: list[list[str]]
    type: str
    key: str  # "<file>:<line>", unique
    gold: set[tuple[str, int]] = field(default_factory=set)  # (section id, sentence number)
    mapping: list[str] = field(default_factory=list)  # per gold sentence: how it was found


def load(paths: list[Path] | None = None) -> list[Item]:
    """Every line of the answer-data files (all of training/answerdata by default)."""
    items = []
    for stem, number, row in answerdata_rows(paths):
        if row["site"] not in SITES:
            raise ValueError(f"{stem}.jsonl:{number}: unknown site {row['site']!r}")
        groups = [g if isinstance(g, list) else [g] for g in row.get("must_contain", [])]
        items.append(
            Item(
                row["site"],
                row["page"],
                row["question"],
                bool(row["answerable"]),
                list(row.get("answer_sentences", [])),
                groups,
                row.get("type", "other"),
                f"{stem}:{number}",
            )
        )
    return items


def normalise(text: str) -> str:
    """A sentence as lower-case letters and digits, Markdown links and emphasis removed."""
    from sitecite.ingest.kinds import normal_form, tidy

    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return normal_form(tidy(re.sub(r"[*_`]+", "", text)))


def page_sentences(index: Any, page: str) -> list[tuple[str, int, str]]:
    """(section id, sentence number, normalised text) of every sentence of a page."""
    found = []
    for section in index.sections:
        if section.page_id == page:
            for number, sentence in enumerate(section.sentences):
                found.append((section.id, number, normalise(sentence)))
    return found


def map_item(index: Any, item: Item) -> None:
    """Find each gold sentence among its page's indexed sentences (see the module docstring)."""
    sentences = page_sentences(index, item.page)
    item.gold, item.mapping = set(), []
    for gold in item.answer_sentences:
        how, places = _locate(normalise(gold), sentences, gold.lstrip().startswith("|"))
        item.mapping.append(how)
        item.gold.update(places)


def _locate(
    key: str, sentences: list[tuple[str, int, str]], table: bool = False
) -> tuple[str, set[tuple[str, int]]]:
    if not key:
        return "unmapped", set()
    exact = {(s, n) for s, n, text in sentences if text == key}
    if exact:
        return "exact", exact
    inside = {
        (s, n)
        for s, n, text in sentences
        if text
        and (
            (key in text and len(key.split()) >= 2)
            or (text in key and len(text.split()) >= MIN_CONTAINED_WORDS)
        )
    }
    if inside:
        return "contained", inside
    best, ratio = None, 0.0
    for s, n, text in sentences:
        matcher = difflib.SequenceMatcher(None, key, text, autojunk=False)
        if matcher.real_quick_ratio() < FUZZY_RATIO or matcher.quick_ratio() < FUZZY_RATIO:
            continue
        value = matcher.ratio()
        if value > ratio:
            best, ratio = (s, n), value
    if best is not None and ratio >= FUZZY_RATIO:
        return "fuzzy", {best}
    return _by_words(key, sentences, table)


def _by_words(
    key: str, sentences: list[tuple[str, int, str]], table: bool
) -> tuple[str, set[tuple[str, int]]]:
    """The shortest sentence holding (nearly) every word of the gold one: a table row copied
    with its pipes (every cell), or a sentence whose footnote the helper left out (90%)."""
    wanted = set(key.split())
    if len(wanted) < (2 if table else 6):
        return "unmapped", set()
    need = 1.0 if table else WORD_SHARE
    found = [
        (len(text), s, n)
        for s, n, text in sentences
        if len(wanted & set(text.split())) >= need * len(wanted)
    ]
    if not found:
        return "unmapped", set()
    _, s, n = min(found)
    return "words", {(s, n)}


def mapping_counts(items: list[Item]) -> dict[str, dict[str, int]]:
    """Per site: gold sentences found exactly, contained, fuzzily, or not at all, and answerable
    questions with every / some / none of their gold sentences found."""
    counts: dict[str, Counter[str]] = {}
    for item in items:
        if not item.answerable:
            continue
        site = counts.setdefault(item.site, Counter())
        site.update(item.mapping)
        mapped = sum(how != "unmapped" for how in item.mapping)
        if mapped == len(item.mapping):
            site["questions fully mapped"] += 1
        elif mapped:
            site["questions partly mapped"] += 1
        else:
            site["questions unmapped"] += 1
    return {site: dict(c) for site, c in counts.items()}


def site_engine(site: str, embedder: Any, settings: Any) -> Any:
    """An Engine over the site's index, built (incrementally) under .sitecite/bench/sites, from
    its content as the owner has it (the shared folder without its question sets), the same
    index `bench.site_answers` reads."""
    from bench._common import require
    from bench.site_answers import engine_for

    require(SITES[site], f"the {site} site")
    return engine_for(site, embedder, settings)


def fitting_setup() -> tuple[Any, Any]:
    """The default settings and the embedder every fit computes its features with: one
    onnxruntime thread, so that a refit sees the same bits and writes the same bytes."""
    from sitecite.config import load_settings
    from sitecite.embed import get_embedder

    settings = load_settings({}, config_file=None, environ={})
    return settings, get_embedder(settings.embedder, threads=1)
