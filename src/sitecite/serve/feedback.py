"""`POST /api/feedback`: a visitor's thumbs up or down on one answer.

    {"id": "<the answer's id>", "rating": "up" | "down",
     "reason": "wrong" | "not_what_i_asked" | "outdated" | "other", "text": "..."}

`reason` and `text` are optional and go with a thumbs down; `text` (at most 500 characters)
is redacted like questions are. The latest rating of an answer wins. It is rate limited like
asks (its own bucket), checked against `serve.allowed_origins`, and answered 202 once queued
for the question log; 404 when the answer id is unknown or the server keeps no log.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from sitecite.asklog import RATINGS, REASONS, Feedback, redact
from sitecite.serve.api import check_rate_limit, read_body, read_json_object
from sitecite.serve.errors import ApiError
from sitecite.serve.service import ServerState

FIELDS = ("id", "rating", "reason", "text")
MAX_TEXT = 500
SHAPE = '{"id": "...", "rating": "up" | "down"}'
_ANSWER_ID = re.compile(r"[0-7][0-9a-f]{15}")


async def feedback(request: Request) -> Response:
    state: ServerState = request.app.state.sitecite
    state.owner.origins.check(request)
    limit_headers = await check_rate_limit(request, state, "feedback")
    body = await read_body(request, state.settings.serve.max_body_bytes)
    given = parse_feedback(read_json_object(body, request.headers.get("content-type"), SHAPE))
    if state.owner.log is None:
        raise ApiError(
            404,
            "not_recorded",
            "this server keeps no question log (serve.log is off), so feedback is not recorded",
        )
    if not await state.owner.knows(given.answer_id):
        raise ApiError(404, "unknown_answer", f"no answer with id '{given.answer_id}'")
    state.owner.add_feedback(given)
    state.owner.refresh_traffic()
    return JSONResponse(
        {"id": given.answer_id, "rating": given.rating, "reason": given.reason, "recorded": True},
        status_code=202,
        headers={"Cache-Control": "no-store", **limit_headers},
    )


def parse_feedback(data: dict[str, object]) -> Feedback:
    """The feedback in a request body, or a 422 naming the field that is wrong."""
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        names = ", ".join(repr(k[:40]) for k in unknown[:5])
        raise ApiError(
            422, "unknown_field", f"unknown field(s): {names}; the body takes {', '.join(FIELDS)}"
        )
    answer_id = data.get("id")
    if not isinstance(answer_id, str) or not _ANSWER_ID.fullmatch(answer_id):
        raise ApiError(422, "invalid_id", "id must be the 'id' of an answer from /api/ask")
    rating = data.get("rating")
    if rating not in RATINGS:
        raise ApiError(422, "invalid_rating", f'rating must be "up" or "down", not {rating!r:.40}')
    reason = data.get("reason", "")
    if reason not in ("", *REASONS):
        raise ApiError(
            422, "invalid_reason", f"reason must be one of {', '.join(REASONS)}, not {reason!r:.40}"
        )
    text = data.get("text", "")
    if not isinstance(text, str):
        raise ApiError(422, "invalid_text", "text must be a string")
    if len(text) > MAX_TEXT:
        raise ApiError(
            422, "text_too_long", f"text is {len(text)} characters long; the limit is {MAX_TEXT}"
        )
    if rating == "up" and (reason or text.strip()):
        raise ApiError(422, "reason_without_down", "a reason or text goes with a thumbs down")
    return Feedback(
        answer_id,
        str(rating),
        datetime.now(UTC),
        str(reason),
        redact(" ".join(text.split())),
    )
