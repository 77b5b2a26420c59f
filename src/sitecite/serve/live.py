"""Live index swap: follow the index directory and replace the engine when it changes.

`sitecite index` swaps a new directory in atomically, and `sitecite calibrate` rewrites the
manifest atomically; either way the manifest becomes a different file. `LiveEngine.refresh`
notices that from one `stat`, loads the new index beside the old one and then replaces a
single reference. A request reads that reference once and answers with that engine to the
end, so in-flight requests never mix two indexes. If the directory changes again while a
load is under way, the load is thrown away and retried on the next poll.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from sitecite.errors import SiteciteError
from sitecite.index.store import MANIFEST, load_index
from sitecite.pipeline import Engine

log = logging.getLogger("sitecite.serve")

Stamp = tuple[int, int, int, int]


@dataclass(frozen=True)
class Generation:
    """One loaded engine and the key its cached answers are filed under."""

    engine: Engine
    key: str


class LiveEngine:
    """The current engine for an index directory; `refresh` runs off the event loop."""

    def __init__(self, index_dir: Path, engine: Engine) -> None:
        self.index_dir = Path(index_dir)
        self._stamp = _stamp(self.index_dir)
        self._number = 0
        self.current = Generation(engine, self._key(engine))
        self._lock = threading.Lock()
        self.last_error = ""

    def _key(self, engine: Engine) -> str:
        return f"{engine.index.id}/{self._number}"

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
                return False  # replaced again mid-load: the files may be a mix; retry next poll
            self._stamp = stamp
            self._number += 1
            self.current = Generation(fresh, self._key(fresh))
            self.last_error = ""
            log.info(
                "index at %s reloaded: %s, %d sections",
                self.index_dir,
                fresh.index.id,
                len(fresh.index.sections),
            )
            return True


def _stamp(index_dir: Path) -> Stamp | None:
    try:
        info = os.stat(index_dir / MANIFEST)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)
