"""MDX to Markdown: drop imports, exports and JSX markup, keep the prose inside it.

The output keeps every newline of the input, so line numbers reported later still
point at the right line of the original file. Code fences, inline code and LaTeX
math are copied untouched (their braces and angle brackets are not JSX).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sitecite.errors import IngestError

# Props whose string values are prose worth keeping; other props (className, src, ...) are markup.
_MARKUP_PROPS = {
    "classname",
    "class",
    "src",
    "href",
    "id",
    "style",
    "type",
    "canonical",
    "key",
    "width",
    "height",
    "variant",
    "size",
    "lang",
    "language",
    "rel",
    "target",
    "loading",
    "icon",
    "color",
    "align",
    "as",
    "slug",
    "layout",
    "theme",
    "data",
    "ref",
    "priority",
    "fill",
    "sizes",
    "role",
    "tabindex",
    "allow",
    "frameborder",
    "name",
    "format",
    "mode",
}
# Elements whose content is code or media, never prose.
_DROP_CONTENT = {"script", "style", "svg", "video", "audio", "math", "pre", "object", "canvas"}
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ESM = re.compile(r"^(import|export)\b")
_TAG_START = re.compile(r"<(/?)([A-Za-z][\w.:-]*)?")
_AUTOLINK = re.compile(r"<(?:https?|mailto|ftp):[^\s>]*>", re.I)
_STRING_EXPR = re.compile(
    r"""\{\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`([^`$]*)`)\s*\}""", re.S
)


@dataclass
class _Scan:
    text: str
    path: str
    pos: int = 0

    def line_at(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1


def mdx_to_markdown(source: str, path: str = "") -> str:
    """Remove ESM statements and JSX from MDX source; keep prose, code and math verbatim."""
    lines = source.split("\n")
    out: list[str] = []
    i = 0
    fence: str | None = None
    while i < len(lines):
        line = lines[i]
        match = _FENCE.match(line)
        if fence is not None:
            out.append(line)
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            i += 1
            continue
        if match:
            fence = match.group(1)
            out.append(line)
            i += 1
            continue
        if _ESM.match(line):
            end = _esm_end(lines, i, path)
            out.extend([""] * (end - i + 1))
            i = end + 1
            continue
        # Gather a paragraph-ish run of non-fence lines and strip JSX across it (tags span lines).
        j = i
        while (
            j < len(lines) and not _FENCE.match(lines[j]) and not (j > i and _ESM.match(lines[j]))
        ):
            j += 1
        chunk = "\n".join(lines[i:j])
        out.append(_strip_jsx(chunk, path, first_line=i + 1))
        i = j
    return "\n".join(out)


def _esm_end(lines: list[str], start: int, path: str) -> int:
    """Index of the last line of an import/export statement (balanced brackets, no dangling op)."""
    depth = 0
    quote: str | None = None
    for index in range(start, len(lines)):
        line = lines[index]
        k = 0
        while k < len(line):
            char = line[k]
            if quote:
                if char == "\\":
                    k += 1
                elif char == quote:
                    quote = None
            elif char in "\"'`":
                quote = char
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
            elif char == "/" and line[k : k + 2] == "//":
                break
            k += 1
        stripped = line.rstrip()
        continues = stripped.endswith(("=", "=>", ",", "(", "{", "[", "+", "&&", "||", "?", ":"))
        if depth <= 0 and quote is None and not continues:
            return index
        if quote in ("'", '"'):
            quote = None  # plain strings never span lines
    raise IngestError("unterminated import/export statement", path, start + 1)


def _strip_jsx(chunk: str, path: str, first_line: int) -> str:
    scan = _Scan(chunk, path)
    out: list[str] = []
    i = 0
    n = len(chunk)
    while i < n:
        char = chunk[i]
        if char == "`":
            end = _inline_code_end(chunk, i)
            out.append(chunk[i:end])
            i = end
        elif char == "$":
            end = _math_end(chunk, i)
            out.append(chunk[i:end])
            i = end
        elif char == "\\" and i + 1 < n:
            out.append(chunk[i : i + 2])
            i += 2
        elif chunk.startswith("<!--", i):
            end = chunk.find("-->", i)
            end = n if end < 0 else end + 3
            out.append(_newlines(chunk[i:end]))
            i = end
        elif char == "<" and not _AUTOLINK.match(chunk, i):
            parsed = _parse_tag(chunk, i)
            if parsed is None:
                out.append(char)
                i += 1
                continue
            end, replacement, tag = parsed
            if tag.kind == "open" and tag.name.lower() in _DROP_CONTENT:
                close = re.compile(rf"</{re.escape(tag.name)}\s*>", re.I).search(chunk, end)
                end = len(chunk) if close is None else close.end()
            out.append(replacement + _newlines(chunk[i:end]))
            i = end
        elif char == "{":
            closing = _balanced_end(chunk, i, "{", "}")
            if closing is None:
                line = first_line + scan.line_at(i) - 1
                raise IngestError("unbalanced '{' in a JSX expression", path, line)
            end = closing
            literal = _STRING_EXPR.fullmatch(chunk, i, end)
            if literal:
                out.append(next(g for g in literal.groups() if g is not None))
            out.append(_newlines(chunk[i:end]))
            i = end
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _newlines(text: str) -> str:
    return "\n" * text.count("\n")


