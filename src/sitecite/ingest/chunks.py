"""Pandoc documents (Quarto, R Markdown) read line by line, each line kept in place so line
numbers still point into the file: executable code chunks give their captions and leave their
code out, raw HTML blocks stay (with their shortcodes run), fenced divs are unwrapped (callout
titles and tab headings become lines of text, content for other formats goes), and every line
of prose is handed to the document's `Rewriter` (shortcodes, references: ingest/quarto.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from sitecite.ingest.pandoc import DIV, HEADING, Attributes

CAPTION_OPTIONS = ("fig-cap", "tbl-cap", "fig-subcap", "fig.cap", "tab.cap")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*(.*)$")
_CHUNK = re.compile(r"^\{([A-Za-z][\w-]*)(?:[\s,]+(.*))?\}\s*$")
_RMD_OPTION = re.compile(
    r"""([\w.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^,\s]+))"""
)
_OPTION_LINE = re.compile(r"^\s*(?:#|//|--)\|\s?")
_RAW_FORMAT = re.compile(r"^\{=(\w+)\}$")
_GRID_BORDER = re.compile(r"^\s*\+(?:[-=:]+\+)+\s*$")
_HEADING_ID = re.compile(r"\s*\{#[^}]*\}\s*$")


class Rewriter(Protocol):
    """What the line reader asks of the document's context."""

    def inline(self, line: str, heading: bool) -> str: ...

    def raw(self, line: str) -> str: ...

    def listing_at(self, div_id: str, document: Document) -> str: ...


@dataclass
class Document:
    """A Pandoc document as CommonMark: the text, its code chunks, and the listings' lines
    to put where their placeholders stand (ingest/pages.py does)."""

    markdown: str
    code_blocks: int = 0
    listings: dict[str, list[str]] = field(default_factory=dict)  # placeholder -> lines
    shown: list[str] = field(default_factory=list)  # data files the listings show


@dataclass
class _Div:
    kind: str  # "callout", "tabset", "hidden", "listing", ""
    tab_level: int = 0
    titled: bool = False


def _option_captions(options: dict[str, Any]) -> list[str]:
    captions: list[str] = []
    for key in CAPTION_OPTIONS:
        value = options.get(key)
        values = value if isinstance(value, list) else [value]
        captions += [" ".join(str(v).split()) for v in values if isinstance(v, str | int)]
    return [c for c in captions if c]


def chunk_options(info: str, body: list[str]) -> dict[str, Any]:
    """A chunk's options: those of its header (R Markdown's `label, key=value`) and its
    `#|` lines (YAML)."""
    import yaml

    found: dict[str, Any] = {}
    header = _CHUNK.match(info)
    rest = header.group(2) or "" if header else ""
    first = re.match(r"^\s*([\w.-]+)\s*(?:,|$)", rest)
    if first and "=" not in first.group(1):
        found["label"] = first.group(1)
    for match in _RMD_OPTION.finditer(rest):
        found[match.group(1)] = next(g for g in match.groups()[1:] if g is not None)
    yaml_lines = [_OPTION_LINE.sub("", ln) for ln in body if _OPTION_LINE.match(ln)]
    try:
        parsed = yaml.safe_load("\n".join(yaml_lines)) if yaml_lines else None
    except yaml.YAMLError:
        parsed = None
    if isinstance(parsed, dict):
        found.update({str(k): v for k, v in parsed.items()})
    return found


