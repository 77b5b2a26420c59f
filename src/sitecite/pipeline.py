"""The one function that answers: serving, the CLI and the evaluation harness all call `answer`.

It retrieves exactly once and returns the Answer together with its Trace: the ranked hits,
the threshold, the exact sections given to the generator, what the generator produced, every
check, timings and token counts. The harness grades that Trace and never retrieves again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from sitecite.config import Settings
from sitecite.embed import Embedder, embedder_for
from sitecite.errors import InputError
from sitecite.generate import Context, Generator
from sitecite.generate.extractive import DEFAULT_COVERAGE_THRESHOLD, DEFAULT_SENTENCE_THRESHOLD
from sitecite.generate.owner import about_sections
from sitecite.index.store import Index, load_index
from sitecite.ingest.kinds import QUOTABLE
from sitecite.injection import quarantine_section
from sitecite.question import Reading, read
from sitecite.retrieve import search, section_threshold
from sitecite.screen import Screen
from sitecite.tokens import content_stems
from sitecite.types import Answer, Check, Citation, Draft, Hit, Section, Trace, Turn

REFUSAL = "The site doesn't say. I can only answer from what is published on this site."
INSTRUCTION_REFUSAL = (
    "I can only answer questions about this site from what it publishes, "
    "and I don't follow instructions given in a question."
)


@dataclass(frozen=True)
class Engine:
    """A loaded index, its embedder, the generator and the settings: everything `answer` needs."""

    settings: Settings
    index: Index
    embedder: Embedder
    generator: Generator
    threshold: float
    sentence_threshold: float
    coverage_threshold: float
    fixed_generator: Generator | None = None

    @classmethod
    def load(
        cls, index_dir: str | Path, settings: Settings, generator: Generator | None = None
    ) -> Engine:
        """Load the index and the embedder it was built with (a mismatch is an error)."""
        embedder = embedder_for(settings)
        index = load_index(index_dir, embedder.id)
        return cls.for_index(index, settings, embedder, generator)

    @classmethod
    def for_index(
        cls,
        index: Index,
        settings: Settings,
        embedder: Embedder,
        generator: Generator | None = None,
    ) -> Engine:
        threshold = section_threshold(index, settings.threshold)
        stored = index.thresholds()
        sentence = _pick(
            settings.sentence_threshold, stored.get("sentence"), DEFAULT_SENTENCE_THRESHOLD
        )
        coverage = _pick(
            settings.coverage_threshold, stored.get("coverage"), DEFAULT_COVERAGE_THRESHOLD
        )
        chosen = generator
        if chosen is None:
            from sitecite.generate import make_generator

            chosen = make_generator(settings, sentence, embedder, coverage)
        return cls(settings, index, embedder, chosen, threshold, sentence, coverage, generator)

    def with_index(self, index: Index) -> Engine:
        """The same engine over a new index (live swap): its thresholds are re-read, so the
        generator is rebuilt with them unless the caller supplied its own."""
        return Engine.for_index(index, self.settings, self.embedder, self.fixed_generator)

    def close(self) -> None:
        """Close the generator's connections, unless the caller supplied (and owns) it."""
        if self.fixed_generator is None:
            self.generator.close()


def _pick(configured: float | None, stored: object, default: float) -> float:
    """A threshold from settings, else from the index's calibration, else the default."""
    if configured is not None:
        return configured
    return float(stored) if isinstance(stored, int | float) else default


def validate_question(question: object, max_chars: int | None = None) -> str:
    if not isinstance(question, str):
        raise InputError(f"question must be a string, got {type(question).__name__}")
    cleaned = " ".join(question.split())
    if not cleaned:
        raise InputError("question is empty")
    if max_chars is not None and len(cleaned) > max_chars:
        raise InputError(f"question is {len(cleaned)} characters long; the limit is {max_chars}")
    return cleaned


