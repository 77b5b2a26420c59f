"""Writing the question log off the answer path, and the ids of the answers it records.

A request only appends a tuple to a deque (no parsing, no I/O, no lock); one writer thread
wakes every `interval` seconds (or at once for a flush), turns what piled up into rows and
writes them in one transaction. Each distinct (question, answer body, cache status) is read,
redacted and stored once as an outcome (a cached answer is the same bytes object every time),
so a served answer costs a narrow row; the visitor hash is computed here, from the address
queued with the answer. A full backlog drops rows and counts them; a failing disk logs an
error (once a minute) and drops that batch. Nothing here can slow down, block or fail an
answer.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sitecite.owner.asklog import Feedback, Outcome, QuestionLog, answer_number
from sitecite.owner.privacy import VisitorHasher, redact

log = logging.getLogger("sitecite.serve")

RETENTION_EVERY_SECONDS = 3600.0


def outcome_of(question: str, body: bytes, cache: str) -> Outcome:
    """What the log keeps of an answer: its JSON body read, the question redacted."""
    data: dict[str, Any] = json.loads(body)
    scores = [hit.get("score") for hit in data.get("retrieved") or []]
    known = [float(s) for s in scores if isinstance(s, int | float)]
    tokens = (data.get("tokens") or {}) if cache == "miss" else {}  # a cached answer cost none
    refused = bool(data.get("refused"))
    resolved = str(data.get("resolved_question") or "")
    return Outcome(
        question=redact(question),
        outcome=str(data.get("outcome") or ("refused" if refused else "answered")),
        reason=str(data.get("refusal_reason") or "") if refused else "",
        best_score=max(known) if known else None,
        cited=tuple(str(c.get("id", "")) for c in data.get("citations") or []),
        generator=str(data.get("generator") or ""),
        prompt_tokens=int(tokens.get("prompt") or 0),
        output_tokens=int(tokens.get("output") or 0),
        cache=cache,
        resolved=redact(resolved) if resolved else "",
    )


class _Memo(dict[Any, Any]):
    """A dict that forgets everything when it grows past `size` (cheaper than an LRU)."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def remember(self, key: Any, value: Any) -> Any:
        if len(self) >= self.size:
            self.clear()
        self[key] = value
        return value


class LogWriter:
    """The server's one writer of the question log (`record_*` are safe from any thread)."""

    def __init__(
        self,
        path: Path,
        keep_days: int,
        visitors: VisitorHasher | None = None,
        interval: float = 1.0,
        max_backlog: int = 200_000,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.path = path
        self.keep = timedelta(days=keep_days)
        self.visitors = visitors  # hashes the client addresses queued with the answers
        self.interval = interval
        self.max_backlog = max_backlog
        self.clock = clock
        self.dropped = 0
        self.written = 0
        self._pending: deque[tuple[Any, ...]] = deque()
        # A cached answer is the same bytes object every time, and visitors repeat questions:
        # each distinct body is parsed once and each distinct question redacted once.
        self._outcomes = _Memo(16384)
        self._wake = threading.Event()
        self._done = threading.Condition()
        self._flushed_to = 0
        self._queued = 0
        self._stopping = False
        self._next_retention = 0.0
        self._quiet_until = 0.0
        QuestionLog(path).close()  # fail at start-up, not at the first question, on a bad path
        self._thread = threading.Thread(target=self._run, name="sitecite-log", daemon=True)
        self._thread.start()

    def record_ask(
        self, answer_id: str, question: str, body: bytes, cache: str, latency_ms: float,
        client: str | None = None,
    ) -> None:  # fmt: skip
        """Queue one served answer; `body` is its JSON as it was cached (without the id).
        `client`, the address, stays in memory: the writer turns it into the visitor hash."""
        self._append(("ask", answer_id, time.time(), question, body, cache, latency_ms, client))

    @property
    def queued(self) -> int:
        """How many answers and feedbacks were queued since the server started."""
        return self._queued

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
            except Exception as error:  # noqa: BLE001 - the writer must outlive a bad disk
                if time.monotonic() >= self._quiet_until:  # once a minute, not every batch
                    log.error("the question log could not be written: %s", error)
                    self._quiet_until = time.monotonic() + 60.0
                self._outcomes.clear()  # their keys may not be in the next file opened
                if store is not None:
                    store.close()
                    store = None
            if self._stopping and not self._pending:
                if store is not None:
                    store.close()
                return

    def _write(self, store: QuestionLog) -> None:
        taken = 0
        rows: list[tuple[Any, ...]] = []
        feedback: list[Feedback] = []
        try:
            while self._pending:
                item = self._pending.popleft()
                taken += 1
                if item[0] == "ask":
                    rows.append(self._row(store, *item[1:]))
                else:
                    feedback.append(item[1])
            if rows or feedback:
                store.add_asks(rows, feedback)
                self.written += len(rows)
        finally:
            with self._done:
                self._flushed_to += taken
                self._done.notify_all()

    def _row(
        self, store: QuestionLog, answer_id: str, at: float, question: str, body: bytes,
        cache: str, latency_ms: float, client: str | None,
    ) -> tuple[Any, ...]:  # fmt: skip
        """One answer's row: its id, time, outcome key (each distinct question, answer body
        and cache status is stored once), latency and visitor hash."""
        key = (question, body, cache)
        outcome = self._outcomes.get(key)
        if outcome is None:
            outcome = self._outcomes.remember(
                key, store.add_outcome(outcome_of(question, body, cache))
            )
        visitor = None
        if client is not None and self.visitors is not None:
            visitor = self.visitors.hash(client)
        return (answer_number(answer_id), at, outcome, latency_ms, visitor)

    def _retain(self, store: QuestionLog) -> None:
        if time.monotonic() < self._next_retention:
            return
        self._next_retention = time.monotonic() + RETENTION_EVERY_SECONDS
        deleted = store.delete_before(self.clock() - self.keep)
        self._outcomes.clear()  # an outcome no answer uses any more may be gone after a day
        if deleted:
            log.info("question log: deleted %d answers older than %s", deleted, self.keep)


class AnswerIds:
    """Answer ids: 16 hex digits of a 63-bit number, the millisecond it was issued, 10 random
    bits fixed per process (so replicas sharing a log rarely meet) and a 10-bit counter.
    Ordered in time, unique within a process, and cheap: no system call per answer."""

    def __init__(self) -> None:
        self._process = secrets.randbits(10) << 10
        self._last = 0

    def next(self) -> str:
        number = max((int(time.time() * 1000) << 20) | self._process, self._last + 1)
        self._last = number
        return f"{number:016x}"
