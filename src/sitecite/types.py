"""Value objects that flow through the pipeline: Page -> Section -> Hit -> Answer + Trace.

They are frozen so a Trace can be handed to the evaluation harness and graded
without anyone being able to change what the generator actually saw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

SCORE_LABEL = "mean cosine similarity of the cited sections"


PROFILE_SUFFIX = " (profile)"  # the profile data page's title: "Noor Haddad (profile)"


class Outcome(StrEnum):
    """What a visitor got: a direct answer, a pointer to the closest sections, or a refusal."""

    ANSWERED = "answered"
    POINTED = "pointed"  # no direct answer; a refusal that cites the sections it points at
    REFUSED = "refused"


class RefusalReason(StrEnum):
    """Why an answer was not given (docs/answer.md); serialised as its string value."""

    NONE = ""
    INSTRUCTION = "instruction"  # the question carried instructions
    TOO_LONG = "question_too_long"  # over the question-length limit
    BELOW_THRESHOLD = "below_threshold"  # nothing cleared the gate
    UNKNOWN_ENTITY = "unknown_entity"  # a name the question asks about is not on the site
    ANSWER_KIND = "answer_kind"  # no admitted sentence holds the kind of thing asked for
    LOW_SUPPORT = "low_support"
    UNANSWERABLE = "unanswerable"
    ONLY_PLANNED = "only_planned"  # the site only says the thing is planned
    NO_DIRECT_ANSWER = "no_direct_answer"  # pointed: on topic, but no confident answer
    NOT_ON_SITE = "not_on_site"  # the LLM said the sources don't cover it
    UNVERIFIED = "unverified"  # no sentence of the LLM's answer verified
    FALLBACK_REFUSED = "fallback_refused"
    NO_CITATIONS = "no_citations"


@dataclass(frozen=True, slots=True)
class Block:
    """A heading-delimited span of a page: level 0 is the text before the first heading.

    `anchor` is the id the published page gives the heading when it is not the GitHub-style
    slug of its text (an explicit `{#id}`, an HTML `id`, another generator's rule)."""

    level: int
    heading: str
    text: str
    line: int
    anchor: str = ""
    kinds: tuple[str, ...] = ()  # the structural kind of each non-empty line (ingest/kinds.py)


@dataclass(frozen=True, slots=True)
class Page:
    """One content file after parsing, before chunking."""

    id: str
    source: str
    title: str
    url: str
    blocks: tuple[Block, ...]
    kind: str = "page"
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Section:
    """The unit that is embedded, retrieved and cited."""

    id: str
    page_id: str
    title: str
    heading: str
    url: str
    text: str
    hash: str
    sentences: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    kinds: tuple[str, ...] = ()  # one per sentence: prose, item, heading, link, ... (ingest/kinds)

    @property
    def sentence_kinds(self) -> tuple[str, ...]:
        """The kind of each sentence; sections built without kinds are all prose."""
        if len(self.kinds) == len(self.sentences):
            return self.kinds
        return ("prose",) * len(self.sentences)

    @property
    def embed_text(self) -> str:
        """What the embedder and BM25 see: the page title and heading give the text its context."""
        label = self.title if self.heading in ("", self.title) else f"{self.title}: {self.heading}"
        return f"{label}\n{self.text}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "page_id": self.page_id,
            "title": self.title,
            "heading": self.heading,
            "url": self.url,
            "text": self.text,
            "hash": self.hash,
            "sentences": list(self.sentences),
            "kinds": list(self.kinds),
            "metadata": self.metadata,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Section:
        return cls(
            id=data["id"],
            page_id=data["page_id"],
            title=data["title"],
            heading=data["heading"],
            url=data["url"],
            text=data["text"],
            hash=data["hash"],
            sentences=tuple(data.get("sentences", ())),
            metadata=dict(data.get("metadata", {})),
            kinds=tuple(data.get("kinds", ())),
        )


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved section with its scores; `admitted` says whether it passed the gate."""

    section: Section
    rank: int
    score: float
    cosine: float
    bm25: float
    admitted: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.section.id,
            "score": round(self.cosine, 4),
            "rank": self.rank,
            "admitted": self.admitted,
            "fused": round(self.score, 4),
            "bm25": round(self.bm25, 4),
        }


@dataclass(frozen=True, slots=True)
class Citation:
    """A numbered reference from the answer text (`[n]`) to a section."""

    n: int
    id: str
    title: str
    heading: str
    url: str
    score: float
    quotes: tuple[str, ...] = ()  # the words of the section the cited claim rests on

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "id": self.id,
            "title": self.title,
            "heading": self.heading,
            "url": self.url,
            "score": round(self.score, 4),
            "quotes": list(self.quotes),
        }


@dataclass(frozen=True, slots=True)
class Turn:
    """An earlier question of the same conversation, what it was answered, and what it cited."""

    question: str
    answer: str = ""
    cited: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Check:
    """One named verification or gating step and its outcome."""

    name: str
    passed: bool
    detail: str = ""
    data: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"passed": self.passed, "detail": self.detail}
        if self.data:
            out["data"] = self.data
        return out


@dataclass(frozen=True, slots=True)
class Draft:
    """What a generator produced, before the pipeline turns it into an Answer."""

    text: str
    cited: tuple[int, ...]
    refused: bool
    generator: str
    refusal_reason: str = ""  # a RefusalReason
    prompt: str = ""
    raw_output: str = ""
    checks: tuple[Check, ...] = ()
    attempts: tuple[dict[str, Any], ...] = ()
    tokens: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    quotes: tuple[tuple[str, ...], ...] = ()  # per entry of `cited`, the words it rests on


@dataclass(frozen=True, slots=True)
class Trace:
    """Everything that happened while answering one question, exactly once.

    The evaluation harness grades this object; it never retrieves again.
    """

    question: str
    hits: tuple[Hit, ...]
    threshold: float
    context: tuple[Section, ...]
    generator: str
    prompt: str = ""
    raw_output: str = ""
    checks: tuple[Check, ...] = ()
    attempts: tuple[dict[str, Any], ...] = ()
    timings_ms: dict[str, float] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    index_id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "index_id": self.index_id,
            "threshold": self.threshold,
            "hits": [h.to_json() for h in self.hits],
            "context_ids": [s.id for s in self.context],
            "generator": self.generator,
            "prompt": self.prompt,
            "raw_output": self.raw_output,
            "checks": {c.name: c.to_json() for c in self.checks},
            "attempts": list(self.attempts),
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
            "tokens": dict(self.tokens),
        }


@dataclass(frozen=True, slots=True)
class Answer:
    """What a visitor sees: an answer with citations, or a refusal."""

    question: str
    refused: bool
    answer: str
    citations: tuple[Citation, ...]
    score: float
    generator: str
    latency_ms: float
    retrieved: tuple[Hit, ...]
    refusal_reason: str = ""
    tokens: dict[str, int] = field(default_factory=dict)
    score_label: str = SCORE_LABEL
    resolved_question: str = ""  # a follow-up read with the previous question; "" otherwise

    @property
    def outcome(self) -> Outcome:
        """Answered, pointed (no direct answer; the closest sections cited) or refused."""
        if not self.refused:
            return Outcome.ANSWERED
        # a refusal that cites sections points the visitor at them: no direct answer, the
        # closest sections (or, for `only_planned`, the plan the site does state)
        return Outcome.POINTED if self.citations else Outcome.REFUSED

    def to_json(self) -> dict[str, Any]:
        resolved = {"resolved_question": self.resolved_question} if self.resolved_question else {}
        return {
            "question": self.question,
            **resolved,
            "outcome": str(self.outcome),
            "refused": self.refused,
            "answer": self.answer,
            "citations": [c.to_json() for c in self.citations],
            "score": round(self.score, 4),
            "score_label": self.score_label,
            "generator": self.generator,
            "latency_ms": round(self.latency_ms, 3),
            "retrieved": [h.to_json() for h in self.retrieved],
            "refusal_reason": self.refusal_reason,
            "tokens": dict(self.tokens),
        }

    def to_text(self, markdown: bool = False) -> str:
        """The answer as a person reads it in a terminal: the text with its Markdown rendered
        (or kept, with `markdown`), the numbered sources with the words each rests on when the
        text does not already hold them, and the score. A pointed reply says it found no direct
        answer and lists its closest sections, each with its line."""
        from sitecite.markup import plain, pointer_lead, quote_line, to_text

        pointed = self.outcome == Outcome.POINTED
        text = pointer_lead(self.answer) if pointed else self.answer
        shown = text if markdown else to_text(text)
        if not self.citations:
            return shown
        lines = [shown, "", "Closest sections:"] if pointed else [shown, ""]
        said = plain(text)
        for citation in self.citations:
            where = f"{citation.title} › {citation.heading}" if citation.heading else citation.title
            if markdown:
                lines.append(f"{citation.n}. [{where}]({citation.url})")
            else:
                lines.append(f"[{citation.n}] {where} — {citation.url}")
            for quote in citation.quotes:
                line = quote_line(quote)
                if line not in said:
                    lines.append(f"    > {line}" if markdown else f"    \u201c{line}\u201d")
        if self.outcome == Outcome.ANSWERED:
            lines.append(f"({self.score_label}: {self.score:.2f})")
        return "\n".join(lines)
