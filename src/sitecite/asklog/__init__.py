"""The question log: what visitors asked, what they were told, and what they thought of it.

privacy.py   redaction of e-mail addresses, phone and card numbers; the daily visitor hash
store.py     the SQLite file beside the index: write, read, feedback, retention by deletion

The server writes it (sitecite.serve.log, off the answer path); the lab and `sitecite gaps`
read it (sitecite.eval.gaps).
"""

from __future__ import annotations

from sitecite.asklog.privacy import VisitorHasher, redact
from sitecite.asklog.store import (
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
