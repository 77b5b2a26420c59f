"""`serve.allowed_origins`: asks and feedback only from the owner's own site (403 otherwise).

CORS decides what a browser may read; this decides what the server will answer at all, so
another site cannot spend the owner's LLM budget through the widget. The server's own pages
(the demo page, the lab) are always allowed. A request without an Origin header (a script,
curl) is refused too while a list is set; a script can forge the header, so this keeps other
sites' widgets out, not a determined client (the rate limit and the budget do that).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request

from sitecite.errors import ConfigError
from sitecite.serve.errors import ApiError


def origin_of(url: str) -> str:
    """scheme://host[:port], lower-cased, default ports dropped; "" if it is not a web URL."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return ""
    default = {"http": 80, "https": 443}[parts.scheme]
    port = f":{parts.port}" if parts.port and parts.port != default else ""
    return f"{parts.scheme}://{parts.hostname.lower()}{port}"


class OriginCheck:
    def __init__(self, allowed: list[str]) -> None:
        self.allowed = set()
        for entry in allowed:
            origin = origin_of(entry)
            if not origin:
                raise ConfigError(
                    f"bad setting 'serve.allowed_origins': '{entry}' is not an origin like "
                    "https://example.com"
                )
            self.allowed.add(origin)

    @property
    def enabled(self) -> bool:
        return bool(self.allowed)

    def check(self, request: Request) -> None:
        """Raise a 403 unless the request comes from an allowed origin (or the server's own)."""
        if not self.allowed:
            return
        sent = request.headers.get("origin")
        if sent is None:
            raise ApiError(
                403,
                "origin_not_allowed",
                "no Origin header: this server answers only pages of "
                + ", ".join(sorted(self.allowed)),
            )
        origin = origin_of(sent)
        if origin in self.allowed or origin == origin_of(str(request.base_url)):
            return
        raise ApiError(
            403,
            "origin_not_allowed",
            f"origin '{sent[:100]}' is not allowed: this server answers only pages of "
            + ", ".join(sorted(self.allowed)),
        )
