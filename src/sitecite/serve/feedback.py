"""`POST /api/feedback`: a visitor's thumbs up or down on one answer.

    {"id": "<the answer's id>", "rating": "up" | "down",
     "reason": "wrong" | "not_what_i_asked" | "outdated" | "other", "text": "..."}

`reason` and `text` are optional and go with a thumbs down; `text` (at most 500 characters)
is redacted like questions are. The latest rating of an answer wins. It is rate limited like
asks (its own bucket), checked against `serve.allowed_origins`, and answered 202 once queued
for the question log; 404 when the answer id is unknown or the server keeps no log.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from sitecite.errors import FeedbackError
from sitecite.owner.feedback import parse_feedback
from sitecite.serve.api import check_rate_limit, read_body, read_json_object
from sitecite.serve.errors import ApiError
from sitecite.serve.service import ServerState

SHAPE = '{"id": "...", "rating": "up" | "down"}'


async def feedback(request: Request) -> Response:
    state: ServerState = request.app.state.sitecite
    state.owner.origins.check(request)
    limit_headers = await check_rate_limit(request, state, "feedback")
    body = await read_body(request, state.settings.serve.max_body_bytes)
    data = read_json_object(body, request.headers.get("content-type"), SHAPE)
    try:
        given = parse_feedback(data)
    except FeedbackError as error:
        raise ApiError(422, error.code, str(error)) from error
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
