"""AsciiDoc pages (`.adoc`, `.asciidoc`: Asciidoctor, as Hugo, Jekyll and Antora run it)
rewritten line for line as the CommonMark the Markdown reader takes. No AsciiDoc parser in
Python is small and kept, so this reads the part of the language pages are written in:

- the header (`= Title`, author and revision lines, `:name: value` attributes) is the page's
  metadata, and `{name}` reads as its value;
- sections (`== Title`) are headings with Asciidoctor's ids (`_section_title`, or the
  document's `:idprefix:` and `:idseparator:`; an anchor `[[id]]` or `[#id]` before one wins);
- listing and literal blocks (`----`, `....`) are code; comments (`//`, `////`), block
  attributes (`[source,python]`), preprocessor lines (`ifdef::`, `include::`) go; a passthrough
  block (`++++`) is HTML; quote, example, sidebar and open blocks are prose;
- lists, description lists (`term:: text`), tables (`|===`), admonitions (`NOTE: text`), block
  titles (`.Title`);
- inline macros keep their text: `https://x[text]`, `link:`, `xref:`, `<<id,text>>`, `image:`
  (its alt), `footnote:[text]` (a footnote), `kbd:[Ctrl+C]`, `btn:[Save]`, `menu:File[Save]`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_ATTRIBUTE = re.compile(r"^:(!?[\w-]+!?):\s*(.*?)\s*$")
_SECTION = re.compile(r"^(={1,6}|#{1,6})\s+(\S.*?)\s*$")
_ANCHOR = re.compile(r"^\[\[([\w:.-]+)(?:,[^\]]*)?\]\]\s*$|^\[#([\w:.-]+)[^\]]*\]\s*$")
_BLOCK_ATTRIBUTES = re.compile(r"^\[[^\]]*\]\s*$")
_BLOCK_TITLE = re.compile(r"^\.([^\s.].*)$")
_DELIMITER = re.compile(r"^(-{4,}|\.{4,}|\+{4,}|/{4,}|_{4,}|={4,}|\*{4,}|--)\s*$")
_PREPROCESSOR = re.compile(r"^(?:ifn?def|ifeval|endif|include|toc)::.*\]\s*$")
_LIST = re.compile(r"^(\*{1,5}|\.{1,5}|-)\s+(.*)$")
_DESCRIPTION = re.compile(r"^(.+?)(:{2,4}|;;)(?:\s+(.*))?$")
_ADMONITION = re.compile(r"^(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION):\s+")
_URL_MACRO = re.compile(r"(?:link:)?((?:https?|mailto|ftp):[^\s\[]+|link:[^\s\[]+)\[([^\]]*)\]")
_XREF = re.compile(r"xref:([^\s\[]+)\[([^\]]*)\]|<<([^,>]+)(?:,\s*([^>]+))?>>")
_IMAGE = re.compile(r"image::?([^\s\[]*)\[([^\],]*)[^\]]*\]")
_FOOTNOTE = re.compile(r"footnote:(?:[\w-]*)\[([^\]]*)\]")
_UI = re.compile(r"(?:kbd|btn|pass):\[([^\]]*)\]|menu:([^\s\[]+)\[([^\]]*)\]")
_MARKS = re.compile(r"(?<![\w\\])([#^~+])([^\s#^~+](?:[^#^~+\n]*?[^\s#^~+])?)\1(?!\w)")
_REFERENCE = re.compile(r"\{([\w-]+)\}")


@dataclass
class AsciiDoc:
    """A document as CommonMark (same line count; its code blocks fenced), with its header's
    metadata."""

    markdown: str
    metadata: dict[str, Any] = field(default_factory=dict)


def asciidoctor_id(title: str, prefix: str = "_", separator: str = "_") -> str:
    """Asciidoctor's section id: lower-case, markup out, spaces, dots and dashes to the
    separator, other punctuation out, repeats collapsed, the prefix before it."""
    text = re.sub(r"<[^>]+>|&\w+;", "", title.lower())
    text = re.sub(r"[\s.-]+", separator or "", text)
    text = re.sub(rf"[^\w{re.escape(separator)}]", "", text)
    if separator:
        text = re.sub(rf"{re.escape(separator)}+", separator, text).strip(separator)
    return f"{prefix}{text}"


def _inline(line: str, attributes: dict[str, str]) -> str:
    line = _REFERENCE.sub(lambda m: attributes.get(m.group(1), m.group(0)), line)
    line = _IMAGE.sub(lambda m: m.group(2), line)
    line = _URL_MACRO.sub(lambda m: f"[{m.group(2) or m.group(1)}]({m.group(1)})", line)
    line = _XREF.sub(lambda m: m.group(2) or m.group(4) or m.group(3) or m.group(1), line)
    line = _FOOTNOTE.sub(lambda m: f"^[{m.group(1)}]", line)
    line = _UI.sub(lambda m: m.group(1) or f"{m.group(2)} > {m.group(3)}", line)
    line = _MARKS.sub(lambda m: m.group(2), line)
    line = _ADMONITION.sub("", line)
    return re.sub(r"\s\+$", "", line)


def _table(rows: list[str], columns: int) -> list[str]:
    """A `|===` table's lines as a pipe table (the first row its header), padded with blank
    lines to as many lines."""
    cells = [c.strip() for line in rows for c in line.split("|")[1:]]
    width = columns or next((line.count("|") for line in rows if line.strip()), 1)
    grouped = [cells[i : i + width] for i in range(0, len(cells), width)] if cells else []
    if not grouped:
        return [""] * (len(rows) + 2)
    out = ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in grouped]
    out.insert(1, "|" + "---|" * width)
    return out + [""] * max(0, len(rows) + 2 - len(out))


def _closing(lines: list[str], start: int, mark: str) -> int | None:
    return next((j for j in range(start + 1, len(lines)) if lines[j].rstrip() == mark), None)


def _section(line: str, attributes: dict[str, str], anchor: str) -> str:
    """A section title as a heading with the id Asciidoctor gives it."""
    found = _SECTION.match(line)
    level = len(found.group(1)) if found else 2
    title = _inline(found.group(2), attributes) if found else line
    prefix, separator = attributes.get("idprefix", "_"), attributes.get("idseparator", "_")
    return f"{'#' * level} {title} {{#{anchor or asciidoctor_id(title, prefix, separator)}}}"


def _line(line: str, attributes: dict[str, str], metadata: dict[str, Any], mark: str) -> str:
    """One line outside code and tables, as CommonMark (sections are done by the caller)."""
    if mark:  # quote, example, sidebar, open blocks: their text is prose
        return ""
    if found := _ATTRIBUTE.match(line):
        attributes[found.group(1)] = found.group(2)
        metadata.setdefault(found.group(1), found.group(2))
        return ""
    if cols := re.match(r"^\[.*\bcols=\"?([^\"\]]+)\"?.*\]\s*$", line):
        attributes["_cols"] = cols.group(1)
        return ""
    if _ANCHOR.match(line) or _BLOCK_ATTRIBUTES.match(line) or _PREPROCESSOR.match(line):
        return ""  # anchors, block attributes, preprocessor lines
    if line.startswith("//"):
        return ""  # a comment
    if found := _BLOCK_TITLE.match(line):
        return f"*{_inline(found.group(1), attributes)}*"
    if found := _LIST.match(line):
        marks = found.group(1)
        ordered = marks[0] == "."
        depth = 0 if marks == "-" else len(marks) - 1
        bullet = "1." if ordered else "-"
        return (
            f"{' ' * depth * (3 if ordered else 2)}{bullet} {_inline(found.group(2), attributes)}"
        )
    if (found := _DESCRIPTION.match(line)) and not line.startswith((" ", "http")):
        term, text = _inline(found.group(1), attributes), _inline(found.group(3) or "", attributes)
        return f"- {term}: {text}".rstrip()
    return _inline(line, attributes)


def read_asciidoc(source: str) -> AsciiDoc:
    """The document as CommonMark and its header's metadata (see the module docstring)."""
    lines = source.split("\n")
    attributes: dict[str, str] = {}
    metadata: dict[str, Any] = {}
    out: list[str] = []
    document = AsciiDoc("", metadata)
    anchor = ""
    index = 0
    if lines and (title := re.match(r"^=\s+(\S.*?)\s*$", lines[0])):
        metadata["title"] = title.group(1)
        out.append("")
        index = 1
        for extra in ("author", "revision"):  # the lines right under the title
            if index < len(lines) and lines[index].strip() and not lines[index].startswith(":"):
                metadata[extra] = re.sub(r"\s*<[^>]*>", "", lines[index]).strip()
                out.append("")
                index += 1
    while index < len(lines):
        line = lines[index]
        delimiter = _DELIMITER.match(line)
        mark = delimiter.group(1) if delimiter else ""
        end = _closing(lines, index, mark) if mark else None
        if mark and end is not None and mark[0] in "-./+" and mark != "--":
            span = lines[index + 1 : end]
            if mark[0] in "-.":  # listing and literal blocks: code
                out += ["```", *span, "```"]
            elif mark[0] == "+":  # passthrough: HTML the page shows
                out += ["", *span, ""]
            else:  # a comment block
                out += [""] * (len(span) + 2)
            index = end + 1
            continue
        if line.startswith("|==="):
            end = _closing(lines, index, "|===") or len(lines) - 1
            columns = len(attributes.pop("_cols").split(",")) if "_cols" in attributes else 0
            rows = [_inline(r, attributes) for r in lines[index + 1 : end] if r.strip()]
            table = _table(rows, columns)
            out += table + [""] * (end - index + 1 - len(table))
            index = end + 1
            continue
        out.append(_line(line, attributes, metadata, mark))
        if (found := _ANCHOR.match(line)) and not mark:
            anchor = found.group(1) or found.group(2)
        elif _SECTION.match(line):
            out[-1] = _section(line, attributes, anchor)
            anchor = ""
        index += 1
    document.markdown = "\n".join(out)
    return document
