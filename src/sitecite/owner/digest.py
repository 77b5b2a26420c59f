"""The owner's daily digest: new content gaps, posted as JSON to `serve.notify_url`.

Once a UTC day, from `serve.notify_hour` on, the server groups what visitors asked since the
last digest that the site could not answer (sitecite.owner.gaps) and, if there is any such
gap, posts:

    {"type": "sitecite.digest", "site": "...", "index_id": "...", "since": "...",
     "until": "...", "asked": 12, "answered": 9, "refused": 3,
     "feedback": {"up": 2, "down": 1, "down:wrong": 1},
     "gaps": [{"size", "examples", "questions", "refused", "thumbs_down",
               "closest_section": {"id", "title", "url", "score"}, "suggestion"}]}

When the last digest went out is kept in the question log, so a restart sends no second
one. A receiver that fails is retried at the next check (every few minutes), never more
than once per check; the failure is logged, and answers are never affected.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from sitecite.config import check_base_url
from sitecite.owner.asklog import QuestionLog
from sitecite.owner.gaps import gaps_report
from sitecite.pipeline import Engine
from sitecite.types import PROFILE_SUFFIX

log = logging.getLogger("sitecite.serve")

SENT_KEY = "digest_sent_until"
CHECK_EVERY_SECONDS = 300.0
FIRST_PERIOD = timedelta(days=1)


class DigestNotifier:
    """Decides when a digest is due, builds it from the log and posts it."""

    def __init__(
        self,
        url: str,
        hour: int,
        log_file: Path,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        timeout: float = 10.0,
    ) -> None:
        self.url = check_base_url(url, "serve.notify_url")
        self.hour = hour
        self.log_file = log_file
        self.clock = clock
        self.timeout = timeout

    def due(self, now: datetime, last_sent: datetime | None) -> bool:
        """From `hour` o'clock (UTC) on, once a day."""
        if now.hour < self.hour:
            return False
        return last_sent is None or last_sent.date() < now.date()

    def run_once(self, engine: Engine, force: bool = False) -> dict[str, Any] | None:
        """Send the digest if it is due (or `force`); the payload sent, or None."""
        now = self.clock()
        with QuestionLog(self.log_file) as store:
            raw = store.get_meta(SENT_KEY)
            last = datetime.fromisoformat(raw) if raw else None
            if not force and not self.due(now, last):
                return None
            since = last or now - FIRST_PERIOD
            report = gaps_report(
                store.asks(since), engine.index, engine.embedder, since, now, store
            )
            payload = digest_payload(report.to_json(), engine)
            if report.groups:
                self.post(payload)
            store.set_meta(SENT_KEY, now.isoformat(timespec="seconds"))
        return payload if report.groups else None

    def post(self, payload: dict[str, Any]) -> None:
        response = httpx.post(self.url, json=payload, timeout=self.timeout)
        response.raise_for_status()


def digest_payload(report: dict[str, Any], engine: Engine) -> dict[str, Any]:
    facts = next((s for s in engine.index.sections if s.page_id == "_facts"), None)
    site = facts.title.removesuffix(PROFILE_SUFFIX) if facts else str(engine.index.path.name)
    return {
        "type": "sitecite.digest",
        "site": site,
        "index_id": engine.index.id,
        **{k: report[k] for k in ("since", "until", "asked", "answered", "refused", "feedback")},
        "gaps": report["gaps"],
    }


async def follow_digests(
    notifier: DigestNotifier,
    engine: Callable[[], Engine],
    every_seconds: float = CHECK_EVERY_SECONDS,
) -> None:
    """Check every few minutes whether the digest is due; runs for the server's lifetime."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            sent = await loop.run_in_executor(None, notifier.run_once, engine())
            if sent is not None:
                log.info("sent the daily digest: %d content gaps", len(sent["gaps"]))
        except Exception as error:  # noqa: BLE001 - a bad receiver must not stop the server
            log.error("the daily digest could not be sent to %s: %s", notifier.url, error)
        await asyncio.sleep(every_seconds)
