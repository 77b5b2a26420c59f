"""Content gaps: what visitors asked that the site could not answer, grouped into topics.

The question log (sitecite.owner) is read for a period; refused questions (except those
refused for carrying instructions: attacks are not gaps) and answers that got a thumbs down
are embedded with the index's embedder (each distinct question once, the vectors kept in the
log) and grouped greedily: most-asked first, each joining the group whose centroid is
closest if the cosine clears `GROUP_THRESHOLD`, else starting its own. Each group names the
section closest to it and a suggestion for the page that would answer it.

`GapsReport.to_question_set()` turns the unanswered questions into a question set that
`sitecite eval` loads (category `abstention` until the owner edits it), so live traffic
becomes evaluation.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from sitecite.config import RetrieveSettings
from sitecite.embed import Embedder
from sitecite.errors import InputError
from sitecite.index.store import Index
from sitecite.owner.asklog import LoggedAsk, QuestionLog
from sitecite.retrieve import search
from sitecite.tokens import STOPWORDS, words
from sitecite.types import Hit

# The best F1 on the dev question sets (bench/gaps.py; README "Content gaps").
GROUP_THRESHOLD = 0.45
EXAMPLES = 3
RECENT = 20
NOT_GAPS = frozenset(["instruction"])  # refused for carrying instructions: an attack, not a gap
_FRAMING = frozenset(
    "what which who whom whose when where why how does did do is are was were can could would "
    "should will has have had tell know about any much many ever".split()
)


@dataclass(frozen=True)
class GapGroup:
    """Questions about one missing topic, the section closest to them, and what to add."""

    size: int  # times asked (or thumbed down), repeats included
    questions: tuple[str, ...]  # distinct questions, most asked first
    refused: int
    thumbs_down: int
    closest_id: str
    closest_title: str
    closest_url: str
    closest_score: float
    topic: str

    @property
    def examples(self) -> tuple[str, ...]:
        return self.questions[:EXAMPLES]

    @property
    def suggestion(self) -> str:
        return f"Add a page about {self.topic}" if self.topic else "Add a page that answers this"

    def to_json(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "examples": list(self.examples),
            "questions": list(self.questions),
            "refused": self.refused,
            "thumbs_down": self.thumbs_down,
            "closest_section": {
                "id": self.closest_id,
                "title": self.closest_title,
                "url": self.closest_url,
                "score": round(self.closest_score, 4),
            },
            "suggestion": self.suggestion,
        }


@dataclass(frozen=True)
class DayCount:
    day: str
    asked: int
    answered: int
    refused: int
    pointed: int = 0  # no direct answer: the closest sections were given

    @property
    def answer_rate(self) -> float:
        return self.answered / self.asked if self.asked else 0.0


@dataclass(frozen=True)
class GapsReport:
    """Traffic, outcomes, feedback and content gaps for a period of the question log."""

    since: datetime
    until: datetime
    asked: int
    answered: int
    refused: int
    days: tuple[DayCount, ...]
    groups: tuple[GapGroup, ...]
    top_cited: tuple[tuple[str, int], ...]  # (page id, answers citing it)
    feedback: dict[str, int]  # "up", "down", and "down:<reason>"
    recent_feedback: tuple[LoggedAsk, ...]
    recent: tuple[LoggedAsk, ...] = ()  # the latest questions, newest first
    pointed: int = 0  # no direct answer: the closest sections were given
    visitors: int | None = None  # distinct daily visitor hashes, summed over days
    followups: int = 0
    tokens: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "since": self.since.isoformat(timespec="seconds"),
            "until": self.until.isoformat(timespec="seconds"),
            "asked": self.asked,
            "answered": self.answered,
            "pointed": self.pointed,
            "refused": self.refused,
            "followups": self.followups,
            "visitors": self.visitors,
            "tokens": self.tokens,
            "days": [
                {
                    "day": d.day,
                    "asked": d.asked,
                    "answered": d.answered,
                    "pointed": d.pointed,
                    "refused": d.refused,
                }
                for d in self.days
            ],
            "gaps": [group.to_json() for group in self.groups],
            "top_cited": [{"page_id": page, "answers": n} for page, n in self.top_cited],
            "feedback": dict(self.feedback),
            "recent": [
                {
                    "at": a.at,
                    "question": a.question,
                    "resolved": a.resolved,
                    "outcome": a.outcome,
                    "reason": a.reason,
                    "cited": list(a.cited),
                    "rating": a.rating,
                }
                for a in self.recent
            ],
            "recent_feedback": [
                {
                    "at": a.at,
                    "question": a.question,
                    "outcome": a.outcome,
                    "rating": a.rating,
                    "reason": a.feedback_reason or "",
                    "text": a.feedback_text or "",
                }
                for a in self.recent_feedback
            ],
        }

    def to_question_set(self, name: str = "") -> dict[str, Any]:
        """The unanswered questions as a question set for `sitecite eval`."""
        questions = []
        for number, group in enumerate(self.groups, start=1):
            for position, question in enumerate(group.questions, start=1):
                questions.append(
                    {
                        "id": f"gap-{number:03d}-{position:02d}",
                        "question": question,
                        "category": "abstention",
                        "notes": f"from the question log ({self.since:%Y-%m-%d} to "
                        f"{self.until:%Y-%m-%d}), group {number}: {group.suggestion.lower()}; "
                        "change the category and add expected_sources once the site answers it",
                    }
                )
        return {
            "name": name or f"content gaps {self.since:%Y-%m-%d} to {self.until:%Y-%m-%d}",
            "description": "Questions visitors asked that the site could not answer (refused, "
            "or answered and given a thumbs down), exported by `sitecite gaps --export`.",
            "questions": questions,
        }


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """'30d', '12h', '2w' before now, or a date ('2026-01-31'); a clear error otherwise."""
    now = now or datetime.now(UTC)
    match = re.fullmatch(r"\s*(\d+)\s*([hdw])\s*", text.lower())
    if match:
        amount, unit = int(match.group(1)), match.group(2)
        hours = {"h": 1, "d": 24, "w": 24 * 7}[unit] * amount
        return now - timedelta(hours=hours)
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError as error:
        raise InputError(
            f"--since '{text}' is neither a period (30d, 12h, 2w) nor a date (2026-01-31)"
        ) from error
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def gaps_report(
    asks: Sequence[LoggedAsk],
    index: Index,
    embedder: Embedder,
    since: datetime,
    until: datetime | None = None,
    store: QuestionLog | None = None,
) -> GapsReport:
    """The report for these logged answers; `store` caches question embeddings."""
    until = until or datetime.now(UTC)
    answered = [a for a in asks if a.outcome == "answered"]
    missing = [
        a
        for a in asks
        if (a.outcome in ("refused", "pointed") and a.reason not in NOT_GAPS) or a.rating == "down"
    ]
    cited = Counter(
        page for a in answered for page in dict.fromkeys(c.split("#", 1)[0] for c in a.cited)
    )
    feedback = Counter(a.rating for a in asks if a.rating)
    feedback.update(f"down:{a.feedback_reason}" for a in asks if a.rating == "down")
    visitors = _visitors(asks)
    return GapsReport(
        since=since,
        until=until,
        asked=len(asks),
        answered=len(answered),
        refused=sum(a.outcome not in ("answered", "pointed") for a in asks),
        pointed=sum(a.outcome == "pointed" for a in asks),
        days=_days(asks),
        groups=tuple(group_gaps(missing, index, embedder, store)),
        top_cited=tuple(cited.most_common(10)),
        feedback=dict(feedback),
        recent_feedback=tuple(a for a in reversed(asks) if a.rating)[:RECENT],
        recent=tuple(reversed(asks[-RECENT:])),
        visitors=visitors,
        followups=sum(bool(a.resolved) for a in asks),
        tokens={
            "prompt": sum(a.tokens.get("prompt", 0) for a in asks),
            "output": sum(a.tokens.get("output", 0) for a in asks),
        },
    )


def group_gaps(
    asks: Sequence[LoggedAsk],
    index: Index,
    embedder: Embedder,
    store: QuestionLog | None = None,
    threshold: float = GROUP_THRESHOLD,
) -> list[GapGroup]:
    """Unanswered questions grouped into topics, largest group first."""
    by_text: dict[str, list[LoggedAsk]] = {}
    for ask in asks:
        by_text.setdefault(" ".join(ask.topic.split()), []).append(ask)
    if not by_text:
        return []
    texts = sorted(by_text, key=lambda t: (-len(by_text[t]), t))
    vectors = embed_questions(texts, embedder, store)
    groups = []
    for members in cluster(vectors, threshold):
        member_texts = [texts[i] for i in members]
        rows = [row for text in member_texts for row in by_text[text]]
        centroid = _unit(vectors[members].mean(axis=0))
        closest = _closest(index, centroid, member_texts[0])
        groups.append(
            GapGroup(
                size=len(rows),
                questions=tuple(member_texts),
                refused=sum(r.outcome == "refused" for r in rows),
                thumbs_down=sum(r.rating == "down" for r in rows),
                closest_id=closest.section.id if closest else "",
                closest_title=closest.section.title if closest else "",
                closest_url=closest.section.url if closest else "",
                closest_score=closest.cosine if closest else 0.0,
                topic=topic_words(member_texts, index),
            )
        )
    return sorted(groups, key=lambda g: (-g.size, g.questions[0]))


def embed_questions(
    texts: Sequence[str], embedder: Embedder, store: QuestionLog | None = None
) -> np.ndarray:
    """Unit vectors of the questions, from the log's cache where it has them."""
    known = store.vectors(embedder.id, texts) if store is not None else {}
    fresh = [t for t in texts if t not in known]
    if fresh:
        embedded = np.asarray(embedder.embed(fresh), dtype=np.float32)
        new = dict(zip(fresh, embedded, strict=True))
        if store is not None:
            store.store_vectors(embedder.id, new)
        known = {**known, **new}
    return np.vstack([_unit(known[t]) for t in texts]).astype(np.float32)


