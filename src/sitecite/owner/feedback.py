"""A visitor's thumbs up or down on one answer, read and checked before it is logged.

    {"id": "<the answer's id>", "rating": "up" | "down",
     "reason": "wrong" | "not_what_i_asked" | "outdated" | "other", "text": "..."}

`reason` and `text` are optional and go with a thumbs down; `text` (at most 500 characters)
is redacted like questions are. A malformed body raises FeedbackError naming the field, with
a stable code the server answers 422 with (docs/http.md).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from sitecite.errors import FeedbackError
from sitecite.owner.asklog import RATINGS, REASONS, Feedback
from sitecite.owner.privacy import redact

FIELDS = ("id", "rating", "reason", "text")
MAX_TEXT = 500
_ANSWER_ID = re.compile(r"[0-7][0-9a-f]{15}")


def parse_feedback(data: dict[str, object]) -> Feedback:
    """The feedback in a request body, or a FeedbackError naming the field that is wrong."""
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        names = ", ".join(repr(k[:40]) for k in unknown[:5])
        raise FeedbackError(
            "unknown_field", f"unknown field(s): {names}; the body takes {', '.join(FIELDS)}"
        )
    answer_id = data.get("id")
    if not isinstance(answer_id, str) or not _ANSWER_ID.fullmatch(answer_id):
        raise FeedbackError("invalid_id", "id must be the 'id' of an answer from /api/ask")
    rating = data.get("rating")
    if rating not in RATINGS:
        raise FeedbackError("invalid_rating", f'rating must be "up" or "down", not {rating!r:.40}')
    reason = data.get("reason", "")
    if reason not in ("", *REASONS):
        raise FeedbackError(
            "invalid_reason", f"reason must be one of {', '.join(REASONS)}, not {reason!r:.40}"
        )
    text = data.get("text", "")
    if not isinstance(text, str):
        raise FeedbackError("invalid_text", "text must be a string")
    if len(text) > MAX_TEXT:
        raise FeedbackError(
            "text_too_long", f"text is {len(text)} characters long; the limit is {MAX_TEXT}"
        )
    if rating == "up" and (reason or text.strip()):
        raise FeedbackError("reason_without_down", "a reason or text goes with a thumbs down")
    return Feedback(
        answer_id,
        str(rating),
        datetime.now(UTC),
        str(reason),
        redact(" ".join(text.split())),
    )
