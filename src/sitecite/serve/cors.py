"""CORS for the sites that embed the widget: an allow-list of origins from `serve.cors_origins`.

A small ASGI middleware instead of Starlette's, so that a refused preflight is a JSON error
like every other refusal. An origin not on the list gets no CORS headers at all, so the
browser keeps the answer from that page's scripts; `"*"` allows every origin.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

ALLOWED_METHODS = "GET, POST, OPTIONS"
ALLOWED_HEADERS = "content-type"
EXPOSED_HEADERS = (
    "Retry-After, RateLimit-Limit, RateLimit-Remaining, X-Sitecite-Cache, X-Sitecite-Index"
)
PREFLIGHT_MAX_AGE = "600"


class CorsMiddleware:
    def __init__(self, app: ASGIApp, origins: Iterable[str]) -> None:
        self.app = app
        self.origins = frozenset(origin.rstrip("/") for origin in origins)
        self.any_origin = "*" in self.origins

    def allowed(self, origin: str) -> bool:
        return self.any_origin or origin in self.origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.lower(): value for name, value in scope["headers"]}
        origin = headers.get(b"origin", b"").decode("latin-1")
        if not origin:
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS" and b"access-control-request-method" in headers:
            await self._preflight(origin, headers[b"access-control-request-method"], send)
            return
        if not self.allowed(origin):
            await self.app(scope, receive, _vary(send))
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], *self._headers(origin)]
            await send(message)

        await self.app(scope, receive, send_with_cors)

    def _headers(self, origin: str) -> list[tuple[bytes, bytes]]:
        return [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-expose-headers", EXPOSED_HEADERS.encode()),
            (b"vary", b"Origin"),
        ]

    async def _preflight(self, origin: str, method: bytes, send: Send) -> None:
        if not self.allowed(origin):
            status, body = (
                403,
                _error(
                    "cors_origin_not_allowed", f"origin {origin[:100]} is not in serve.cors_origins"
                ),
            )
            headers = [(b"vary", b"Origin")]
        elif method.decode("latin-1").upper() not in ("GET", "POST"):
            status, body = (
                405,
                _error("method_not_allowed", "only GET and POST are allowed cross-origin"),
            )
            headers = [(b"vary", b"Origin")]
        else:
            status, body = 204, b""
            headers = [
                *self._headers(origin),
                (b"access-control-allow-methods", ALLOWED_METHODS.encode()),
                (b"access-control-allow-headers", ALLOWED_HEADERS.encode()),
                (b"access-control-max-age", PREFLIGHT_MAX_AGE.encode()),
            ]
        if body:
            headers += [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _vary(send: Send) -> Send:
    async def send_with_vary(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", []), (b"vary", b"Origin")]
        await send(message)

    return send_with_vary


def _error(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()