def answer(
    engine: Engine,
    question: str,
    k: int | None = None,
    history: Sequence[Turn] = (),
    generator: Generator | None = None,
) -> tuple[Answer, Trace]:
    """Answer one question from the index, or refuse; retrieves exactly once.

    `history` holds the conversation's earlier turns, oldest first: a follow-up is read with
    the previous question (sitecite.followup). `generator` replaces the engine's for this one
    answer (the server's LLM budget falls back to the extractive one)."""
    started = time.perf_counter()
    question = validate_question(question)
    found = retrieve_for_answer(engine, question, k, history)
    reading, screen, hits = found.reading.resolution, found.screen, found.hits
    timings: dict[str, float] = dict(found.timings)
    admitted = list(found.admitted)
    checks = [
        *([Check("followup", True, reading.detail())] if history else []),
        Check(
            "instructions",
            not screen.refuse,
            f"{screen.instruction}: '{screen.matched}'" if screen.refuse else "none found",
        ),
        Check(
            "gate",
            bool(admitted),
            f"{len(admitted)} of {len(hits)} hits at or above cosine {engine.threshold:.3f}",
        ),
    ]
    context_sections: list[Section] = []
    nearby_ids: set[str] = set()

    mark = time.perf_counter()
    if screen.refuse:
        draft = Draft("", (), True, "none", refusal_reason="instruction")
    elif not admitted:
        draft = Draft("", (), True, "none", refusal_reason="below_threshold")
    else:
        context, check = generator_context(engine, found)
        context_sections = context.sections
        nearby_ids = {section.id for section in context.nearby}
        checks.append(check)
        draft = (generator or engine.generator).generate(context)
    timings["generate"] = _ms(mark)
    timings.update({f"generate.{step}": ms for step, ms in draft.timings.items()})
    timings["total"] = _ms(started)

    quotes = draft.quotes if len(draft.quotes) == len(draft.cited) else ((),) * len(draft.cited)
    pool = [*admitted, *(h for h in found.nearby if h.section.id in nearby_ids)]
    citations = tuple(
        Citation(
            n,
            hit.section.id,
            hit.section.title,
            hit.section.heading,
            hit.section.url,
            hit.cosine,
            quoted,
        )
        for n, hit, quoted in (
            (n, pool[position], quoted)
            for n, (position, quoted) in enumerate(zip(draft.cited, quotes, strict=True), start=1)
        )
    )
    refused = draft.refused or not citations
    if not refused or (draft.refused and draft.text):
        text = draft.text  # an answer, or the generator's own refusal (what the site lacks)
    else:
        text = INSTRUCTION_REFUSAL if draft.refusal_reason == "instruction" else REFUSAL
    score = sum(c.score for c in citations) / len(citations) if citations and not refused else 0.0
    all_checks = tuple(checks) + draft.checks
    trace = Trace(
        question=question,
        hits=hits,
        threshold=engine.threshold,
        context=tuple(context_sections),
        generator=draft.generator,
        prompt=draft.prompt,
        raw_output=draft.raw_output,
        checks=all_checks,
        attempts=draft.attempts,
        timings_ms=timings,
        tokens=dict(draft.tokens),
        index_id=engine.index.id,
    )
    result = Answer(
        question=question,
        refused=refused,
        answer=text,
        citations=citations,  # a refusal may point at the sections that discuss the question
        score=score,
        generator=draft.generator,
        latency_ms=timings["total"],
        retrieved=hits,
        refusal_reason=(draft.refusal_reason or "no_citations") if refused else "",
        tokens=dict(draft.tokens),
        resolved_question=reading.standalone,
    )
    return result, trace


@dataclass(frozen=True)
class Retrieved:
    """What `answer` finds before the generator: how the question was read (alone or with the
    conversation, `history`; sitecite.question), its vector and the hits, the admitted ones
    marked."""

    question: str
    history: tuple[Turn, ...]
    reading: Reading
    query_vector: np.ndarray
    hits: tuple[Hit, ...]
    timings: dict[str, float]

    @property
    def admitted(self) -> tuple[Hit, ...]:
        return tuple(hit for hit in self.hits if hit.admitted)

    @property
    def screen(self) -> Screen:
        return self.reading.screen

    @property
    def nearby(self) -> tuple[Hit, ...]:
        """The closest hits the gate left out, best first, that a pointed reply may name."""
        return tuple(hit for hit in self.hits if not hit.admitted)


