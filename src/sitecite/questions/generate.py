"""Write a question set that tries to break a site: answerable questions, bait and attacks.

The writers (offline, or an LLM with `writer`) offer candidates; `generate_questions` takes
them in an order the seed decides, kinds interleaved, and keeps a candidate only when it is no
duplicate of one already kept, it does not crowd one page, and, for bait and false claims, the
site is silent on it (sitecite.questions.check). Everything left out is reported with why.
"""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from sitecite.errors import InputError
from sitecite.pipeline import Engine
from sitecite.questions import adversarial, answerable, bait, multi, statements, titles
from sitecite.questions.check import answered_because, duplicates, names_on_site, private_matters
from sitecite.questions.model import DEFAULT_COUNTS, Candidate, Dropped, GeneratedSet
from sitecite.questions.neighbours import Member, Named, named_members, table
from sitecite.questions.site import Owner, SiteText

MAX_PER_PAGE = 2  # answerable questions whose expected source is one page
KIND_SHARE = 0.3  # of a group, one kind of question while other kinds last
# When a page was published is the fact every blog offers; at most a quarter of the fact
# questions ask it, so the others ask what the pages say (counts, names, versions, years).
DATE_SHARE = 0.25
DATE_KIND = "publication date"
MAX_COUNT = 500


@dataclass(frozen=True)
class Plan:
    """How many questions of each group to write, and the seed that picks them."""

    answerable: int = DEFAULT_COUNTS["answerable"]
    bait: int = DEFAULT_COUNTS["bait"]
    adversarial: int = DEFAULT_COUNTS["adversarial"]
    seed: int = 0

    def check(self) -> None:
        for group in ("answerable", "bait", "adversarial"):
            count = getattr(self, group)
            if not 0 <= count <= MAX_COUNT:
                raise InputError(f"--{group} must be between 0 and {MAX_COUNT}, got {count}")
        if self.answerable + self.bait + self.adversarial == 0:
            raise InputError("nothing to write: every count is 0")


@dataclass
class Reading:
    """What every writer reads of the site, computed once."""

    engine: Engine
    site: SiteText
    owner: Owner
    named: list[Named]
    known: frozenset[str]
    rng: random.Random

    def absent(self) -> dict[str, list[Member]]:
        """Members the site never writes, by category: neighbours of named ones first."""
        found: dict[str, list[Member]] = defaultdict(list)
        for item in self.named:
            for member in item.neighbours:
                found[member.category.name].append(member)
        for member in table():
            if member.category.name not in found and not any(
                self.site.mentions(n) for n in member.names
            ):
                found[member.category.name].append(member)
        return found


class Writer(Protocol):
    """Writes candidates for each group; `generate_questions` checks and picks among them.
    `problems` holds what the writer itself could not use (a malformed reply)."""

    name: str
    problems: list[Dropped]

    def answerable(self, reading: Reading, count: int) -> list[Candidate]: ...

    def bait(self, reading: Reading, count: int) -> list[Candidate]: ...

    def adversarial(self, reading: Reading, count: int) -> list[Candidate]: ...


class OfflineWriter:
    """Writes from the index alone: templates over what the site's sections say."""

    name = "offline"

    def __init__(self) -> None:
        self.problems: list[Dropped] = []

    def answerable(self, reading: Reading, count: int) -> list[Candidate]:
        site, owner, known = reading.site, reading.owner, reading.known
        return [
            *answerable.profile_questions(site, owner),
            *answerable.setup_questions(site, owner),
            *statements.statement_questions(site, owner, known),
            *answerable.published_questions(site, owner),
            *titles.heading_questions(site, owner),
            *titles.topic_questions(site, owner, known),
            *multi.multi_questions(site, owner),
        ]

    def bait(self, reading: Reading, count: int) -> list[Candidate]:
        spellings = {
            item.member: next(n for n in item.member.names if reading.site.names(n))
            for item in reading.named
        }
        return [
            *bait.neighbour_questions(reading.named, reading.owner),
            *bait.detail_questions(reading.named, reading.owner, spellings),
            *bait.private_questions(reading.owner),
            *bait.unnamed_questions(reading.absent(), reading.owner, reading.rng),
        ]

    def adversarial(self, reading: Reading, count: int) -> list[Candidate]:
        page_titles = [
            page.title
            for page in titles.site_pages(reading.site)
            if 2 <= len(page.title.split()) <= 8 and page.title.isprintable()
        ]
        return list(
            adversarial.adversarial_questions(
                reading.owner, reading.absent(), reading.rng, page_titles, reading.engine.index.id
            )
        )


def generate_questions(
    engine: Engine,
    plan: Plan,
    writer: Writer | None = None,
    name: str = "",
) -> GeneratedSet:
    """Write, check and pick the questions of `plan` for the engine's index."""
    plan.check()
    started = time.perf_counter()
    writer = writer or OfflineWriter()
    reading = read_site(engine, plan.seed)
    picker = _Picker(reading)
    groups = (
        ("answerable", plan.answerable, writer.answerable),
        ("bait", plan.bait, writer.bait),
        ("adversarial", plan.adversarial, writer.adversarial),
    )
    for group, count, write in groups:
        if count:
            picker.pick(group, count, _interleaved(write(reading, count), reading.rng))
    owner = reading.owner.name or "the site's owner"
    made = GeneratedSet(
        name=name or f"{Path(engine.index.path).name}-questions",
        description=(
            f"Questions about {owner} written by `sitecite questions` ({writer.name}, seed "
            f"{plan.seed}) from the index {engine.index.path}: answerable questions with "
            "their sources, bait the site does not answer, and attacks. Check them before "
            "you rely on them."
        ),
        questions=picker.kept,
        dropped=[*writer.problems, *picker.dropped],
        asked={"answerable": plan.answerable, "bait": plan.bait, "adversarial": plan.adversarial},
        writer=writer.name,
    )
    made.seconds = time.perf_counter() - started
    return made


