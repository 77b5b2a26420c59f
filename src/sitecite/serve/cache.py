"""The answer cache: a bounded LRU with a time-to-live, holding serialised answer JSON.

Keys are (index generation, normalised question). Normalising means what `validate_question`
does (trim, collapse whitespace) and no more: the pipeline sees exactly that string, so a hit
returns byte for byte what a miss would have computed. Case is kept because the question
screen is case-sensitive ("you are Elena Vasquez" is an identity override only capitalised).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

Key = str  # "{generation}:{question digest}"


class AnswerCache:
    """At most `size` entries, each served for `ttl_seconds`; either at 0 disables the cache."""

    def __init__(
        self, size: int, ttl_seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.size = size
        self.ttl = ttl_seconds
        self.clock = clock
        self._entries: OrderedDict[Key, tuple[float, bytes]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    @property
    def enabled(self) -> bool:
        return self.size > 0 and self.ttl > 0

    def get(self, key: Key) -> bytes | None:
        entry = self._entries.get(key)
        if entry is None or entry[0] <= self.clock():
            if entry is not None:
                del self._entries[key]
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return entry[1]

    def put(self, key: Key, body: bytes) -> None:
        if not self.enabled:
            return
        self._entries[key] = (self.clock() + self.ttl, body)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
