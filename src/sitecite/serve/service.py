"""The answering service behind `POST /api/ask`: cache, de-duplication and a bounded queue.

Inference (embedding the question, scoring sentences) runs in `workers` threads so the event
loop keeps serving cached answers, health checks and pages while a question is answered.
Identical questions that arrive while the first is still being answered wait for that one
answer instead of queueing the same work again: within this process through a shared future,
across replicas through the claim in `shared` (Redis). At most `queue_size` questions are
being answered or waiting for a thread; past that the answer is 503 with Retry-After, so a
burst of distinct questions cannot grow the queue (and the wait) without bound.
"""

from __future__ import annotations

import asyncio
import hashlib
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
from sitecite.serve.errors import ApiError
from sitecite.serve.limits import ClientAddress
from sitecite.serve.live import Generation, LiveEngine
from sitecite.serve.shared import LocalState
from sitecite.types import Turn

if TYPE_CHECKING:
    from sitecite.serve.owner import OwnerLoop

log = logging.getLogger("sitecite.serve")

BUSY_RETRY_SECONDS = 1


@dataclass(frozen=True)
class Served:
    """An answer as bytes of JSON, whether it came from the cache, and which index answered."""

    body: bytes
    cache: str  # "hit", "miss", or "shared" (joined an identical question in flight)
    index_id: str


class AnswerService:
    def __init__(
        self,
        live: LiveEngine,
        settings: ServeSettings,
        shared: LocalState,
        budget: LLMBudget | None = None,
    ) -> None:
        self.live = live
        self.shared = shared
        self.budget = budget or LLMBudget(0)
        self.queue_size = settings.queue_size
        self.pool = ThreadPoolExecutor(
            max_workers=settings.workers, thread_name_prefix="sitecite-answer"
        )
        self.pending = 0  # questions being answered or waiting; touched on the event loop only
        self._in_flight: dict[str, asyncio.Future[tuple[bytes, str]]] = {}

    async def ask(self, question: str, history: Sequence[Turn] = ()) -> Served:
        """Answer a clean question (read with the conversation's earlier turns) with the engine
        current on arrival, or from the cache."""
        with self.live.use() as generation:
            index_id = generation.engine.index.id
            asked = question + _history_key(history)
            key = f"{generation.key}:{hashlib.sha256(asked.encode()).hexdigest()[:32]}"
            cached = await self.shared.get(key)
            if cached is not None:
                return Served(cached, "hit", index_id)
            pending = self._in_flight.get(key)
            if pending is None:
                if self.pending >= self.queue_size:
                    raise ApiError(
                        503,
                        "busy",
                        f"{self.pending} questions are already waiting; try again shortly",
                        {"Retry-After": str(BUSY_RETRY_SECONDS)},
                    )
                self.pending += 1
                self.live.hold(generation)  # the task keeps it even if this request goes away
                pending = asyncio.ensure_future(self._answer(generation, question, history, key))
                self._in_flight[key] = pending
                pending.add_done_callback(lambda _: self._in_flight.pop(key, None))
                body, status = await asyncio.shield(pending)
            else:
                body, _ = await asyncio.shield(pending)
                status = "shared"
            # shield: a client that hangs up must not cancel the answer others are waiting for
            return Served(body, status, index_id)

    async def _answer(
        self, generation: Generation, question: str, history: Sequence[Turn], key: str
    ) -> tuple[bytes, str]:
        """Answer here, or take the answer another replica is already computing."""
        try:
            claimed = await self.shared.claim(key)
            if not claimed:
                body = await self.shared.wait_for(key)
                if body is not None:
                    return body, "shared"
            try:
                loop = asyncio.get_running_loop()
                body = await loop.run_in_executor(
                    self.pool, _answer_json, generation.engine, question, history, self.budget
                )
                await self.shared.put(key, body)
            finally:
                if claimed:
                    await self.shared.release(key)
            return body, "miss"
        finally:
            self.pending -= 1
            self.live.release(generation)

    async def refresh_index(self) -> bool:
        """Pick up a replaced index (in a helper thread); this process's cache is emptied."""
        swapped = await asyncio.get_running_loop().run_in_executor(None, self.live.refresh)
        if swapped:
            self.shared.clear()
        return swapped

    async def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        await self.shared.close()
        self.live.close()


@dataclass(frozen=True)
class ServerState:
    """Everything a request handler needs, kept on `app.state.sitecite`."""

    index_dir: Path
    settings: Settings
    service: AnswerService
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
