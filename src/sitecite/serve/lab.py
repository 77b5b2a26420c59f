"""`/lab` on the server: the latest evaluation run's lab page, rendered once per change of the
run history (a new run, a note) rather than on every request, with this machine's paths taken
out. A run history that cannot be shown gives the placeholder and a line in the log, never
the exception's text.
"""

from __future__ import annotations

import asyncio
import logging
import os
from html import escape
from pathlib import Path

from sitecite.serve.pages import lab_placeholder

log = logging.getLogger("sitecite.serve")

Stamp = tuple[tuple[tuple[int, int] | None, ...], str]


class LabPage:
    """The served lab page of one index directory, cached until its run history changes."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = Path(index_dir)
        self._stamp: Stamp | None = None
        self._page = ""
        self._lock = asyncio.Lock()
        self.has_run = False  # whether the page shows a run (else it is the placeholder)
        self.problem = ""  # why the latest run could not be shown, for the placeholder

    async def page(self, generation_key: str) -> tuple[str, bool]:
        """The page, and whether it came from the cache."""
        stamp = (self._history_stamp(), generation_key)
        async with self._lock:  # one render at a time; the others wait and take its result
            if stamp == self._stamp:
                return self._page, True
            loop = asyncio.get_running_loop()
            self._page = await loop.run_in_executor(None, self._render)
            self._stamp = stamp
            return self._page, False

    def _history_stamp(self) -> tuple[tuple[int, int] | None, ...]:
        from sitecite.eval.history import history_path

        history = history_path(self.index_dir)
        return tuple(
            _file_stamp(path)
            for path in (history, Path(f"{history}-wal"), self.index_dir / "manifest.json")
        )

    def _render(self) -> str:
        self.has_run, self.problem = False, ""
        try:
            from sitecite.eval.lab import latest_lab_html
        except ImportError:
            return lab_placeholder()
        try:
            page = latest_lab_html(self.index_dir)
        except Exception as error:  # a broken run record must not take the page down
            log.error("rendering the lab page failed: %s", error, exc_info=error)
            self.problem = "The latest run could not be shown; the server log says why."
            return lab_placeholder(self.problem)
        self.has_run = page is not None
        return lab_placeholder() if page is None else without_paths(page, self.index_dir)


def without_paths(page: str, index_dir: Path) -> str:
    """The page with the directories of this machine (the index's folder, the working
    directory, the home directory) removed from every path it shows."""
    folders = {index_dir.resolve().parent, Path.cwd(), Path.home()}
    for folder in sorted((str(f) for f in folders if len(f.parts) > 1), key=len, reverse=True):
        for form in {folder, escape(folder)}:
            page = page.replace(form + os.sep, "").replace(form, ".")
    return page


def _file_stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)