def retrieve_for_answer(
    engine: Engine, question: str, k: int | None = None, history: Sequence[Turn] = ()
) -> Retrieved:
    """Read the question and retrieve once, as `answer` does: the gate, the owner's profile for
    a question about them, and sections whose own heading names a rare question word."""
    k = k or engine.settings.k
    asked = read(question, history, engine.index)
    reading = asked.resolution
    mark = time.perf_counter()
    query_vector = engine.embedder.embed_query(reading.search)
    timings = {"embed": _ms(mark)}

    mark = time.perf_counter()
    retrieval = search(
        engine.index,
        query_vector,
        reading.search,
        k * reading.depth,
        engine.threshold,
        engine.settings.retrieve,
    )
    hits = reading.focus(retrieval.hits, k)
    # a question about the owner gets the profile, if the gate found the question on topic
    # a question about the owner (who they are, what they do, where, how to reach them) is
    # about what the site is about, wherever its search lands: their profile answers it
    on_topic = any(hit.admitted for hit in hits) or bool(asked.owner and not reading.kind)
    if on_topic and asked.owner and not reading.kind:  # read alone: its answer text is `asked`
        hits = with_profile(engine.index, query_vector, hits, k)
    if on_topic:
        hits = with_named_sections(engine.index, reading.search, hits)
        hits = with_page_openings(hits)
    timings["retrieve"] = _ms(mark)
    return Retrieved(
        question=question,
        history=tuple(history),
        reading=asked,
        query_vector=query_vector,
        hits=tuple(hits),
        timings=timings,
    )


def generator_context(engine: Engine, found: Retrieved) -> tuple[Context, Check]:
    """The context the generator gets for admitted hits, and the quarantine's check."""
    reading = found.reading.resolution
    # a question that points back is answered by its own words, on the pages found with
    # the previous question's
    answer_vector = (
        found.query_vector
        if reading.answer == reading.search
        else engine.embedder.embed_query(reading.answer)
    )
    admitted = list(found.admitted)
    context, check = admitted_context(engine, reading.answer, answer_vector, admitted, found.screen)
    nearby, lines = nearby_sections(engine.index, found.nearby, answer_vector)
    context = replace(
        context,
        answer_kind=found.reading.kind,
        reading=found.reading,
        history=found.history,
        asked=found.question,
        followup=reading.kind,
        nearby=nearby,
        nearby_lines=lines,
    )
    return context, check


def nearby_sections(
    index: Index, hits: Sequence[Hit], vector: np.ndarray
) -> tuple[tuple[Section, ...], tuple[str, ...]]:
    """The sections of hits the gate left out, each with its quotable line nearest the
    question; a section holding a planted instruction is left out whole."""
    sections, lines = [], []
    for hit in hits:
        section, _, removed = quarantine_section(hit.section)
        span = index.sentence_rows(index.row_of[hit.section.id])
        if removed or not len(span):
            continue
        cosines = index.sentence_vectors[span.start : span.stop] @ vector
        quotable = [n for n, kind in enumerate(section.sentence_kinds) if kind in QUOTABLE]
        if not quotable:
            continue
        sections.append(section)
        lines.append(section.sentences[max(quotable, key=lambda n: float(cosines[n]))])
    return tuple(sections), tuple(lines)


PROFILE_HITS = 3  # of the pages that describe the owner, the sections closest to the question


