"""Progress for long work (indexing, benchmarks) on stderr: a rich bar per stage with its
rate and ETA on a terminal, a plain line every few seconds otherwise, so a run never sits
silent; `--quiet` turns both off. stdout stays free for results (`--json`)."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(ProgressColumn):
    """Items per second of the current stage."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.1f}/s", style="progress.data.speed")


class RichReporter:
    """One bar per stage (`start`), advanced as work is done; a context manager.

    Off when stderr is not a terminal, unless SITECITE_PROGRESS is set."""

    def __init__(self, transient: bool = False) -> None:
        shown = sys.stderr.isatty() or bool(os.environ.get("SITECITE_PROGRESS"))
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            RateColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=transient,
            disable=not shown,
        )
        self.task: TaskID | None = None

    def __enter__(self) -> RichReporter:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def start(self, description: str, total: int) -> None:
        if self.task is not None:  # the previous stage is done
            self.progress.update(self.task, completed=self.progress.tasks[-1].total)
        self.task = self.progress.add_task(description, total=max(total, 1))
        if total == 0:
            self.progress.update(self.task, completed=1)

    def resize(self, total: int) -> None:
        """The stage turned out larger (a crawl found more links)."""
        if self.task is not None:
            self.progress.update(self.task, total=max(total, 1))

    def advance(self, amount: int) -> None:
        if self.task is not None:
            self.progress.advance(self.task, amount)


class LineReporter:
    """Progress as plain lines (stderr is a file or a pipe): each stage's start, then at most
    one line every `every` seconds with count, rate and ETA, then the stage's total."""

    def __init__(self, out: TextIO | None = None, every: float = 10.0) -> None:
        self.out = out or sys.stderr
        self.every = every
        self.description = ""
        self.total = self.done = 0
        self.began = self.last = 0.0

    def __enter__(self) -> LineReporter:
        return self

    def __exit__(self, *exc: object) -> None:
        self._finish()

    def _line(self, text: str) -> None:
        print(f"sitecite: {text}", file=self.out, flush=True)

    def _finish(self) -> None:
        if self.description:
            seconds = time.monotonic() - self.began
            self._line(f"{self.description}: done, {self.done} in {seconds:.1f} s")
        self.description = ""

    def start(self, description: str, total: int) -> None:
        self._finish()
        self.description, self.total, self.done = description, total, 0
        self.began = self.last = time.monotonic()
        self._line(f"{description} ...")

    def resize(self, total: int) -> None:
        self.total = total

    def advance(self, amount: int) -> None:
        self.done += amount
        now = time.monotonic()
        if now - self.last < self.every:
            return
        self.last = now
        rate = self.done / max(now - self.began, 1e-9)
        eta = (self.total - self.done) / rate if rate > 0 and self.total > self.done else 0.0
        self._line(
            f"{self.description}: {self.done}/{self.total} ({rate:,.1f}/s, ETA {eta:,.0f} s)"
        )


def reporter(quiet: bool = False) -> RichReporter | LineReporter | None:
    """The reporter for this terminal: rich bars, plain lines, or none with --quiet."""
    if quiet:
        return None
    if sys.stderr.isatty() or os.environ.get("SITECITE_PROGRESS"):
        return RichReporter()
    return LineReporter()
