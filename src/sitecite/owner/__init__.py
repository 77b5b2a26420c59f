"""The owner's loop: what visitors asked, what they thought of the answers, and what the site
could not answer, turned into pages to write and questions to evaluate.

asklog.py     the question log, a SQLite file beside the index: write, read, feedback,
              retention by deletion
privacy.py    redaction of e-mail addresses, phone and card numbers; the daily visitor hash
writer.py     the log's writer thread, off the answer path, and the answer ids it records
feedback.py   a visitor's thumbs up or down, read and checked
gaps.py       content gaps: unanswered questions grouped into topics, each with its closest
              section (found here, through `retrieve`: `eval` never retrieves on its own)
gaps_html.py  the visitors' page and the lab's visitors section
digest.py     the daily digest of new gaps, posted to `serve.notify_url`

The server (`sitecite.serve`) reaches it over HTTP, the command line through `sitecite gaps`.
"""

from __future__ import annotations

from sitecite.owner.asklog import (
    RATINGS,
    REASONS,
    AskRecord,
    Feedback,
    LoggedAsk,
    Outcome,
    QuestionLog,
    QuestionLogError,
    answer_number,
    log_path,
)
from sitecite.owner.privacy import VisitorHasher, redact

__all__ = [
    "RATINGS",
    "REASONS",
    "AskRecord",
    "Feedback",
    "LoggedAsk",
    "Outcome",
    "QuestionLog",
    "QuestionLogError",
    "VisitorHasher",
    "answer_number",
    "log_path",
    "redact",
]
