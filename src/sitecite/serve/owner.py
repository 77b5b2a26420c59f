"""The owner's loop as the server runs it: answer ids, the question log's writer, feedback,
starter questions, the lab's visitors section, the origin allowlist and the LLM budget, in one
place that the routes reach through `ServerState.owner`. What is not about HTTP or the event
loop lives in `sitecite.owner`.

Every served answer gets an `id` (spliced into the cached JSON bytes, so a cached answer
costs no JSON work) and a row in the question log, queued for the writer thread. The answer
path only ever appends to a queue.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request

from sitecite.config import Settings
from sitecite.owner import Feedback, QuestionLog, VisitorHasher, log_path
from sitecite.owner.writer import AnswerIds, LogWriter
from sitecite.serve.budget import LLMBudget
from sitecite.serve.origins import OriginCheck
from sitecite.serve.starters import make_starters

if TYPE_CHECKING:
    from sitecite.pipeline import Engine

log = logging.getLogger("sitecite.serve")

TRAFFIC_EVERY_SECONDS = 30.0  # the lab's visitors section is recomputed at most this often
LAB_PERIOD = timedelta(days=30)


@dataclass
class OwnerLoop:
    settings: Settings
    log_file: Path | None
    log: LogWriter | None
    origins: OriginCheck
    budget: LLMBudget
    _ids: AnswerIds = field(default_factory=lambda: AnswerIds())
    _starters: dict[str, list[str]] = field(default_factory=dict)
    _traffic: tuple[float, str, Any] = (0.0, "", None)

    @classmethod
    def create(cls, index_dir: Path, settings: Settings) -> OwnerLoop:
        serve = settings.serve
        path = log_path(serve.log, index_dir)
        writer = (
            LogWriter(path, serve.log_days, VisitorHasher() if serve.log_visitors else None)
            if path is not None
            else None
        )
        budget = LLMBudget(serve.daily_llm_budget)
        if path is not None and budget.enabled:
            _seed_budget(budget, path)
        return cls(
            settings,
            path,
            writer,
            OriginCheck(serve.allowed_origins),
            budget,
        )

    def close(self) -> None:
        if self.log is not None:
            self.log.close()

    def issue(self, body: bytes) -> tuple[str, bytes]:
        """A new answer id and the answer JSON carrying it as its first field."""
        answer_id = self._ids.next()
        return answer_id, b'{"id":"' + answer_id.encode() + b'",' + body[1:]

    def record(
        self,
        request: Request,
        answer_id: str,
        question: str,
        body: bytes,
        cache: str,
        started: float,
    ) -> None:
        """Queue the question log's row for one answer. The client's address goes along only
        when visitors are counted, and only as far as the writer, which hashes it; the log
        never holds the address or the user agent."""
        if self.log is None:
            return
        client = request.scope.get("sitecite.client") if self.log.visitors else None
        latency = (time.perf_counter() - started) * 1000.0
        self.log.record_ask(answer_id, question, body, cache, latency, client)

    async def knows(self, answer_id: str) -> bool:
        """Whether `answer_id` is an answer this server gave and logged (feedback is rare: the
        log is asked, after everything queued is written, rather than kept in memory)."""
        if self.log is None or self.log_file is None:
            return False
        return await asyncio.get_running_loop().run_in_executor(None, self._logged, answer_id)

    def _logged(self, answer_id: str) -> bool:
        if self.log is None or self.log_file is None:
            return False
        self.log.flush(5.0)
        with QuestionLog(self.log_file) as store:
            return store.has_answer(answer_id)

    def add_feedback(self, feedback: Feedback) -> None:
        if self.log is not None:
            self.log.record_feedback(feedback)

    async def starters(self, generation_key: str, engine: Engine) -> list[str]:
        """Starter questions for this index (made once per index generation)."""
        if generation_key not in self._starters:
            configured = self.settings.serve.starter_questions
            loop = asyncio.get_running_loop()
            made = await loop.run_in_executor(None, make_starters, engine, configured)
            self._starters = {generation_key: made}
        return self._starters[generation_key]

    async def traffic(self, engine: Engine) -> Any:
        """The visitors' report for the lab (the last 30 days), recomputed every 30 s at most;
        None without a log."""
        if self.log is None or self.log_file is None:
            return None
        stamp, key, report = self._traffic
        fresh = time.monotonic() - stamp < TRAFFIC_EVERY_SECONDS
        if report is not None and not report.asked and self.log.queued:
            fresh = False  # the first questions show at once, not 30 s later
        if report is not None and key == engine.index.id and fresh:
            return report
        loop = asyncio.get_running_loop()
        report = await loop.run_in_executor(None, self._report, engine)
        self._traffic = (time.monotonic(), engine.index.id, report)
        return report

    def refresh_traffic(self) -> None:
        """Forget the cached report (after feedback, so the owner sees it at once)."""
        self._traffic = (0.0, "", None)

    def _report(self, engine: Engine) -> Any:
        from sitecite.owner.gaps import gaps_report

        if self.log is None or self.log_file is None:
            return None
        self.log.flush(5.0)
        since = datetime.now(UTC) - LAB_PERIOD
        with QuestionLog(self.log_file) as store:
            return gaps_report(store.asks(since), engine.index, engine.embedder, since, store=store)


def _seed_budget(budget: LLMBudget, path: Path) -> None:
    """Start today's budget from what the log recorded today (a restart is no new budget)."""
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    try:
        with QuestionLog(path) as store:
            today = store.asks(datetime.fromisoformat(day).replace(tzinfo=UTC))
    except Exception as error:  # noqa: BLE001 - a budget without history still works
        log.warning("could not read today's LLM use from the question log: %s", error)
        return
    spent = [a for a in today if a.generator.startswith("llm") and a.cache == "miss"]
    tokens = sum(a.tokens.get("prompt", 0) + a.tokens.get("output", 0) for a in spent)
    budget.seed(day, len(spent), tokens)
