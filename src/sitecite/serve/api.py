"""`POST /api/ask` and `GET /api/health`, and the request parsing `POST /api/feedback` shares.

The body is read and checked by hand, so that every bad request (too big, wrong content type,
not UTF-8, not JSON, no question, wrong type, too long) gets its own status and a message
naming the problem, in the one error shape. openapi.py describes the same contract.
"""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from sitecite.errors import SiteciteError
from sitecite.intake import NOT_TEXT, QuestionError, take_question
from sitecite.serve.errors import ApiError, from_library
from sitecite.serve.how import public_embedder
from sitecite.serve.service import ServerState
from sitecite.types import Turn

HISTORY_TURNS = 3  # the last turns a follow-up is read with; older ones are ignored
HISTORY_CHARS = 2000
HISTORY_CITED = 12


async def ask(request: Request) -> Response:
    started = time.perf_counter()
    state: ServerState = request.app.state.sitecite
    settings = state.settings.serve
    state.owner.origins.check(request)
    limit_headers = await check_rate_limit(request, state, "ask")
    question, history = parse_ask(
        await read_body(request, settings.max_body_bytes),
        request.headers.get("content-type"),
        settings.max_question_chars,
    )
    try:
        served = await state.service.ask(question, history)
    except SiteciteError as error:  # e.g. an LLM provider down: the caller is not at fault
        raise from_library(error) from error
    answer_id, body = state.owner.issue(served.body)
    state.owner.record(request, answer_id, question, served.body, served.cache, started)
    return Response(
        body,
        media_type="application/json",
        headers={
            "X-Sitecite-Cache": served.cache,
            "X-Sitecite-Index": served.index_id,
            "Cache-Control": "no-store",
            **limit_headers,
        },
    )


async def check_rate_limit(request: Request, state: ServerState, scope: str) -> dict[str, str]:
    """Spend one of the client's tokens for `scope` ("ask", "lab", "feedback"), or raise a 429
    saying when to come back; returns the RateLimit headers for the response."""
    limit = state.settings.serve.rate_limit_per_minute
    client = state.client_address.resolve(
        request.client.host if request.client else "unknown", request.scope["headers"]
    )
    request.scope["sitecite.client"] = client  # for the visitor hash, without resolving twice
    verdict = await state.service.shared.take(client if scope == "ask" else f"{scope}|{client}")
    headers = (
        {"RateLimit-Limit": f"{limit:g}", "RateLimit-Remaining": str(verdict.remaining)}
        if limit > 0
        else {}
    )
    if not verdict.allowed:
        raise ApiError(
            429,
            "rate_limited",
            f"too many requests from {client}: the limit is {limit:g} a minute; "
            f"try again in {verdict.retry_after} s",
            {"Retry-After": str(verdict.retry_after), **headers},
        )
    return headers


