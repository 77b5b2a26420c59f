"""The settings in force as the owner may print them (`sitecite serve --print-settings`): every
value as it is, except secrets. API keys, tokens and passwords become whether they are set,
and credentials inside URLs are removed, so the output can be pasted into an issue. No public
page shows settings.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from sitecite.config import Settings

_SECRET_KEY = re.compile(
    r"(api_?key|token|secret|password|passwd|authori[sz]ation|credential)$", re.I
)
_SECRET_PARAM = re.compile(r"(key|token|secret|password|passwd|signature|sig|auth)", re.I)
REDACTED = "(set, hidden)"
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def redact(value: Any, key: str = "") -> Any:
    """A copy of a settings value that is safe to publish."""
    if _SECRET_KEY.search(key):
        return REDACTED if value else "(not set)"
    if isinstance(value, dict):
        return {name: redact(item, name) for name, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact(item, key) for item in value]
    if isinstance(value, str) and "://" in value:
        return _redact_url(value)
    return value


def _redact_url(url: str) -> str:
    try:
        parts = urlsplit(url)
        netloc = parts.netloc.rsplit("@", 1)[-1]
        query = urlencode(
            [
                (name, "REDACTED" if _SECRET_PARAM.search(name) else item)
                for name, item in parse_qsl(parts.query, keep_blank_values=True)
            ]
        )
        return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
    except ValueError:
        return "(unparseable URL, hidden)"


def _flatten(data: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for name, value in data.items():
        if isinstance(value, dict) and value and not _SECRET_KEY.search(name):
            rows += _flatten(value, f"{prefix}{name}.")
        else:
            rows.append((f"{prefix}{name}", value))
    return rows


def _toml(value: Any) -> str:
    """A TOML value: strings as basic strings, lists as arrays, dicts as inline tables."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(item) for item in value if item is not None) + "]"
    if isinstance(value, dict):
        pairs = [
            f"{key if _BARE_KEY.fullmatch(key) else json.dumps(key)} = {_toml(item)}"
            for key, item in value.items()
            if item is not None
        ]
        return "{ " + ", ".join(pairs) + " }" if pairs else "{}"
    return json.dumps(str(value), ensure_ascii=False)


def settings_toml(settings: Settings) -> str:
    """The settings in force as TOML dotted keys (`serve.port = 8000`); a secret, or a setting
    left to its computed default, is a comment saying so, never its value."""
    lines = ["# sitecite settings in force (secrets hidden); see docs/settings.md"]
    for name, value in _flatten(redact(settings.model_dump())):
        if value is None or (_SECRET_KEY.search(name) and value in (REDACTED, "(not set)")):
            lines.append(f"# {name} = {value or '(default)'}")
        else:
            lines.append(f"{name} = {_toml(value)}")
    return "\n".join(lines) + "\n"