class LineReader:
    """One pass over a document's lines, each line kept in place (line numbers still point
    into the file)."""

    def __init__(self, context: Rewriter) -> None:
        self.context = context
        self.document = Document("")
        self.divs: list[_Div] = []
        self.out: list[str] = []
        self.extra = 0  # lines written beyond the file's: a later blank line is left out

    @property
    def hidden(self) -> bool:
        return any(d.kind == "hidden" for d in self.divs)

    def read(self, lines: list[str]) -> Document:
        index = 0
        while index < len(lines):
            line = lines[index]
            fence = _FENCE.match(line)
            if fence:
                end = _fence_end(lines, index, fence.group(2))
                self.code(lines[index : end + 1], fence.group(1), fence.group(2), fence.group(3))
                index = end + 1
                continue
            if _GRID_BORDER.match(line) and not self.hidden:
                end = index + 1
                while end < len(lines) and lines[end].strip()[:1] in ("+", "|"):
                    end += 1
                table = grid_table(lines[index:end])  # its delimiter row is no prose
                self.out += [
                    r if n == 1 else self.context.inline(r, False) for n, r in enumerate(table)
                ]
                index = end
                continue
            div = DIV.match(line)
            if div and (div.group("attrs") is not None or div.group("word")):
                self.open_div(Attributes.parse(div.group("attrs") or "." + div.group("word")))
            elif div:  # a closing fence (or a stray one)
                if self.divs:
                    self.divs.pop()
                self.out.append("")
            elif (
                self.extra
                and not line.strip()
                and self.out[-1:]
                and not self.out[-1].split("\n")[-1]
            ):
                self.extra -= 1  # a blank line that repays a line written beyond the file's
            elif self.hidden:
                self.out.append("")
            else:
                self.out.append(self.prose(line))
            index += 1
        self.document.markdown = "\n".join(self.out)
        return self.document

    def code(self, block: list[str], indent: str, fence: str, info: str) -> None:
        chunk = _CHUNK.match(info.strip())
        escaped = info.strip().startswith("{{")
        if self.hidden:
            self.out += [""] * len(block)
        elif chunk and not escaped and not _RAW_FORMAT.match(info.strip()):
            self.document.code_blocks += 1
            captions = _option_captions(chunk_options(info.strip(), block[1:]))
            self.out += ["  ".join(captions)] + [""] * (len(block) - 1)
        elif escaped:  # ```{{r}}: a chunk shown as it is written, not run
            self.document.code_blocks += 1
            self.out += [f"{indent}{fence}{info.strip()[2:].split('}')[0].split(',')[0]}"]
            self.out += block[1:]
        elif _RAW_FORMAT.match(info.strip()):  # raw HTML: Quarto runs its shortcodes too
            self.out += [self.context.raw(line) for line in block]
        else:
            self.out += block

    def open_div(self, attributes: Attributes) -> None:
        classes = attributes.classes
        visible_to = attributes.values.get("when-format") or attributes.values.get("when-profile")
        hidden = (
            "hidden" in classes
            or ("content-visible" in classes and visible_to not in (None, "html"))
            or ("content-hidden" in classes and visible_to in (None, "html"))
        )
        placeholder = self.context.listing_at(attributes.id, self.document)
        if hidden:
            self.divs.append(_Div("hidden"))
            self.out.append("")
        elif any(c.startswith("callout") for c in classes):
            title = attributes.values.get("title", "")
            self.divs.append(_Div("callout", titled=bool(title)))
            self.out += [f"**{title}**", ""] if title else [""]  # a paragraph of its own
            self.extra += 1 if title else 0
        elif "panel-tabset" in classes or "panelset" in classes:
            self.divs.append(_Div("tabset"))
            self.out.append("")
        else:
            self.divs.append(_Div("listing" if placeholder else ""))
            self.out.append(placeholder)

    def prose(self, line: str) -> str:
        heading = HEADING.match(line)
        line = self.context.inline(line, heading is not None)
        self.extra += line.count("\n")  # an included file's lines
        if heading is None:
            return line
        found = HEADING.match(line)
        text = f"**{_HEADING_ID.sub('', found.group(2))}**" if found else ""
        for div in reversed(self.divs):
            if div.kind == "callout" and not div.titled:  # the callout's title
                div.titled = True
                return text
            level = len(heading.group(1))
            if div.kind == "tabset" and (not div.tab_level or level <= div.tab_level):
                div.tab_level = level  # a tab's label
                return text
            if div.kind in ("callout", "tabset"):
                break
        return line


def grid_table(lines: list[str]) -> list[str]:
    """A Pandoc grid table as a pipe table (as many lines, blank ones after it): each cell's
    lines joined, the rows above a `+===+` border as the header."""
    border = lines[0].strip()
    indent = len(lines[0]) - len(lines[0].lstrip())
    edges = [indent + i for i, c in enumerate(border) if c == "+"]
    rows: list[list[str]] = []
    current: list[list[str]] = []
    header = 0
    for line in lines[1:]:
        if _GRID_BORDER.match(line):
            if current:
                rows.append([" ".join(" ".join(cell).split()) for cell in current])
            current = []
            header = len(rows) if "=" in line and not header else header
            continue
        cells = [line[a + 1 : b].strip() for a, b in zip(edges, edges[1:], strict=False)]
        current = current or [[] for _ in cells]
        for number, cell in enumerate(cells[: len(current)]):
            current[number].append(cell)
    if current:
        rows.append([" ".join(" ".join(cell).split()) for cell in current])
    if not rows:
        return [""] * len(lines)
    header = header or 1
    table = [
        " ".join(" ".join(rows[r][c] for r in range(header)).split()) for c in range(len(rows[0]))
    ]
    out = [
        "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
        for row in [table, *rows[header:]]
    ]
    out.insert(1, "|" + "---|" * len(rows[0]))
    return out + [""] * (len(lines) - len(out))


def _fence_end(lines: list[str], start: int, fence: str) -> int:
    closing = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
    for index in range(start + 1, len(lines)):
        if closing.match(lines[index]):
            return index
    return len(lines) - 1


def rmd_figure_labels(body: str) -> list[str]:
    """Bookdown's figure labels: a chunk with a caption is `fig:<its label>`."""
    found = []
    header = re.compile(r"^\s*`{3,}\s*\{[A-Za-z]\w*[\s,]+([\w-]+)\s*(?:,[^}]*)?\}", re.M)
    for match in header.finditer(body):
        if "fig.cap" in match.group(0):
            found.append(f"fig:{match.group(1)}")
    return found
