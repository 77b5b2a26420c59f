"""Progress bars for long work (indexing, benchmarks): the index builder's Reporter protocol
drawn with rich on stderr."""

from __future__ import annotations

import os
import sys

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)


class RichReporter:
    """One bar per stage (`start`), advanced as texts are embedded; a context manager.

    Off when stderr is not a terminal, unless SITECITE_PROGRESS is set."""

    def __init__(self, transient: bool = False) -> None:
        shown = sys.stderr.isatty() or bool(os.environ.get("SITECITE_PROGRESS"))
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
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

    def advance(self, amount: int) -> None:
        if self.task is not None:
            self.progress.advance(self.task, amount)
