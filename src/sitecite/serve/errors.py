"""Errors at the HTTP edge: every failure becomes `{"error": {"code", "message"}}` with a status.

Library errors (SiteciteError) are translated here and nowhere else; routing errors (404, 405)
get the same shape, so a client never has to parse two kinds of error body.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

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
    """The status a library error deserves: the caller's fault is 4xx, a dependency's is 503."""
    if isinstance(error, InputError):
        return ApiError(422, "invalid_question", str(error))
    if isinstance(error, ProviderError | EmbedError):
        return ApiError(503, "upstream_unavailable", str(error), {"Retry-After": "5"})
    return ApiError(500, "internal_error", str(error))


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_: Request, error: ApiError) -> JSONResponse:
        return error_response(error.status, error.code, error.message, error.headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, error: StarletteHTTPException) -> JSONResponse:
        code = _STATUS_CODES.get(error.status_code, "http_error")
        message = str(error.detail) if error.detail else code.replace("_", " ")
        return error_response(error.status_code, code, message, error.headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()))
        return error_response(422, "invalid_request", f"{where}: {first.get('msg', 'invalid')}")

    @app.exception_handler(Exception)
    async def unexpected(_: Request, error: Exception) -> JSONResponse:
        log.error("unexpected error while serving a request", exc_info=error)
        return error_response(500, "internal_error", "the server failed to answer; this is a bug")
