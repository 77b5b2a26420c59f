"""JSX pieces inside MDX: tags, their props, expressions and the prose they carry.

A prop's string is prose unless the prop is markup (`className`, `href`, `style`, ...);
object and array literals are searched for such strings too, so
`<Timeline events={[{title: "GAN era", when: "2019"}]} />` keeps "GAN era" and "2019",
while `style={{color: "black"}}` keeps nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Props (and object keys) whose values are markup, never prose.
MARKUP_PROPS = frozenset(
    "classname class src href id style type canonical key width height variant size lang "
    "language rel target loading icon color align as slug layout theme data ref priority fill "
    "sizes role tabindex allow frameborder name format mode backgroundcolor background url "
    "path file filename toheading fromheading toc".split()
)
_TAG_START = re.compile(r"<(/?)([A-Za-z][\w.:-]*)?")
_ATTR_NAME = re.compile(r"\s*([A-Za-z_:][\w:.-]*)")
_STRING_EXPR = re.compile(
    r"""\{\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`([^`$]*)`)\s*\}""", re.S
)
# A string literal, optionally preceded by the object key it is the value of.
KEYED_STRING = re.compile(
    r"""(?:([A-Za-z_$][\w$]*)\s*:\s*)?(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`$]*)`)"""
)
_LEAD_KEYS = ("title", "label", "caption", "alt", "heading", "text", "quote")


@dataclass(frozen=True)
class Tag:
    """A parsed tag: where it ends, its name, its kind and the prose its props carry."""

    end: int
    name: str
    kind: str  # "open", "close" or "self"
    props: tuple[tuple[str, str], ...] = ()


def balanced_end(text: str, start: int, opener: str = "{", closer: str = "}") -> int | None:
    """Index just past the bracket that closes the one at `start`, skipping quoted strings."""
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


def string_literal(expression: str) -> str | None:
    """The value of `{"text"}`, `{'text'}` or a template literal without substitutions."""
    literal = _STRING_EXPR.fullmatch(expression)
    return None if literal is None else next(g for g in literal.groups() if g is not None)


def literal_prose(expression: str) -> list[str]:
    """Prose strings inside an object or array literal: values of non-markup keys."""
    found = []
    for match in KEYED_STRING.finditer(expression):
        key = (match.group(1) or "").lower()
        value = next(g for g in match.groups()[1:] if g is not None).strip()
        if key not in MARKUP_PROPS and _looks_like_prose(value):
            found.append(value)
    return found


def _looks_like_prose(value: str) -> bool:
    """Sentences, names and figures; not paths, URLs, colours or lower-case tokens (`w-full`)."""
    if not any(c.isalnum() for c in value) or value.startswith(("/", "./", "../", "#", "http")):
        return False
    return " " in value or value[:1].isupper() or any(c.isdigit() for c in value)


def parse_tag(text: str, start: int) -> Tag | None:
    """Parse a JSX/HTML tag at `start`, or None if the `<` does not start one."""
    if text.startswith("<>", start):
        return Tag(start + 2, "", "open")
    if text.startswith("</>", start):
        return Tag(start + 3, "", "close")
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
            return Tag(i + 2, name, "self", tuple(props))
        if i < len(text) and text[i] == ">":
            return Tag(i + 1, name, "close" if closing else "open", tuple(props))
        if i < len(text) and text[i] == "{":  # spread props: {...rest}
            end = balanced_end(text, i)
            if end is None:
                return None
            i = end
            continue
        attr = _ATTR_NAME.match(text, i)
        if not attr:
            return None
        prop = attr.group(1)
        i = attr.end()
        if text.startswith("=", i):
            values, keyed, i = _attr_values(text, i + 1)
            if i < 0:
                return None
            props.extend((prop if keyed else "", value) for value in values)
    return None


def _attr_values(text: str, i: int) -> tuple[list[str], bool, int]:
    """The prose strings of one prop value, whether they are the prop's own value (not found
    inside an object or array literal), and where the value ends (-1 if malformed)."""
    if i >= len(text):
        return [], True, -1
    char = text[i]
    if char in "\"'":
        close = text.find(char, i + 1)
        return ([], True, -1) if close < 0 else ([text[i + 1 : close]], True, close + 1)
    if char == "{":
        end = balanced_end(text, i)
        if end is None:
            return [], True, -1
        literal = string_literal(text[i:end])
        if literal is not None:
            return [literal], True, end
        return literal_prose(text[i + 1 : end - 1]), False, end
    return [], True, -1


def props_prose(props: tuple[tuple[str, str], ...]) -> str:
    """Prose for a self-closing component.

    `<Metric label="LCP" before="4.1 s" />` becomes `LCP: before 4.1 s.`"""
    kept = [(k, v.strip()) for k, v in props if k.lower() not in MARKUP_PROPS and v.strip()]
    kept = [(k, v) for k, v in kept if not v.startswith(("/", "./", "http", "#"))]
    kept = [(k, v) for n, (k, v) in enumerate(kept) if v not in [w for _, w in kept[:n]]]
    if not kept:
        return " "
    lead = next((v for k, v in kept if k.lower() in _LEAD_KEYS), None)
    rest = [(k, v) for k, v in kept if v != lead]
    details = ", ".join(f"{k} {v}" if k else v for k, v in rest)
    text = f"{lead}: {details}" if lead and details else lead or details
    return f" {text} " if text.endswith((".", "!", "?")) else f" {text}. "
