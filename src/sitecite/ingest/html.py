"""HTML pages and fragments to prose, with the standard library's tolerant HTML parser."""

from __future__ import annotations

from html.parser import HTMLParser

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
    "head",
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


class _PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.blocks: list[Block] = []
        self._heading: tuple[int, int] | None = None  # (level, line) while inside <hN>
        self._heading_text: list[str] = []
        self._current = Block(0, "", "", 1)
        self._lines: list[str] = []
        self._line: list[str] = []
        self._skip_depth = 0
        self._in_title = False
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
        if tag == "title":
            self._in_title = True
        elif len(tag) == 2 and tag[0] == "h" and tag[1].isdigit():
            self._end_line()
            self._heading = (int(tag[1]), self.getpos()[0])
            self._heading_text = []
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
            self._row.append(" ".join(" ".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            self._table.append(self._row)
            self._row = None
        elif tag == "table" and self._table is not None:
            context = self._current.heading or self.title
            self._lines.extend(table_sentences(self._table, context))
            self._table = None
        if tag in _BREAKS:
            self._end_line()

    def handle_data(self, data: str) -> None:
        if self._skip_depth:
            return
        if self._in_title:
            self.title += data
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
        text = " ".join(" ".join(self._heading_text).split())
        self._heading = None
        if level == 1 and not self.title:
            self.title = text
            return
        self._flush()
        self._current = Block(level, text, "", line)

    def _end_line(self) -> None:
        line = " ".join(" ".join(self._line).split())
        if line:
            self._lines.append(line)
        self._line = []

    def _flush(self) -> None:
        self._end_line()
        text = "\n".join(self._lines).strip()
        if text or self._current.level:
            block = self._current
            self.blocks.append(Block(block.level, block.heading, text, block.line))
        self._lines = []

    def finish(self) -> None:
        self.close()
        self._flush()
        self.title = " ".join(self.title.split())


def parse_html(source: str) -> tuple[str, list[Block]]:
    """Return the page title (from <title> or the first <h1>) and its blocks of prose."""
    parser = _PageParser()
    parser.feed(source)
    parser.finish()
    return parser.title, parser.blocks


def html_fragment_text(fragment: str) -> str:
    """The text of an HTML fragment found inside Markdown, without tags, scripts or styles."""
    parser = _PageParser()
    parser.feed(fragment)
    parser.finish()
    return " ".join(" ".join(b.text.split()) for b in parser.blocks)
