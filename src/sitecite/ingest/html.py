"""HTML pages and fragments to prose, with the standard library's tolerant HTML parser.

A heading keeps the id the page gives it (its `id`, or that of an anchor inside it), so a
citation lands on it; the page's title is its first `<h1>`, else its `<title>`; a
`<link rel="canonical">` is kept for the page's URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from sitecite.ingest.kinds import CAPTION, PROSE
from sitecite.ingest.prose import table_sentences
from sitecite.types import Block

_SKIP = {
    "script",
    "style",
    "svg",
    "noscript",
    "template",
    "nav",
    "footer",
    "pre",
    "code-block",
}
_BREAKS = {
    "p",
    "div",
    "li",
    "br",
    "tr",
    "section",
    "article",
    "blockquote",
    "dd",
    "dt",
    "figcaption",
    "table",
    "ul",
    "ol",
    "header",
    "main",
    "aside",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
}
_LEFTOVER = re.compile(r"[\s()\[\]{}<>.,:;|/·•'\"—–-]*")
# An embedded tweet's byline ("— Name (@handle) March 3, 2020"): who posted it, not prose.
BYLINE = re.compile(r"^[—–-]+\s*[^()\n]{0,80}\(@\w{1,30}\)\s*\w+\.? \d{1,2}, \d{4}\s*$")
_VOID = {
    "br",
    "hr",
    "img",
    "input",
    "meta",
    "link",
    "source",
    "area",
    "base",
    "col",
    "embed",
    "wbr",
}


@dataclass
class ParsedHtml:
    """A page's title (first h1, else <title>), its first h1, canonical URL and blocks."""

    title: str = ""
    first_h1: str = ""
    canonical: str = ""
    blocks: list[Block] = field(default_factory=list)
    head_title: str = ""  # the <title> element's text
    headings: int = 0  # how many headings the page has, its first h1 included


class _PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.first_h1 = ""
        self.canonical = ""
        self._anchor = ""
        self.blocks: list[Block] = []
        self._heading: tuple[int, int] | None = None  # (level, line) while inside <hN>
        self._heading_text: list[str] = []
        self._current = Block(0, "", "", 1)
        self._lines: list[str] = []
        self._line: list[str] = []
        self._skip_depth = 0
        self._in_title = False
        self._title_text = ""
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._table: list[list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            if tag not in _VOID:
                self._skip_depth += 1
            return
        if self._skip_depth:
            return
        attributes = dict(attrs)
        if tag == "title":
            self._in_title = True
        elif tag == "link" and "canonical" in (attributes.get("rel") or "").lower().split():
            self.canonical = self.canonical or (attributes.get("href") or "").strip()
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self._end_line()
            self._heading = (int(tag[1]), self.getpos()[0])
            self._heading_text = []
            self._anchor = attributes.get("id") or ""
        elif tag == "a" and self._heading and not self._anchor:
            href = attributes.get("href") or ""
            self._anchor = attributes.get("id") or attributes.get("name") or ""
            self._anchor = self._anchor or (href[1:] if href.startswith("#") else "")
        elif tag == "table":
            self._table = []
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self.handle_data(f" {alt} ")
        if tag in _BREAKS:
            self._end_line()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip_depth = max(0, self._skip_depth - 1)
            return
        if self._skip_depth:
            return
        if tag == "title":
            self._in_title = False
        elif self._heading and tag == f"h{self._heading[0]}":
            self._finish_heading()
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            self._table.append(self._row)
            self._row = None
        elif tag == "table" and self._table is not None:
            context = self._current.heading or self.first_h1 or self._title_text.strip()
            self._lines.extend(table_sentences(self._table, context))
            self._table = None
        if tag in _BREAKS:
            self._end_line()

    def handle_data(self, data: str) -> None:
        if self._skip_depth:
            return
        if self._in_title:
            self._title_text += data
        elif self._heading:
            self._heading_text.append(data)
        elif self._cell is not None:
            self._cell.append(data)
        else:
            self._line.append(data)

    def _finish_heading(self) -> None:
        if self._heading is None:
            return
        level, line = self._heading
        text = " ".join("".join(self._heading_text).split())
        self._heading = None
        if level == 1 and not self.first_h1:
            self.first_h1 = text  # the first h1 is the page title, not a section
            return
        self._flush()
        self._current = Block(level, text, "", line, self._anchor)

    def _end_line(self) -> None:
        line = " ".join("".join(self._line).split())
        # a line of template leftovers ("()") is no text; a repeat (an image's alt, then the
        # same words as its caption or link) is said once
        text = line and (any(c.isalnum() for c in line) or not _LEFTOVER.fullmatch(line))
        if text and (not self._lines or self._lines[-1] != line):
            self._lines.append(line)
        self._line = []

    def _flush(self) -> None:
        self._end_line()
        lines = [line for line in self._lines if line.strip()]
        if lines or self._current.level:
            block = self._current
            kinds = tuple(CAPTION if BYLINE.match(line) else PROSE for line in lines)
            text = "\n".join(lines)
            self.blocks.append(
                Block(block.level, block.heading, text, block.line, block.anchor, kinds)
            )
        self._lines = []

    def finish(self) -> None:
        self.close()
        self._flush()
        self.title = self.first_h1 or " ".join(self._title_text.split())


def parse_html(source: str) -> ParsedHtml:
    """The page's title, first h1, canonical URL and blocks of prose."""
    parser = _PageParser()
    parser.feed(source)
    parser.finish()
    head_title = " ".join(parser._title_text.split())
    return ParsedHtml(
        parser.title,
        parser.first_h1,
        parser.canonical,
        parser.blocks,
        head_title,
        sum(1 for b in parser.blocks if b.level) + bool(parser.first_h1),
    )


def html_fragment_text(fragment: str) -> str:
    """The text of an HTML fragment found inside Markdown, without tags, scripts, styles or
    comments: one line per paragraph-like element (a heading inside it is a line too)."""
    parser = _PageParser()
    parser.feed(fragment)
    parser.finish()
    lines = [parser.first_h1] if parser.first_h1 else []
    for block in parser.blocks:
        lines += [block.heading] if block.heading else []
        lines += [" ".join(line.split()) for line in block.text.splitlines() if line.strip()]
    return "\n".join(lines)
