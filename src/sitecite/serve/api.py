"""`POST /api/ask` and `GET /api/health`.

The body is read and checked by hand rather than by FastAPI's model binding, so that every
bad request (too big, wrong content type, not UTF-8, not JSON, no question, wrong type, too
long) gets its own status and a message naming the problem, in the one error shape. The
pydantic models below describe the same contract for the OpenAPI schema.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from sitecite.errors import InputError
from sitecite.pipeline import validate_question
from sitecite.serve.errors import ApiError
from sitecite.serve.service import ServerState
from sitecite.types import SCORE_LABEL


class AskRequest(BaseModel):
    question: str = Field(min_length=1, max_length=500, examples=["Where is Noor based?"])


class CitationModel(BaseModel):
    n: int
    id: str
    title: str
    heading: str
    url: str
    score: float


class RetrievedModel(BaseModel):
    id: str
    score: float
    rank: int
    admitted: bool


class AnswerModel(BaseModel):
    question: str
    refused: bool
    answer: str = Field(description="Answer text with citation markers like [1], or the refusal.")
    citations: list[CitationModel]
    score: float = Field(description=SCORE_LABEL + "; not a confidence")
    score_label: str = SCORE_LABEL
    generator: str
    latency_ms: float
    retrieved: list[RetrievedModel]


class ErrorDetail(BaseModel):
    code: str = Field(examples=["question_too_long"])
    message: str


class ErrorModel(BaseModel):
    error: ErrorDetail


class HealthModel(BaseModel):
    status: str
    index_id: str
    embedder: str
    sections: int
    threshold: float
    updated: str
    generator: str


_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorModel, "description": description}
    for status, description in (
        (400, "The body is not valid UTF-8 or not a JSON object."),
        (413, "The body is larger than serve.max_body_bytes."),
        (415, "The content type is not application/json."),
        (422, "The question is missing, empty, not a string or too long."),
        (429, "Too many questions from this address; see Retry-After."),
    )
}

router = APIRouter(prefix="/api")


@router.post(
    "/ask",
    summary="Answer a question from the site, with citations, or refuse",
    response_model=None,
    responses={200: {"model": AnswerModel, "description": "An answer or a refusal."}, **_ERRORS},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": AskRequest.model_json_schema()}},
        }
    },
)
async def ask(request: Request) -> Response:
    state: ServerState = request.app.state.sitecite
    settings = state.settings.serve
    client = state.client_address.resolve(
        request.client.host if request.client else "unknown", request.scope["headers"]
    )
    verdict = state.limiter.take(client)
    limit_headers = (
        {
            "RateLimit-Limit": f"{settings.rate_limit_per_minute:g}",
            "RateLimit-Remaining": str(verdict.remaining),
        }
        if state.limiter.enabled
        else {}
    )
    if not verdict.allowed:
        raise ApiError(
            429,
            "rate_limited",
            f"too many questions from {client}: the limit is "
            f"{settings.rate_limit_per_minute:g} a minute; try again in {verdict.retry_after} s",
            {"Retry-After": str(verdict.retry_after), **limit_headers},
        )
    question = parse_question(
        await read_body(request, settings.max_body_bytes),
        request.headers.get("content-type"),
        settings.max_question_chars,
    )
    served = await state.service.ask(question)
    return Response(
        served.body,
        media_type="application/json",
        headers={
            "X-Sitecite-Cache": served.cache,
            "X-Sitecite-Index": served.index_id,
            "Cache-Control": "no-store",
            **limit_headers,
        },
    )


@router.get("/health", summary="Which index is being served", response_model=HealthModel)
async def health(request: Request) -> dict[str, Any]:
    state: ServerState = request.app.state.sitecite
    engine = state.service.live.current.engine
    return {
        "status": "ok",
        "index_id": engine.index.id,
        "embedder": engine.embedder.id,
        "sections": len(engine.index.sections),
        "threshold": round(engine.threshold, 4),
        "updated": str(engine.index.manifest.get("updated", "")),
        "generator": engine.settings.generator,
    }


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
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, "body_too_large", f"the body is over the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def parse_question(body: bytes, content_type: str | None, max_chars: int) -> str:
    """The cleaned question from a body `{"question": "..."}`, or an ApiError naming the fault."""
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
        raise ApiError(400, "empty_body", 'the body is empty; send {"question": "..."}')
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
            f'the body must be a JSON object {{"question": "..."}}, not {_json_type(data)}',
        )
    unknown = sorted(set(data) - {"question"})
    if unknown:
        raise ApiError(
            422,
            "unknown_field",
            "unknown field(s): "
            + ", ".join(repr(k[:40]) for k in unknown[:5])
            + '; the body takes only "question"',
        )
    if "question" not in data:
        raise ApiError(422, "missing_question", 'the body has no "question" field')
    question = data["question"]
    if not isinstance(question, str):
        raise ApiError(
            422, "question_not_string", f"question must be a string, not {_json_type(question)}"
        )
    try:
        cleaned = validate_question(question, max_chars)
    except InputError as error:
        code = "empty_question" if not question.split() else "question_too_long"
        raise ApiError(422, code, str(error)) from error
    try:
        cleaned.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ApiError(
            422,
            "invalid_question",
            f"question contains an unpaired UTF-16 surrogate (\\u{ord(cleaned[error.start]):04x})",
        ) from error
    return cleaned


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
