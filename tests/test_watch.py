"""`sitecite index --watch`: an edit re-indexes the folder once per burst of changes, and a
serving engine swaps the new index in."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from sitecite.config import load_settings
from sitecite.index.store import read_sections
from sitecite.pipeline import Engine
from sitecite.serve.live import LiveEngine


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def test_watch_reindexes_on_change_and_the_server_swaps_it_in(tmp_path: Path) -> None:
    site, index = tmp_path / "site", tmp_path / "site" / ".sitecite" / "index"
    site.mkdir()
    (site / "about.md").write_text("# About\n\n## Work\n\nI build bridges.\n")
    env = {**os.environ, "SITECITE_EMBEDDER": "hash-32", "SITECITE_INDEX_WATCH_DEBOUNCE_MS": "300"}
    command = [sys.executable, "-m", "sitecite.cli", "index", str(site), "--index", str(index)]
    process = subprocess.Popen(
        [*command, "--watch"], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.extend(iter(process.stderr.readline, "")),  # type: ignore[union-attr]
        daemon=True,
    )
    reader.start()
    try:
        wait_for(lambda: any("watching" in line for line in lines), "the watcher to start")
        settings = load_settings({"embedder": "hash-32"}, environ={})
        live = LiveEngine(index, Engine.load(index, settings))

        (site / "about.md").write_text("# About\n\n## Work\n\nI build ferries now.\n")
        wait_for(
            lambda: any("ferries" in s.text for s in read_sections(index)), "the re-indexed edit"
        )
        assert live.refresh()  # what `sitecite serve` does on its next poll
        assert any("ferries" in s.text for s in live.current.engine.index.sections)

        for n in range(5):  # one burst of saves: one rebuild
            (site / f"note-{n}.md").write_text(f"## Note {n}\n\nNote number {n}.\n")
        wait_for(lambda: len(read_sections(index)) == 6, "the burst to be indexed")
        time.sleep(1.0)
        assert sum("re-indexing" in line for line in lines) == 2, lines
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
