"""A requests-per-minute budget shared by every worker thread of a run.

Requests are spaced evenly (60 / rpm seconds apart) rather than sent in bursts, because free
tiers of hosted providers count requests over sliding windows shorter than a minute.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class RateLimiter:
    """`acquire()` blocks until the next request may start; rpm <= 0 means no limit."""

    def __init__(
        self,
        requests_per_minute: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.interval = 60.0 / requests_per_minute if requests_per_minute > 0 else 0.0
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next = 0.0
        self.waited_seconds = 0.0

    def acquire(self) -> None:
        if self.interval <= 0:
            return
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
            wait = start - now
            self.waited_seconds += wait
        if wait > 0:
            self._sleep(wait)
