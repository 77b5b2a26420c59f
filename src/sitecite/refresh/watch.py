"""`sitecite index --watch`: re-index a folder when its files change.

watchfiles (Rust notify) reports changes in batches; a batch is only handed on once the folder
has been quiet for the debounce interval, so saving ten files at once rebuilds once. The index
directory (and other dot folders) are ignored even when they sit inside the folder. A running
`sitecite serve` notices the swapped-in index and reloads it (serve/live.py).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from sitecite.errors import SiteciteError
from sitecite.ingest.pages import READ_SUFFIXES

READY_TIMEOUT_MS = 500  # how often the watcher wakes when nothing changes
CONTENT_SUFFIXES = tuple(sorted(READ_SUFFIXES))  # every file ingestion reads


def content_filter(index_dir: Path) -> Callable[[object, str], bool]:
    """Changes worth a rebuild: content files, outside the index and dot folders."""
    index_dir = index_dir.resolve()

    def interesting(_change: object, path: str) -> bool:
        resolved = Path(path).resolve()
        if resolved == index_dir or index_dir in resolved.parents:
            return False
        if any(part.startswith(".") for part in resolved.parts[1:]):
            return False
        return resolved.suffix.lower() in CONTENT_SUFFIXES

    return interesting


def watch_folder(
    folder: str | Path,
    index_dir: str | Path,
    debounce_ms: int,
    rebuild: Callable[[set[str]], object],
    out: TextIO | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Call `rebuild(changed paths)` after each debounced batch of changes, until stopped
    (Ctrl-C, or `stop` set). A failed rebuild is reported and watching goes on."""
    out = out or sys.stderr
    if stop is not None or threading.current_thread() is not threading.main_thread():
        _watch(folder, index_dir, debounce_ms, rebuild, out, stop)
        return
    # Ctrl-C (or SIGTERM) sets an event the watcher polls, rather than raising wherever the
    # signal lands: a rebuild under way finishes (its index swapped in whole) and the watch
    # ends within READY_TIMEOUT_MS. A KeyboardInterrupt raised inside the watcher's native
    # loop could leave the process running.
    stopping = threading.Event()
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, lambda *_: stopping.set())
    try:
        _watch(folder, index_dir, debounce_ms, rebuild, out, stopping)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _watch(
    folder: str | Path,
    index_dir: str | Path,
    debounce_ms: int,
    rebuild: Callable[[set[str]], object],
    out: TextIO,
    stop: threading.Event | None,
) -> None:
    from watchfiles import watch

    announced = False
    for changes in watch(
        folder,
        watch_filter=content_filter(Path(index_dir)),
        step=debounce_ms,  # quiet this long -> hand the batch on
        debounce=debounce_ms * 10,  # but never hold changes longer than this
        stop_event=stop,
        raise_interrupt=False,
        rust_timeout=READY_TIMEOUT_MS,
        yield_on_timeout=True,  # the first (empty) batch says the watch is in place
    ):
        if not announced:
            # Only now is the watch registered: an edit saved before this line is not missed
            # by a caller (or a test) that waits for it.
            print(f"sitecite: watching {folder} (Ctrl-C to stop)", file=out, flush=True)
            announced = True
        if not changes:
            continue
        changed = {path for _, path in changes}
        print(f"sitecite: {len(changed)} file(s) changed, re-indexing", file=out, flush=True)
        try:
            rebuild(changed)
        except SiteciteError as error:
            print(f"sitecite: error: {error} (still watching)", file=out, flush=True)
