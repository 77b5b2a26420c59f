"""The answering service behind `POST /api/ask`: cache, de-duplication and a bounded thread pool.

Inference (embedding the question, scoring sentences) runs in `workers` threads so the event
loop keeps serving cached answers, health checks and pages while a question is answered.
Identical questions that arrive while the first is still being answered wait for that one
answer instead of queueing the same work again.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sitecite.config import ServeSettings, Settings
from sitecite.pipeline import Engine, answer
from sitecite.serve.budget import LLMBudget
from sitecite.serve.cache import AnswerCache, Key
from sitecite.serve.limits import ClientAddress, RateLimiter
from sitecite.serve.live import LiveEngine
from sitecite.types import Turn

if TYPE_CHECKING:
    from sitecite.serve.owner import OwnerLoop

log = logging.getLogger("sitecite.serve")


@dataclass(frozen=True)
class Served:
    """An answer as bytes of JSON, whether it came from the cache, and which index answered."""

    body: bytes
    cache: str  # "hit", "miss", or "shared" (joined an identical question in flight)
    index_id: str


class AnswerService:
    def __init__(
        self, live: LiveEngine, settings: ServeSettings, budget: LLMBudget | None = None
    ) -> None:
        self.live = live
        self.budget = budget or LLMBudget(0)
        self.cache = AnswerCache(settings.cache_size, settings.cache_ttl_seconds)
        self.pool = ThreadPoolExecutor(
            max_workers=settings.workers, thread_name_prefix="sitecite-answer"
        )
        self._in_flight: dict[Key, asyncio.Future[bytes]] = {}

    async def ask(self, question: str, history: Sequence[Turn] = ()) -> Served:
        """Answer a clean question (read with the conversation's earlier turns) with the engine
        current on arrival, or from the cache."""
        generation = self.live.current
        index_id = generation.engine.index.id
        key = (generation.key, question + _history_key(history))
        cached = self.cache.get(key)
        if cached is not None:
            return Served(cached, "hit", index_id)
        pending = self._in_flight.get(key)
        status = "shared"
        if pending is None:
            status = "miss"
            loop = asyncio.get_running_loop()
            pending = asyncio.ensure_future(
                loop.run_in_executor(
                    self.pool, _answer_json, generation.engine, question, history, self.budget
                )
            )
            self._in_flight[key] = pending
            pending.add_done_callback(lambda done: self._settle(key, done))
        # shield: a client that hangs up must not cancel the answer others are waiting for
        body = await asyncio.shield(pending)
        return Served(body, status, index_id)

    def _settle(self, key: Key, done: asyncio.Future[bytes]) -> None:
        self._in_flight.pop(key, None)
        if done.cancelled() or done.exception() is not None:
            return
        if key[0] == self.live.current.key:
            self.cache.put(key, done.result())

    async def refresh_index(self) -> bool:
        """Pick up a replaced index (in a helper thread); old cache entries are dropped."""
        swapped = await asyncio.get_running_loop().run_in_executor(None, self.live.refresh)
        if swapped:
            self.cache.clear()
        return swapped

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class ServerState:
    """Everything a request handler needs, kept on `app.state.sitecite`."""

    index_dir: Path
    settings: Settings
    service: AnswerService
    limiter: RateLimiter
    client_address: ClientAddress
    owner: OwnerLoop


def _answer_json(
    engine: Engine, question: str, history: Sequence[Turn], budget: LLMBudget
) -> bytes:
    result, trace = answer(
        engine, question, history=history, generator=budget.generator_for(engine)
    )
    budget.spend(result, trace)
    return json.dumps(result.to_json(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _history_key(history: Sequence[Turn]) -> str:
    """What of the history can change an answer: every turn's question, answer and citations
    (the LLM generator reads the answers), so two conversations share a cached answer only
    when they are the same."""
    if not history:
        return ""
    turns = [[t.question, t.answer, list(t.cited)] for t in history]
    return "\x00" + json.dumps(turns, ensure_ascii=False, separators=(",", ":"))