def cluster(vectors: np.ndarray, threshold: float) -> list[list[int]]:
    """Greedy leader clustering in the given order: each vector joins the group whose centroid
    is most similar if that cosine is at least `threshold`, else starts a group."""
    groups: list[list[int]] = []
    sums: list[np.ndarray] = []
    for i, vector in enumerate(vectors):
        if sums:
            centroids = np.vstack([_unit(s) for s in sums])
            similarity = centroids @ vector
            best = int(np.argmax(similarity))
            if similarity[best] >= threshold:
                groups[best].append(i)
                sums[best] = sums[best] + vector
                continue
        groups.append([i])
        sums.append(vector.astype(np.float64))
    return groups


def topic_words(questions: Sequence[str], index: Index | None = None) -> str:
    """The words a group's questions share most, as a short phrase ("university, degree"):
    the most frequent first and, among equals, words the site never uses (what is missing)."""
    subject = index.subject_words if index is not None else frozenset()
    site = index.word_set if index is not None else frozenset()
    counts: Counter[str] = Counter()
    for question in questions:
        counts.update(
            {
                w
                for w in words(question)
                if w.isalpha()
                and len(w) > 2
                and w not in STOPWORDS
                and w not in _FRAMING
                and w not in subject
            }
        )
    ranked = sorted(counts, key=lambda w: (-counts[w], w in site))
    top = [w for w in ranked if counts[w] >= max(1, len(questions) // 3)]
    return ", ".join(top[:3])


def _closest(index: Index, centroid: np.ndarray, text: str) -> Hit | None:
    """The section retrieval ranks first for a group (its centroid, its most asked words)."""
    if not index.sections:
        return None
    hits = search(index, centroid, text, 1, 1.0, RetrieveSettings()).hits
    return hits[0] if hits else None


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def _days(asks: Sequence[LoggedAsk]) -> tuple[DayCount, ...]:
    per_day: dict[str, list[int]] = {}
    order = {"answered": 0, "pointed": 1}  # anything else was refused
    for ask in asks:
        counts = per_day.setdefault(ask.at[:10], [0, 0, 0])
        counts[order.get(ask.outcome, 2)] += 1
    return tuple(DayCount(day, a + p + r, a, r, p) for day, (a, p, r) in sorted(per_day.items()))


def _visitors(asks: Sequence[LoggedAsk]) -> int | None:
    hashed = {(a.at[:10], a.visitor) for a in asks if a.visitor}
    return len(hashed) if hashed else None