def read_site(engine: Engine, seed: int = 0) -> Reading:
    site = SiteText(engine.index)
    owner = Owner.of(engine.index, site)
    return Reading(
        engine,
        site,
        owner,
        named_members(site, engine.embedder),
        english_words(engine),
        random.Random(seed),
    )


def english_words(engine: Engine) -> frozenset[str]:
    """Whole words the embedding model's vocabulary knows, and the site's own words: what a
    base form made from a past tense must be to be used."""
    tokenizer = getattr(engine.embedder, "tokenizer", None)
    vocabulary: Iterable[str] = ()
    if tokenizer is not None and hasattr(tokenizer, "get_vocab"):
        vocabulary = (w for w in tokenizer.get_vocab() if w.isalpha())
    return frozenset(vocabulary) | engine.index.word_set


def _interleaved(candidates: Sequence[Candidate], rng: random.Random) -> list[Candidate]:
    """The candidates shuffled within each kind, kinds taken in turn."""
    by_kind: dict[str, list[Candidate]] = defaultdict(list)
    seen: set[str] = set()
    for candidate in candidates:
        if candidate.question not in seen:  # two names may share a neighbour
            seen.add(candidate.question)
            by_kind[candidate.kind].append(candidate)
    queues = []
    for kind in sorted(by_kind):
        members = by_kind[kind]
        rng.shuffle(members)
        queues.append(members)
    order = []
    while any(queues):
        for queue in queues:
            if queue:
                order.append(queue.pop(0))
    return order


class _Picker:
    """Keeps candidates that pass the checks, in turn, until a group has its count: first one
    per page and at most KIND_SHARE of the group per kind, then up to MAX_PER_PAGE per page
    and half the group per kind, then any kind (a site may offer only one)."""

    def __init__(self, reading: Reading) -> None:
        self.reading = reading
        self.kept: list[Candidate] = []
        self.dropped: list[Dropped] = []
        self._vectors: dict[str, np.ndarray] = {}
        self._pages: dict[str, int] = defaultdict(int)

    def pick(self, group: str, count: int, candidates: Sequence[Candidate]) -> None:
        kinds: dict[str, int] = defaultdict(int)
        per_kind = max(2, math.ceil(count * KIND_SHARE))
        pending = list(candidates)
        facts = {c.kind for c in pending if c.category == "fact"}
        passes = (
            (1, per_kind),
            (MAX_PER_PAGE, max(per_kind, count // 2)),
            (MAX_PER_PAGE, count),
            (MAX_PER_PAGE, count),  # dates put off until other facts were kept
        )
        for per_page, kind_limit in passes:
            later = []
            for position, candidate in enumerate(pending):
                if sum(kinds.values()) >= count:
                    return
                page = self._page(candidate)
                kept_facts = sum(n for kind, n in kinds.items() if kind in facts)
                if (
                    candidate.kind == DATE_KIND
                    and kinds[DATE_KIND] + 1 > (kept_facts + 1) * DATE_SHARE
                ):
                    later.append(candidate)
                    continue
                if self._pages[page] >= per_page or kinds[candidate.kind] >= kind_limit:
                    later.append(candidate)
                    continue
                vector = self._vector(pending, position)
                reason = self._problem(candidate, vector)
                if reason:
                    self.dropped.append(Dropped(candidate.question, group, reason))
                    continue
                self.kept.append(candidate)
                self._vectors[candidate.question] = vector
                kinds[candidate.kind] += 1
                if page:
                    self._pages[page] += 1
            pending = later

    def _vector(self, pending: Sequence[Candidate], position: int) -> np.ndarray:
        """The question's vector, embedding it with the next few in one batch."""
        question = pending[position].question
        if question not in self._vectors:
            batch = [c.question for c in pending[position : position + 16]]
            for text, vector in zip(batch, self.reading.engine.embedder.embed(batch), strict=True):
                self._vectors.setdefault(text, vector)
        return self._vectors[question]

    def _problem(self, candidate: Candidate, vector: np.ndarray) -> str:
        if self.kept:
            questions = [c.question for c in self.kept] + [candidate.question]
            matrix = np.vstack([*(self._vectors[c.question] for c in self.kept), vector])
            same = [d for d in duplicates(questions, matrix) if d.position == len(self.kept)]
            if same:
                return f"asks what “{self.kept[same[0].of].question}” asks"
        shared = self._same_premise(candidate)
        if shared:
            return f"turns on what “{shared}” turns on"
        if candidate.category == "abstention":
            return answered_because(
                candidate, self.reading.site, self.reading.engine, self.reading.owner.words
            )
        if candidate.absent:  # a false claim must stay false
            return names_on_site(candidate, self.reading.site)
        return ""

    def _same_premise(self, candidate: Candidate) -> str:
        """A kept question built on the same swapped-in name or private matter ("When is
        Andrey's birthday?" and "What's Andrey's date of birth and passport number?")."""
        names = {n.lower() for n in candidate.absent[:1]}
        for kept in self.kept:
            if names & {n.lower() for n in kept.absent[:1]}:
                return kept.question
            if candidate.private and candidate.private in (kept.private, _matter(kept)):
                return kept.question
        return ""

    @staticmethod
    def _page(candidate: Candidate) -> str:
        return candidate.expected_sources[0].split("#", 1)[0] if candidate.expected_sources else ""


def _matter(candidate: Candidate) -> str:
    """The private matter a kept question touches, by its words ("born" is a birthday)."""
    found = private_matters(candidate)
    return found[0] if found else ""
