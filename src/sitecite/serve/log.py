"""Writing the question log off the answer path.

A request only appends a tuple to a deque (no parsing, no I/O, no lock); one writer thread
wakes every `interval` seconds, turns what piled up into rows (reading each distinct answer
body once: a cached answer is the same bytes object every time) and writes them in one
transaction. A full backlog drops rows and counts them; a failing disk logs an error and
drops that batch. Nothing here can slow down, block or fail an answer.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sitecite.asklog import AskRecord, Feedback, QuestionLog, QuestionLogError, redact

log = logging.getLogger("sitecite.serve")

RETENTION_EVERY_SECONDS = 3600.0


@dataclass(frozen=True)
class Outcome:
    """What the log keeps from an answer body (everything but the question and the id)."""

    outcome: str
    reason: str
    best_score: float | None
    cited: tuple[str, ...]
    generator: str
    prompt_tokens: int
    output_tokens: int
    resolved: str


def outcome_of(body: bytes) -> Outcome:
    """The loggable facts of an answer JSON body."""
    data: dict[str, Any] = json.loads(body)
    scores = [hit.get("score") for hit in data.get("retrieved") or []]
    known = [float(s) for s in scores if isinstance(s, int | float)]
    tokens = data.get("tokens") or {}
    refused = bool(data.get("refused"))
    return Outcome(
        outcome="refused" if refused else "answered",
        reason=str(data.get("refusal_reason") or "") if refused else "",
        best_score=max(known) if known else None,
        cited=tuple(str(c.get("id", "")) for c in data.get("citations") or []),
        generator=str(data.get("generator") or ""),
        prompt_tokens=int(tokens.get("prompt") or 0),
        output_tokens=int(tokens.get("output") or 0),
        resolved=str(data.get("resolved_question") or ""),
    )


class LogWriter:
    """The server's one writer of the question log (`record_*` are safe from any thread)."""

    def __init__(
        self,
        path: Path,
        keep_days: int,
        interval: float = 0.25,
        max_backlog: int = 200_000,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.path = path
        self.keep = timedelta(days=keep_days)
        self.interval = interval
        self.max_backlog = max_backlog
        self.clock = clock
        self.dropped = 0
        self.written = 0
        self._pending: deque[tuple[Any, ...]] = deque()
        self._outcomes: dict[bytes, Outcome] = {}
        self._wake = threading.Event()
        self._done = threading.Condition()
        self._flushed_to = 0
        self._queued = 0
        self._stopping = False
        self._next_retention = 0.0
        QuestionLog(path).close()  # fail at start-up, not at the first question, on a bad path
        self._thread = threading.Thread(target=self._run, name="sitecite-log", daemon=True)
        self._thread.start()

    def record_ask(
        self, answer_id: str, question: str, body: bytes, cache: str, latency_ms: float,
        visitor: str | None = None,
    ) -> None:  # fmt: skip
        """Queue one served answer; `body` is its JSON as it was cached (without the id)."""
        self._append(("ask", answer_id, time.time(), question, body, cache, latency_ms, visitor))

    def record_feedback(self, feedback: Feedback) -> None:
        self._append(("feedback", feedback))

    def _append(self, item: tuple[Any, ...]) -> None:
        if len(self._pending) >= self.max_backlog:
            self.dropped += 1
            return
        self._pending.append(item)
        self._queued += 1

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued before this call is written (tests, the lab page)."""
        target = self._queued
        self._wake.set()
        with self._done:
            return self._done.wait_for(lambda: self._flushed_to >= target, timeout)

    def close(self) -> None:
        self._stopping = True
        self._wake.set()
        self._thread.join(10)

    def _run(self) -> None:
        store: QuestionLog | None = None
        while True:
            self._wake.wait(self.interval)
            self._wake.clear()
            try:
                store = store or QuestionLog(self.path)
                self._write(store)
                self._retain(store)
            except (QuestionLogError, OSError, ValueError, Exception) as error:  # noqa: BLE001
                log.error("the question log could not be written: %s", error)
                if store is not None:
                    store.close()
                    store = None
            if self._stopping and not self._pending:
                if store is not None:
                    store.close()
                return

    def _write(self, store: QuestionLog) -> None:
        taken = 0
        asks: list[AskRecord] = []
        feedback: list[Feedback] = []
        try:
            while self._pending:
                item = self._pending.popleft()
                taken += 1
                if item[0] == "ask":
                    asks.append(self._record(*item[1:]))
                else:
                    feedback.append(item[1])
            if asks or feedback:
                store.add(asks, feedback)
                self.written += len(asks)
        finally:
            with self._done:
                self._flushed_to += taken
                self._done.notify_all()

    def _record(
        self, answer_id: str, at: float, question: str, body: bytes, cache: str,
        latency_ms: float, visitor: str | None,
    ) -> AskRecord:  # fmt: skip
        outcome = self._outcomes.get(body)
        if outcome is None:
            if len(self._outcomes) > 4096:
                self._outcomes.clear()
            outcome = self._outcomes[body] = outcome_of(body)
        return AskRecord(
            id=answer_id,
            at=datetime.fromtimestamp(at, UTC),
            question=redact(question),
            resolved=redact(outcome.resolved) if outcome.resolved else "",
            outcome=outcome.outcome,
            reason=outcome.reason,
            best_score=outcome.best_score,
            cited=outcome.cited,
            generator=outcome.generator,
            latency_ms=latency_ms,
            # a cached answer cost no tokens, whatever the first one cost
            prompt_tokens=outcome.prompt_tokens if cache == "miss" else 0,
            output_tokens=outcome.output_tokens if cache == "miss" else 0,
            cache=cache,
            visitor=visitor,
        )

    def _retain(self, store: QuestionLog) -> None:
        if time.monotonic() < self._next_retention:
            return
        self._next_retention = time.monotonic() + RETENTION_EVERY_SECONDS
        deleted = store.delete_before(self.clock() - self.keep)
        if deleted:
            log.info("question log: deleted %d answers older than %s", deleted, self.keep)
