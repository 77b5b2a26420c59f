"""Live index swap: follow the index directory and replace the engine when it changes.

`sitecite index` swaps a new directory in atomically, and `sitecite calibrate` rewrites the
manifest atomically; either way the manifest becomes a different file. `LiveEngine.refresh`
notices that from one `stat`, loads the new index beside the old one, answers one question
with it (so the first visitor after a swap does not pay for warming it up) and then replaces a
single reference. A request holds the generation it started with to the end, so in-flight
requests never mix two indexes; the old generation's LLM clients are closed when its last
request finishes. If the directory changes again while a load is under way, the load is
thrown away and retried on the next poll.

A generation's key is a digest of the index manifest and the settings, so replicas serving
the same index with the same settings file their cached answers under the same key.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sitecite.errors import SiteciteError
from sitecite.index.store import MANIFEST, load_index
from sitecite.pipeline import Engine, answer

log = logging.getLogger("sitecite.serve")

Stamp = tuple[int, int, int, int]


class Generation:
    """One loaded engine, the key its cached answers are filed under, and how many requests
    are using it (a retired generation is closed when that reaches zero)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.key = generation_key(engine)
        self.users = 0
        self.retired = False

    def close_if_idle(self) -> None:
        if self.retired and self.users == 0:
            self.engine.close()


class LiveEngine:
    """The current engine for an index directory; `refresh` runs off the event loop."""

    def __init__(self, index_dir: Path, engine: Engine) -> None:
        self.index_dir = Path(index_dir)
        self._stamp = _stamp(self.index_dir)
        self.current = Generation(engine)
        self._lock = threading.Lock()  # one load at a time
        self._swap = threading.Lock()  # the swap against acquire/release: held for no time
        self.last_error = ""

    def acquire(self) -> Generation:
        """The current generation, counted as in use until `release`."""
        with self._swap:
            self.current.users += 1
            return self.current

    def hold(self, generation: Generation) -> None:
        """Count one more user of a generation already held (e.g. by a background task)."""
        with self._swap:
            generation.users += 1

    def release(self, generation: Generation) -> None:
        with self._swap:
            generation.users -= 1
            generation.close_if_idle()

    def close(self) -> None:
        """Retire the current generation (the server is stopping)."""
        with self._swap:
            self.current.retired = True
            self.current.close_if_idle()

    @contextmanager
    def use(self) -> Iterator[Generation]:
        """The current generation, kept open until the block ends."""
        generation = self.acquire()
        try:
            yield generation
        finally:
            self.release(generation)

    def refresh(self) -> bool:
        """Load the index again if its manifest changed; True if the engine was replaced."""
        with self._lock:
            stamp = _stamp(self.index_dir)
            if stamp is None or stamp == self._stamp:
                return False
            engine = self.current.engine
            try:
                fresh = engine.with_index(load_index(self.index_dir, engine.embedder.id))
            except (SiteciteError, OSError) as error:
                self.last_error = str(error)
                log.warning(
                    "index at %s changed but could not be loaded yet: %s", self.index_dir, error
                )
                return False
            if _stamp(self.index_dir) != stamp:
                fresh.close()
                return False  # replaced again mid-load: the files may be a mix; retry next poll
            answer(fresh, "warm up")
            self._stamp = stamp
            with self._swap:
                old, self.current = self.current, Generation(fresh)
                old.retired = True
                old.close_if_idle()
            self.last_error = ""
            log.info(
                "index at %s reloaded: %s, %d sections",
                self.index_dir,
                fresh.index.id,
                len(fresh.index.sections),
            )
            return True


def generation_key(engine: Engine) -> str:
    """Digest of what decides an answer: the index manifest and the settings."""
    described = {
        "manifest": engine.index.manifest,
        "settings": engine.settings.model_dump(mode="json", exclude={"serve"}),
    }
    digest = hashlib.sha256(json.dumps(described, sort_keys=True, default=str).encode())
    return digest.hexdigest()[:20]


def _stamp(index_dir: Path) -> Stamp | None:
    try:
        info = os.stat(index_dir / MANIFEST)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)
