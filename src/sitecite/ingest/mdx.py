"""MDX to Markdown: drop imports, exports and JSX markup, keep the prose inside it.

The output keeps every newline of the input, so line numbers reported later still
point at the right line of the original file. Code fences, inline code and LaTeX
math are copied untouched (their braces and angle brackets are not JSX). Two kinds of
ESM block carry content: `export const metadata = {title: ..., description: ...}`
(Next.js) is read like front matter, and a component defined in the file
(`export const Note = () => (<p>...</p>)`) is replaced, where it is used, by the prose
its JSX renders.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from sitecite.errors import IngestError
from sitecite.ingest.frontmatter import Warn
from sitecite.ingest.jsx import (
    KEYED_STRING,
    Tag,
    balanced_end,
    literal_prose,
    parse_tag,
    props_prose,
    string_literal,
)

# Elements whose content is code or media, never prose.
_DROP_CONTENT = {"script", "style", "svg", "video", "audio", "math", "pre", "object", "canvas"}
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ESM = re.compile(r"^(import|export)\b")
_AUTOLINK = re.compile(r"<(?:https?|mailto|ftp):[^\s>]*>", re.I)
_COMPONENT = re.compile(r"^export\s+(?:const|let|function)\s+([A-Z][\w$]*)")
_METADATA = re.compile(r"^export\s+const\s+(?:metadata|meta|frontmatter)\s*[:=]")
_ATX_HEADING = re.compile(r" {0,3}#{1,6}[ \t]")
HEADING_JSX = "\u200b"  # zero-width space: invisible, and dropped by slugify
_TITLE_COMPONENT = re.compile(r"(?:Page|Post|Article)?Title|H1")
_HEADING_ID = re.compile(r"\{#[\w.:-]+\}")
_JSX_START = re.compile(r"(?:=>|return)\s*\(?\s*<")


@dataclass
class MdxDocument:
    """The Markdown left after stripping, and the string fields of an exported metadata object."""

    markdown: str
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass
class _Scan:
    text: str
    path: str
    components: dict[str, str]
    math: bool = True  # LaTeX math exists in Markdown prose, not inside a component's JSX
    warn: Warn | None = None

    def line_at(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1


def mdx_to_markdown(source: str, path: str = "") -> str:
    """Remove ESM statements and JSX from MDX source; keep prose, code and math verbatim."""
    return convert_mdx(source, path).markdown


def convert_mdx(
    source: str,
    path: str = "",
    warn: Warn | None = None,
    resolve: Callable[[str], str | None] | None = None,
) -> MdxDocument:
    """MDX -> Markdown plus the exported metadata; line numbers are preserved. Never raises:
    unbalanced braces and unterminated statements are warnings (`warn`), read as text."""
    lines = source.split("\n")
    out: list[str] = []
    document = MdxDocument("")
    components: dict[str, str] = {}
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
            end = _esm_end(lines, i)
            if end is None:
                _warn(warn, IngestError("unterminated import/export statement", path, i + 1))
                end = i
            statement = "\n".join(lines[i : end + 1])
            _read_esm(statement, document, components, path)
            _import_partial(statement, components, resolve)
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
        out.append(_strip_jsx(_Scan(chunk, path, components, warn=warn), first_line=i + 1))
        i = j
    document.markdown = "\n".join(out)
    return document


def _read_esm(statement: str, document: MdxDocument, components: dict[str, str], path: str) -> None:
    """Keep what an ESM block says about the page: metadata fields and local components."""
    if _METADATA.match(statement):
        for match in KEYED_STRING.finditer(statement):
            key = match.group(1)
            value = next(g for g in match.groups()[1:] if g is not None)
            if key and value.strip():
                document.metadata.setdefault(key, " ".join(value.split()))
        return
    component = _COMPONENT.match(statement)
    jsx = _JSX_START.search(statement)
    if component is None or jsx is None:
        return
    body = statement[jsx.end() - 1 : statement.rfind(">") + 1]
    rendered = _strip_jsx(_Scan(body, path, dict(components), math=False), first_line=1)
    components[component.group(1)] = " ".join(rendered.split())


_PARTIAL = re.compile(r"""^import\s+([A-Z][\w$]*)\s+from\s+["']([^"']+\.mdx?)["']""")


def _import_partial(
    statement: str, components: dict[str, str], resolve: Callable[[str], str | None] | None
) -> None:
    """`import Partial from './_partial.mdx'`: the partial's prose, where `<Partial />` is."""
    found = _PARTIAL.match(statement)
    if found is None or resolve is None:
        return
    text = resolve(found.group(2))
    if text is not None:
        components[found.group(1)] = " ".join(convert_mdx(text).markdown.split())


def _esm_end(lines: list[str], start: int) -> int | None:
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
    return None


