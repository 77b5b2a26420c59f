"""`/lab` on the server: the site's header and navigation around the section on visitors'
questions and the latest evaluation run, or, before the first run, how to publish one.

The run's part is rendered once per change of the run history (a new run, a note) rather than
on every request, with this machine's paths taken out; the visitors' section is put in its
place on each request. A run history that cannot be shown gives the first-run advice and a line
in the log, never the exception's text.
"""

from __future__ import annotations

import asyncio
import logging
import os
from html import escape
from pathlib import Path

from sitecite.serve.pages import layout, page_title

log = logging.getLogger("sitecite.serve")

Stamp = tuple[tuple[tuple[int, int] | None, ...], str]
VISITORS = "<!-- sitecite: visitors -->"  # where each request's section on visitors goes
NO_QUESTIONS = (
    '<section id="traffic"><h2 id="visitors">Visitors\' questions</h2>'
    "<p>No questions asked yet. Press <kbd>Ctrl</kbd> <kbd>K</kbd> and ask one: it appears "
    "here with its answer, and the questions the site could not answer are grouped into "
    "content gaps.</p></section>"
)


def lab_document(part: str, visitors: str, name: str) -> str:
    """The /lab page: the site's layout around the lab's styles, the run's part (or the
    first-run advice) and the section on visitors."""
    from sitecite.eval.html import LAB_CSS

    body = f'<div class="lab">{part.replace(VISITORS, visitors, 1)}</div>'
    head = f"<style>{LAB_CSS}</style>\n"
    title = page_title("Lab", name)
    return layout(title, body, site_name=name, current="/lab", head=head, wide=True)


def first_run(problem: str = "") -> str:
    """The lab before any evaluation run: what one is, and the command that publishes it."""
    detail = f'<p class="warn">{escape(problem)}</p>' if problem else ""
    return f"""<h1>Lab</h1>
<p class="meta">What visitors ask this site, and how well it answers a question set whose
answers are known.</p>
<section id="evaluation">
<h2>Evaluation</h2>
{detail}
<p>No evaluation run yet. An evaluation asks a question set (each question with the pages that
answer it, or that it should be refused) through the same pipeline that answers visitors, and
grades every answer. Publish the first run from the machine that serves this site:</p>
<pre><code>sitecite eval questions.json --index DIR --out results.json</code></pre>
<p><code>DIR</code> is the index this server serves: the run is kept beside it and appears here
on the next visit; <code>results.json</code> is the same run as a file. No question set yet?
<code>sitecite gaps --index DIR --export questions.json</code> starts one from the questions
visitors asked that the site could not answer.</p>
</section>
{VISITORS}"""


class LabPage:
    """The served lab page of one index directory, cached until its run history changes."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = Path(index_dir)
        self._stamp: Stamp | None = None
        self._page = ""
        self._lock = asyncio.Lock()

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
        try:
            from sitecite.eval.lab import latest_lab_html
        except ImportError:
            return first_run()
        try:
            part = latest_lab_html(self.index_dir, visitors=VISITORS)
        except Exception as error:  # a broken run record must not take the page down
            log.error("rendering the lab page failed: %s", error, exc_info=error)
            return first_run("The latest run could not be shown; the server log says why.")
        if part is None:  # no run yet: how to publish one, and where the URLs came from
            return first_run() + self._urls()
        return without_paths(part, self.index_dir)

    def _urls(self) -> str:
        from sitecite.errors import IndexDirError
        from sitecite.eval.lab_urls import urls_section
        from sitecite.index.store import read_manifest

        try:
            return urls_section(read_manifest(self.index_dir).get("urls"))
        except IndexDirError:
            return ""


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
