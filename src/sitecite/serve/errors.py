"""Errors at the HTTP edge: every failure becomes `{"error": {"code", "message"}}` with a status.

Library errors (SiteciteError) are translated here and nowhere else; routing errors (404, 405)
get the same shape, so a client never has to parse two kinds of error body.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ExceptionHandler

from sitecite.errors import EmbedError, InputError, ProviderError, SiteciteError

log = logging.getLogger("sitecite.serve")

_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
}


class ApiError(Exception):
    """A request the server will not serve, with the status, a stable code and a message."""

    def __init__(
        self, status: int, code: str, message: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})


def error_response(
    status: int, code: str, message: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message}},
        status_code=status,
        headers=dict(headers or {}),
    )


def from_library(error: SiteciteError) -> ApiError:
    """The status a library error deserves: the caller's fault is 4xx, a dependency's is 503.
    Only a question's own fault is described; anything else is logged, and the response says
    no more than what failed (a provider's message may carry its URL, an index error a path)."""
    if isinstance(error, InputError):
        return ApiError(422, "invalid_question", str(error))
    log.error("answering failed: %s", error)
    if isinstance(error, ProviderError | EmbedError):
        return ApiError(
            503,
            "upstream_unavailable",
            "a model the answer needs is unavailable; try again shortly",
            {"Retry-After": "5"},
        )
    return ApiError(500, "internal_error", "the server failed to answer; the log says why")


async def _api_error(_: Request, error: Exception) -> Response:
    if not isinstance(error, ApiError):
        return await _unexpected(_, error)
    return error_response(error.status, error.code, error.message, error.headers)


async def _http_error(_: Request, error: Exception) -> Response:
    if not isinstance(error, HTTPException):
        return await _unexpected(_, error)
    code = _STATUS_CODES.get(error.status_code, "http_error")
    message = str(error.detail) if error.detail else code.replace("_", " ")
    return error_response(error.status_code, code, message, error.headers)


async def _unexpected(_: Request, error: Exception) -> Response:
    log.error("unexpected error while serving a request", exc_info=error)
    return error_response(500, "internal_error", "the server failed to answer; this is a bug")


EXCEPTION_HANDLERS: dict[object, ExceptionHandler] = {
    ApiError: _api_error,
    HTTPException: _http_error,
    Exception: _unexpected,
}