def _strip_jsx(scan: _Scan, first_line: int) -> str:
    chunk = scan.text
    out: list[str] = []
    i = 0
    n = len(chunk)
    while i < n:
        char = chunk[i]
        if char == "`":
            end = _inline_code_end(chunk, i)
            out.append(chunk[i:end])
        elif char == "$" and scan.math:
            end = _math_end(chunk, i)
            out.append(chunk[i:end])
        elif char == "\\" and i + 1 < n:
            end = i + 2
            out.append(chunk[i:end])
        elif chunk.startswith("<!--", i):
            end = chunk.find("-->", i)
            end = n if end < 0 else end + 3
            out.append(_newlines(chunk[i:end]))
        elif char == "<" and not _AUTOLINK.match(chunk, i):
            end = _tag(scan, i, out)
        elif char == "{":
            end = _expression(scan, i, first_line, out)
        else:
            end = i + 1
            out.append(char)
        i = end
    return "".join(out)


def _tag(scan: _Scan, start: int, out: list[str]) -> int:
    """Replace the tag at `start` by the prose it carries; returns where scanning resumes."""
    chunk = scan.text
    tag = parse_tag(chunk, start)
    if tag is None:
        out.append("<")
        return start + 1
    end = tag.end
    if tag.kind == "open" and _TITLE_COMPONENT.fullmatch(tag.name):
        title_end = _title_heading(scan, start, tag, out)
        if title_end is not None:
            return title_end
    if tag.kind == "open" and tag.name.lower() in _DROP_CONTENT | {"code"}:
        close = re.compile(rf"</{re.escape(tag.name)}\s*>", re.I).search(chunk, end)
        block = close is not None and "\n" in chunk[end : close.start()]
        if tag.name.lower() != "code" or block:  # a one-line <code> is inline code: kept
            end = len(chunk) if close is None else close.end()
    if _ATX_HEADING.match(chunk, chunk.rfind("\n", 0, start) + 1):
        # In a heading a component renders nothing its anchor counts; a placeholder that slugs
        # to nothing keeps the space before it, as rehype-slug does ("Title <Icon />" -> "title-").
        replacement = HEADING_JSX
    elif tag.kind != "close" and tag.name in scan.components:
        replacement = f" {scan.components[tag.name]} "
    elif tag.kind == "self":
        replacement = props_prose(tag.props)
    else:
        replacement = "" if tag.kind == "close" else " "
    out.append(replacement + _newlines(chunk[start:end]))
    return end


def _title_heading(scan: _Scan, start: int, tag: Tag, out: list[str]) -> int | None:
    """`<PageTitle>Uses</PageTitle>` alone on its line renders the page's h1: emit `# Uses`."""
    chunk = scan.text
    line_start = chunk.rfind("\n", 0, start) + 1
    close = re.compile(rf"</{re.escape(tag.name)}\s*>").search(chunk, tag.end)
    if chunk[line_start:start].strip() or close is None:
        return None
    inner = _strip_jsx(_Scan(chunk[tag.end : close.start()], scan.path, scan.components), 1)
    text = " ".join(inner.split())
    if not text:
        return None
    out.append(f"# {text}" + _newlines(chunk[start : close.end()]))
    return close.end()


def _expression(scan: _Scan, start: int, first_line: int, out: list[str]) -> int:
    """A `{...}` expression: a string literal is prose, any other expression is dropped."""
    end = balanced_end(scan.text, start)
    if end is None:
        line = first_line + scan.line_at(start) - 1
        _warn(scan.warn, IngestError("unbalanced '{' in a JSX expression", scan.path, line))
        return start + 1
    expression = scan.text[start:end]
    literal = string_literal(expression)
    if _HEADING_ID.fullmatch(expression) and scan.text[end:].split("\n", 1)[0].strip() == "":
        out.append(expression)  # `## Title {#custom-id}`: the heading's id, read later
    elif literal is not None:
        out.append(literal)
    elif expression.lstrip("{ \n").startswith(("[", "{")):
        out.append(" ".join(literal_prose(expression[1:-1])))
    out.append(_newlines(expression))
    return end


def _warn(warn: Warn | None, problem: IngestError) -> None:
    if warn is not None:
        warn(problem)


def _newlines(text: str) -> str:
    return "\n" * text.count("\n")


def _inline_code_end(text: str, start: int) -> int:
    ticks = len(text[start:]) - len(text[start:].lstrip("`"))
    close = text.find("`" * ticks, start + ticks)
    return start + ticks if close < 0 else close + ticks


def _math_end(text: str, start: int) -> int:
    """End of `$...$` or `$$...$$` math; a `$` that cannot open math (Pandoc's rule: a space
    after an opening `$`, before a closing one, or a digit after it) is a plain dollar sign."""
    if text.startswith("$$", start):
        close = text.find("$$", start + 2)
        return start + 2 if close < 0 else close + 2
    if start + 1 >= len(text) or text[start + 1].isspace():
        return start + 1
    close = start + 1
    while True:
        close = text.find("$", close + 1)
        if close < 0 or "\n\n" in text[start:close]:
            return start + 1
        after = text[close + 1 : close + 2]
        if not text[close - 1].isspace() and not after.isdigit():
            return close + 1