def with_profile(
    index: Index, query_vector: np.ndarray, hits: Sequence[Hit], k: int
) -> tuple[Hit, ...]:
    """The hits of a question about the owner (sitecite.generate.owner), with the sections of
    the owner's profile admitted among them: "What is Tim's job?" shares no word with
    "occupation: Product Manager", so search alone may not find where the site says it. The
    profile is the profile facts and the pages that describe the owner (their home and about
    pages: generate.owner.about_sections), of which the PROFILE_HITS sections closest to the
    question are admitted. They take the places of the last hits the gate did not admit, so
    there are still `k`."""
    about = about_sections(index.sections, index.subject)
    closeness = {s.id: float(index.vectors[index.row_of[s.id]] @ query_vector) for s in about}
    best = sorted(about, key=lambda s: -closeness[s.id])[:PROFILE_HITS]
    profile = {section.id: section for section in best}
    found = [replace(hit, admitted=True) if hit.section.id in profile else hit for hit in hits]
    present = {hit.section.id for hit in found}
    for section in (s for s in profile.values() if s.id not in present):
        cosine = closeness[section.id]
        found.append(Hit(section, len(found) + 1, cosine, cosine, 0.0, True))
    for admitted in (False, True):  # what to give up first: the last hits the gate left out
        for i in reversed(range(len(found))):
            if (
                len(found) > k
                and found[i].admitted == admitted
                and found[i].section.id not in profile
            ):
                del found[i]
    return tuple(replace(hit, rank=rank) for rank, hit in enumerate(found, start=1))


def with_page_openings(hits: Sequence[Hit]) -> tuple[Hit, ...]:
    """The hits, with a page's opening section (the text before its first heading) admitted
    when the gate left it out but search ranked it above an admitted section of the same page:
    the page is on topic, and its opening, which says what the page is about in a few general
    sentences, often sits just under the threshold ("...add a init.defaultBranch setting ...
    in Git 2.28" at cosine 0.23 for "Which version of Git added the init.defaultBranch
    setting?", ranked second, above three admitted sections of the same post)."""
    lowest: dict[str, int] = {}
    for position, hit in enumerate(hits):
        if hit.admitted:
            lowest[hit.section.page_id] = position
    return tuple(
        replace(hit, admitted=True)
        if not hit.admitted
        and not hit.section.heading
        and position < lowest.get(hit.section.page_id, -1)
        else hit
        for position, hit in enumerate(hits)
    )


RARE_SHARE = 0.02  # a word in at most this share of the site's sections (or one) names a thing


def with_named_sections(index: Index, question: str, hits: Sequence[Hit]) -> tuple[Hit, ...]:
    """The hits, with those the gate left out admitted when their own heading names a rare
    word of the question (in one section, or at most RARE_SHARE of a large site's; the
    owner's names aside): "What does Jake run in his homelab?" is far from a list of
    hardware as a vector (cosine 0.13), but "Uses › Homelab" is named for what it asks.
    Only for a question the gate found on topic."""
    asked = {t for t in content_stems(question) if not index.is_subject(t)}
    limit = max(1.0, RARE_SHARE * index.site_sections)
    rare = {t for t in asked if index.term_frequency.get(t, 0) <= limit}
    if not rare:
        return tuple(hits)
    return tuple(
        replace(hit, admitted=True)
        if not hit.admitted and rare & content_stems(_own_heading(hit.section))
        else hit
        for hit in hits
    )


def _own_heading(section: Section) -> str:
    return "" if section.heading == section.title else section.heading


def admitted_context(
    engine: Engine, question: str, query_vector: np.ndarray, admitted: list[Hit], screen: Screen
) -> tuple[Context, Check]:
    """The generator's context: the admitted sections with planted instructions quarantined
    (sitecite.injection), for every generator alike, and the check that says what was removed."""
    rows = [engine.index.row_of[hit.section.id] for hit in admitted]
    quarantined = [quarantine_section(hit.section) for hit in admitted]
    sections = [section for section, _, _ in quarantined]
    removed = [(n, text) for n, (_, _, out) in enumerate(quarantined, start=1) for text in out]
    index = engine.index
    if removed:
        index = index.narrowed(rows, sections, [kept for _, kept, _ in quarantined])
        rows = list(range(len(sections)))
    check = Check(
        "source_instructions",
        not removed,
        "; ".join(f"[{n}] kept out of the context: '{text[:80]}'" for n, text in removed)
        if removed
        else "no source sentence reads as an instruction",
    )
    context = Context(
        question, query_vector, index, rows, sections, engine.embedder, screen.answer_kind
    )
    return context, check


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000.0
