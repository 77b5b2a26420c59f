"""The owner's daily LLM budget: past it, answers come from the extractive generator.

`serve.daily_llm_budget` counts provider calls (every HTTP attempt, retries included) or
tokens (prompt plus output) per UTC day. Before each answer the service asks for a
generator: the engine's own while there is budget left, else the extractive one built with
the same calibrated thresholds, so an answer past the budget is exactly what the extractive
generator would have said. The count starts from the question log's record of today when
there is one, so a restart does not hand out a second budget. With several replicas each
keeps its own count.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sitecite.config import parse_budget
from sitecite.generate import ExtractiveGenerator, Generator
from sitecite.pipeline import Engine
from sitecite.types import Answer, Trace


def _today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


class LLMBudget:
    """Today's spend against `serve.daily_llm_budget` (thread-safe: workers spend it)."""

    def __init__(self, setting: int | str, today: Callable[[], str] = _today) -> None:
        self.limit, self.unit = parse_budget(setting)
        self.today = today
        self._day = today()
        self._used = 0
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.limit > 0

    def used(self) -> int:
        with self._lock:
            self._roll()
            return self._used

    def exhausted(self) -> bool:
        return self.enabled and self.used() >= self.limit

    def seed(self, day: str, calls: int, tokens: int) -> None:
        """Start from what the log says was already spent on `day`."""
        with self._lock:
            if day == self.today():
                self._day = day
                self._used = max(self._used, tokens if self.unit == "tokens" else calls)

    def generator_for(self, engine: Engine) -> Generator | None:
        """None (the engine's generator) while there is budget, else the extractive one."""
        if not self.enabled or engine.settings.generator != "llm" or not self.exhausted():
            return None
        return ExtractiveGenerator(
            engine.sentence_threshold,
            engine.settings.max_answer_sentences,
            engine.coverage_threshold,
        )

    def spend(self, answer: Answer, trace: Trace) -> None:
        """Count what one answer cost: its provider calls or its tokens."""
        if not self.enabled:
            return
        calls = sum(
            1
            for attempt in trace.attempts
            if not str(attempt.get("error") or "").startswith("skipped")
        )
        tokens = int(answer.tokens.get("prompt", 0)) + int(answer.tokens.get("output", 0))
        with self._lock:
            self._roll()
            self._used += tokens if self.unit == "tokens" else calls

    def state(self) -> dict[str, Any]:
        """For /api/health and the lab."""
        if not self.enabled:
            return {"limit": 0, "unit": self.unit, "used": 0, "exhausted": False}
        used = self.used()
        return {
            "limit": self.limit,
            "unit": self.unit,
            "used": used,
            "exhausted": used >= self.limit,
            "day": self._day,
        }

    def _roll(self) -> None:
        day = self.today()
        if day != self._day:
            self._day, self._used = day, 0