async def health(request: Request) -> Response:
    state: ServerState = request.app.state.sitecite
    engine = state.service.live.current.engine
    shared = state.service.shared
    warnings = shared.warnings()
    return JSONResponse(
        {
            "status": "degraded" if warnings else "ok",
            "index_id": engine.index.id,
            "embedder": public_embedder(engine.embedder.id),
            "sections": len(engine.index.sections),
            "threshold": round(engine.threshold, 4),
            "updated": str(engine.index.manifest.get("updated", "")),
            "generator": engine.settings.generator,
            "llm_budget": state.owner.budget.state(),
            "question_log": state.owner.log is not None,
            "shared_state": shared.backend,
            "warnings": warnings,
        }
    )


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refusing (413) before reading more than `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise ApiError(
                400, "bad_content_length", f"Content-Length '{declared}' is not a number"
            )
        if int(declared) > limit:
            raise ApiError(
                413, "body_too_large", f"the body is {int(declared)} bytes; the limit is {limit}"
            )
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:  # request.receive, not request.stream(): this is the hot path of every question
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise ApiError(400, "client_disconnected", "the client went away mid-request")
        chunk = message.get("body", b"")
        more = message.get("more_body", False)
        size += len(chunk)
        if size > limit:
            raise ApiError(413, "body_too_large", f"the body is over the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def parse_question(body: bytes, content_type: str | None, max_chars: int) -> str:
    """The cleaned question from a body `{"question": "..."}`, or an ApiError naming the fault."""
    return parse_ask(body, content_type, max_chars)[0]


def parse_ask(
    body: bytes, content_type: str | None, max_chars: int
) -> tuple[str, tuple[Turn, ...]]:
    """The question and the conversation's earlier turns from `{"question", "history"?}`."""
    data = read_json_object(body, content_type, '{"question": "..."}')
    unknown = sorted(set(data) - {"question", "history"})
    if unknown:
        raise ApiError(
            422,
            "unknown_field",
            "unknown field(s): "
            + ", ".join(repr(k[:40]) for k in unknown[:5])
            + '; the body takes "question" and, for a follow-up, "history"',
        )
    if "question" not in data:
        raise ApiError(422, "missing_question", 'the body has no "question" field')
    return clean_question(data["question"], max_chars), parse_history(data.get("history"))


def read_json_object(body: bytes, content_type: str | None, shape: str) -> dict[str, Any]:
    """The body as a JSON object, or an ApiError naming what is wrong with it."""
    _check_content_type(content_type)
    try:
        text = body.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise ApiError(
            400,
            "invalid_utf8",
            f"the body is not valid UTF-8: byte "
            f"0x{body[error.start]:02x} at position {error.start}",
        ) from error
    if not text.strip():
        raise ApiError(400, "empty_body", f"the body is empty; send {shape}")
    try:
        data = json.loads(text)
    except RecursionError as error:
        raise ApiError(
            400, "invalid_json", "the body is not valid JSON: nested too deeply"
        ) from error
    except ValueError as error:
        raise ApiError(400, "invalid_json", f"the body is not valid JSON: {error}") from error
    if not isinstance(data, dict):
        raise ApiError(
            400,
            "invalid_body",
            f"the body must be a JSON object {shape}, not {_json_type(data)}",
        )
    return data


def clean_question(question: object, max_chars: int, field: str = "question") -> str:
    try:
        cleaned = take_question(question, max_chars)
    except QuestionError as error:
        if error.code == NOT_TEXT:
            message = f"{field} must be a string, not {_json_type(question)}"
        else:
            message = f"{field}: {error}" if field != "question" else str(error)
        raise ApiError(422, error.code, message) from error
    try:
        cleaned.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ApiError(
            422,
            "invalid_question",
            f"{field} contains an unpaired UTF-16 surrogate (\\u{ord(cleaned[error.start]):04x})",
        ) from error
    return cleaned


def parse_history(history: object) -> tuple[Turn, ...]:
    """`[{"question", "answer"?, "cited"?: [ids]}, ...]`, oldest first; the last turns kept."""
    if history is None:
        return ()
    if not isinstance(history, list) or not all(isinstance(t, dict) for t in history):
        raise ApiError(
            422,
            "invalid_history",
            'history must be a list of {"question", "answer", "cited"} objects, '
            f"not {_json_type(history)}",
        )
    turns = []
    for position, turn in enumerate(history[-HISTORY_TURNS:]):
        where = f"history[{position}]"
        unknown = sorted(set(turn) - {"question", "answer", "cited"})
        answer_text = turn.get("answer", "")
        cited = turn.get("cited", [])
        if unknown or not isinstance(answer_text, str) or not _ids(cited):
            raise ApiError(
                422,
                "invalid_history",
                f'{where} must be {{"question": str, "answer": str, "cited": [str]}}'
                + (
                    f"; unknown field(s): {', '.join(repr(k[:40]) for k in unknown[:5])}"
                    if unknown
                    else ""
                ),
            )
        question = clean_question(turn.get("question"), HISTORY_CHARS, f"{where}.question")
        turns.append(Turn(question, answer_text[:HISTORY_CHARS], tuple(cited[:HISTORY_CITED])))
    return tuple(turns)


def _ids(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and len(v) < 300 for v in value)


def _check_content_type(content_type: str | None) -> None:
    if not content_type:
        raise ApiError(415, "unsupported_media_type", "no Content-Type; send application/json")
    media_type, _, parameters = content_type.partition(";")
    if media_type.strip().lower() != "application/json":
        raise ApiError(
            415,
            "unsupported_media_type",
            f"Content-Type is '{media_type.strip()[:80]}'; send application/json",
        )
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        charset = value.strip().strip('"').lower()
        if name.strip().lower() == "charset" and charset not in ("utf-8", "utf8"):
            raise ApiError(
                415, "unsupported_charset", f"charset '{charset[:40]}' is not supported; send UTF-8"
            )


def _json_type(value: object) -> str:
    names = {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)