def _inline_code_end(text: str, start: int) -> int:
    ticks = len(text[start:]) - len(text[start:].lstrip("`"))
    close = text.find("`" * ticks, start + ticks)
    return start + ticks if close < 0 else close + ticks


def _math_end(text: str, start: int) -> int:
    delimiter = "$$" if text.startswith("$$", start) else "$"
    close = text.find(delimiter, start + len(delimiter))
    if close < 0 or (delimiter == "$" and "\n\n" in text[start:close]):
        return start + len(delimiter)
    return close + len(delimiter)


def _balanced_end(text: str, start: int, opener: str, closer: str) -> int | None:
    depth = 0
    quote: str | None = None
    i = start
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = None
        elif char in "\"'`":
            quote = char
        elif char == opener:
            depth += 1
        elif char == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


@dataclass(frozen=True)
class _Tag:
    name: str
    kind: str  # "open", "close" or "self"


_ATTR_NAME = re.compile(r"\s*([A-Za-z_:][\w:.-]*)")


def _parse_tag(text: str, start: int) -> tuple[int, str, _Tag] | None:
    """Parse a JSX/HTML tag at `start`; return (end, prose to keep) or None if it is not a tag."""
    if text.startswith("<>", start):
        return start + 2, "", _Tag("", "open")
    if text.startswith("</>", start):
        return start + 3, "", _Tag("", "close")
    match = _TAG_START.match(text, start)
    if not match or match.group(2) is None:
        return None
    closing = bool(match.group(1))
    name = match.group(2)
    i = match.end()
    props: list[tuple[str, str]] = []
    while i < len(text):
        while i < len(text) and text[i].isspace():
            i += 1
        if text.startswith("/>", i):
            return i + 2, _props_prose(props), _Tag(name, "self")
        if i < len(text) and text[i] == ">":
            return i + 1, "" if closing else " ", _Tag(name, "close" if closing else "open")
        if i < len(text) and text[i] == "{":  # spread props: {...rest}
            end = _balanced_end(text, i, "{", "}")
            if end is None:
                return None
            i = end
            continue
        attr = _ATTR_NAME.match(text, i)
        if not attr:
            return None
        name = attr.group(1)
        i = attr.end()
        if text.startswith("=", i):
            i += 1
            value, i = _attr_value(text, i)
            if i < 0:
                return None
            if value is not None:
                props.append((name, value))
    return None


def _attr_value(text: str, i: int) -> tuple[str | None, int]:
    if i >= len(text):
        return None, -1
    char = text[i]
    if char in "\"'":
        close = text.find(char, i + 1)
        return (None, -1) if close < 0 else (text[i + 1 : close], close + 1)
    if char == "{":
        end = _balanced_end(text, i, "{", "}")
        if end is None:
            return None, -1
        literal = _STRING_EXPR.fullmatch(text, i, end)
        return (next(g for g in literal.groups() if g is not None) if literal else None), end
    return None, -1


def _props_prose(props: list[tuple[str, str]]) -> str:
    """Prose for a self-closing component.

    `<Metric label="LCP" before="4.1 s" />` becomes `LCP: before 4.1 s.`"""
    kept = [(k, v.strip()) for k, v in props if k.lower() not in _MARKUP_PROPS and v.strip()]
    kept = [(k, v) for k, v in kept if not v.startswith(("/", "./", "http", "#"))]
    kept = [(k, v) for n, (k, v) in enumerate(kept) if v not in [w for _, w in kept[:n]]]
    if not kept:
        return " "
    lead_keys = ("title", "label", "caption", "alt", "heading", "text", "quote")
    lead = next((v for k, v in kept if k.lower() in lead_keys), None)
    rest = [(k, v) for k, v in kept if v != lead]
    details = ", ".join(f"{k} {v}" for k, v in rest)
    if lead and details:
        return f" {lead}: {details}. "
    return f" {lead or details}. "
