"""Front matter (YAML between `---` lines, TOML between `+++` lines, or Pelican's and
MultiMarkdown's `Key: value` header lines), read so a bad one never loses the page: every
problem is a warning naming the file and line, and what can be read is kept. A date the
generator accepts but Python's calendar does not (`date: 2021-02-29`) is dropped with a
warning; broken YAML keeps the keys whose own lines still parse.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from sitecite.errors import IngestError

Warn = Callable[[IngestError], None]
_YAML_END = re.compile(r"^(---|\.\.\.)\s*$")
_TOML_END = re.compile(r"^\+\+\+\s*$")
_TOP_KEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*[:=]")
_TOML_LINE = re.compile(r"at line (\d+)")


class _Invalid:
    """A value that could not be read (an impossible date): its key is dropped."""


INVALID = _Invalid()


@dataclass
class FrontMatter:
    """The front matter's keys, the body after it, and how many lines it took."""

    data: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    offset: int = 0


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader whose timestamps never raise: an impossible one becomes INVALID."""

    bad_dates: list[tuple[int, str, str]]


def _timestamp(loader: _Loader, node: yaml.ScalarNode) -> Any:
    try:
        return yaml.SafeLoader.construct_yaml_timestamp(loader, node)
    except (ValueError, OverflowError) as exc:
        loader.bad_dates.append((node.start_mark.line, str(node.value), str(exc)))
        return INVALID


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)


def load_yaml(text: str, path: str, warn: Warn, first_line: int = 1) -> Any:
    """YAML with impossible dates dropped (each a warning); raises yaml.YAMLError on syntax."""
    loader = _Loader(text)
    loader.bad_dates = []
    try:
        data = loader.get_single_data()
    finally:
        loader.dispose()
    for line, value, reason in loader.bad_dates:
        warn(IngestError(f"invalid date '{value}' ({reason}): dropped", path, first_line + line))
    return normalise(data)


def normalise(value: Any) -> Any:
    """Dates become ISO strings (metadata stays JSON-serialisable); unreadable values go."""
    if isinstance(value, dict):
        return {str(k): normalise(v) for k, v in value.items() if v is not INVALID}
    if isinstance(value, list):
        return [normalise(v) for v in value if v is not INVALID]
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return value


def yaml_problem(exc: yaml.YAMLError, first_line: int) -> tuple[str, int]:
    """The message and file line of a YAML syntax error."""
    mark = getattr(exc, "problem_mark", None)
    line = first_line + mark.line if mark is not None else first_line
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return str(problem), line


def split_frontmatter(source: str, path: str, warn: Warn, headers: bool = False) -> FrontMatter:
    """The front matter of a file that opens with `---` (YAML) or `+++` (TOML), else (with
    `headers`, for Markdown) its metadata header, else none.

    Never raises: an unclosed block is read as body, a broken one keeps what its lines say."""
    lines = source.split("\n")
    opener = lines[0].strip() if lines else ""
    if opener not in ("---", "+++"):
        return (metadata_header(lines) if headers else None) or FrontMatter({}, source, 0)
    end = _YAML_END if opener == "---" else _TOML_END
    close = next((i for i in range(1, len(lines)) if end.match(lines[i])), None)
    if close is None:
        if opener == "+++":
            warn(IngestError("front matter opened with '+++' is never closed", path, 1))
        return FrontMatter({}, source, 0)  # a `---` that never closes is a thematic break
    raw = "\n".join(lines[1:close])
    reader = _read_yaml if opener == "---" else _read_toml
    data = reader(raw, path, warn) if raw.strip() else {}
    return FrontMatter(data, "\n".join(lines[close + 1 :]), close + 1)


# Python-Markdown's meta extension (Pelican, MultiMarkdown): `Key: value` lines up to the first
# blank line, a value continued on indented lines. Read only when the first key is one such
# generators document, so a page that opens with "Note: ..." stays prose.
HEADER_KEYS = frozenset(
    "title date modified tags category slug author authors summary lang translation status "
    "template save_as url series subtitle".split()
)
LIST_KEYS = ("tags", "authors", "keywords")  # Pelican splits these on commas
_HEADER_LINE = re.compile(r"^([A-Za-z][\w-]*):[ \t]*(.*)$")


def metadata_header(lines: list[str]) -> FrontMatter | None:
    """The `Key: value` header of a Markdown file, or None when it has none."""
    first = _HEADER_LINE.match(lines[0]) if lines else None
    if first is None or first.group(1).lower() not in HEADER_KEYS:
        return None
    data: dict[str, Any] = {}
    key = ""
    end = len(lines)
    for number, line in enumerate(lines):
        if not line.strip():
            end = number
            break
        found = _HEADER_LINE.match(line)
        if found:
            key = found.group(1).lower()
            data[key] = found.group(2).strip()
        elif line[:1] in (" ", "\t") and key:
            data[key] = f"{data[key]} {line.strip()}".strip()
        else:
            return None  # prose, not a header
    if len(data) < 2 and "title" not in data:
        return None
    for name in LIST_KEYS:
        if isinstance(data.get(name), str):
            data[name] = [v.strip() for v in data[name].split(",") if v.strip()]
    return FrontMatter(data, "\n".join(lines[end:]), end)


def _read_yaml(raw: str, path: str, warn: Warn) -> dict[str, Any]:
    try:
        data = load_yaml(raw, path, warn, first_line=2)
    except yaml.YAMLError as exc:
        problem, line = yaml_problem(exc, 2)
        warn(
            IngestError(
                f"invalid YAML front matter: {problem}; kept the keys it could read", path, line
            )
        )
        return _by_lines(raw, lambda text: load_yaml(text, path, warn), path)
    if not isinstance(data, dict):
        warn(IngestError("front matter is not a mapping of keys to values: ignored", path, 2))
        return {}
    return data


def _read_toml(raw: str, path: str, warn: Warn) -> dict[str, Any]:
    try:
        return dict(normalise(tomllib.loads(raw)))
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_LINE.search(str(exc))
        line = 1 + int(found.group(1)) if found else 2
        problem = str(exc).split(" (at ")[0]
        warn(
            IngestError(
                f"invalid TOML front matter: {problem}; kept the keys it could read", path, line
            )
        )
        return _by_lines(raw, lambda text: normalise(tomllib.loads(text)), path)


def _by_lines(raw: str, parse: Callable[[str], Any], path: str) -> dict[str, Any]:
    """Each top-level key whose own lines (the key's line and the indented ones after it)
    still parse on their own."""
    chunks: list[list[str]] = []
    for line in raw.split("\n"):
        if _TOP_KEY.match(line) or not chunks:
            chunks.append([line])
        else:
            chunks[-1].append(line)
    kept: dict[str, Any] = {}
    for chunk in chunks:
        try:
            value = parse("\n".join(chunk))
        except Exception:  # noqa: BLE001 - any parser error: this key is unreadable
            continue
        if isinstance(value, dict):
            kept.update(value)
    return kept
