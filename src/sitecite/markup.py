"""The answer text's light Markdown, read once into blocks and rendered as plain text or HTML.

Generators write answers with a little Markdown: the extractive one labels each passage
`On *Page › Section*:` and gives steps as a numbered list; a language model may add bold,
bullets, code or an HTML entity. A visitor should never see those markers, so the CLI, the lab
and the widget (static/widget.js, which parses the same way) all read the text with these rules:

- line by line: a numbered (`1.` or `1)`) or bulleted (`-`, `*`, `+`, `•`) line is a list item,
  `#` a heading, `>` a quotation, a ``` fence opens and closes code; every other non-empty line
  is a paragraph of its own (no lazy continuation, so a passage after a list is not swallowed
  by its last item); blank lines only separate;
- inline: `code`, **strong**, *emphasis* (`*` or `_`, flanked by a non-space inside and by no
  letter or digit outside, so `5*3*2` and `snake_case_name` stay as written), [text](url),
  backslash escapes, and HTML character references (`&amp;`, `&#39;`), decoded outside code.

Everything else is text; citation markers such as `[1]` are text that a renderer may link.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field

ESCAPABLE = set("\\`*_{}[]()#+-.!>|~")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_ORDERED = re.compile(r"^\s{0,3}([0-9]{1,9})[.)]\s+(.*)$")
_BULLET = re.compile(r"^\s{0,3}[-*+\u2022]\s+(.*)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_QUOTE = re.compile(r"^\s{0,3}>\s?(.*)$")
_LINK = re.compile(r"\[([^\[\]\n]+)\]\(\s*([^\s()]+)\s*\)")
CITATION = re.compile(r"\[(\d+)\]")
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)]*\s")


@dataclass(frozen=True)
class Span:
    """An inline piece: `text`, `code`, `em`, `strong` or `link` (with `url`)."""

    kind: str
    text: str = ""
    children: tuple[Span, ...] = ()
    url: str = ""


@dataclass
class Block:
    """A paragraph (`p`), `heading`, `quote`, `code` (in `code`), or list (`ol` from `start`,
    `ul`) whose `items` are lines of spans."""

    kind: str
    spans: tuple[Span, ...] = ()
    items: list[tuple[Span, ...]] = field(default_factory=list)
    start: int = 1
    code: str = ""


def parse(text: str) -> list[Block]:
    """The blocks of an answer text."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip():
            continue
        fence = _FENCE.match(line)
        if fence:
            body: list[str] = []
            while i < len(lines) and not lines[i].strip().startswith(fence.group(1)):
                body.append(lines[i])
                i += 1
            i += 1  # the closing fence (or the end)
            blocks.append(Block("code", code="\n".join(body)))
            continue
        ordered, bullet = _ORDERED.match(line), _BULLET.match(line)
        if ordered or bullet:
            kind = "ol" if ordered else "ul"
            item = inline(ordered.group(2) if ordered else bullet.group(1))  # type: ignore[union-attr]
            if blocks and blocks[-1].kind == kind:
                blocks[-1].items.append(item)
            else:
                start = int(ordered.group(1)) if ordered else 1
                blocks.append(Block(kind, items=[item], start=start))
            continue
        heading, quote = _HEADING.match(line), _QUOTE.match(line)
        if heading:
            blocks.append(Block("heading", inline(heading.group(1))))
        elif quote:
            blocks.append(Block("quote", inline(quote.group(1))))
        else:
            blocks.append(Block("p", inline(line.strip())))
    return blocks


def inline(text: str) -> tuple[Span, ...]:
    """The spans of one line."""
    spans: list[Span] = []
    buffer: list[str] = []

    def flush() -> None:
        if buffer:
            spans.append(Span("text", "".join(buffer)))
            buffer.clear()

    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "\\" and i + 1 < n and text[i + 1] in ESCAPABLE:
            buffer.append(text[i + 1])
            i += 2
            continue
        if char == "`":
            run = _run(text, i, "`")
            close = text.find("`" * run, i + run)
            while close >= 0 and _run(text, close, "`") != run:
                close = text.find("`" * run, close + _run(text, close, "`"))
            if close < 0:
                buffer.append("`" * run)
                i += run
                continue
            flush()
            spans.append(Span("code", _code_text(text[i + run : close])))
            i = close + run
            continue
        if char == "&":
            entity = _ENTITY.match(text, i)
            if entity:
                buffer.append(html.unescape(entity.group(0)))
                i = entity.end()
                continue
        if char == "[":
            link = _LINK.match(text, i)
            if link:
                flush()
                spans.append(Span("link", children=inline(link.group(1)), url=link.group(2)))
                i = link.end()
                continue
        if char in "*_":
            run = _run(text, i, char)
            close = _closing(text, i, run, char) if run <= 3 else -1
            if close >= 0:
                flush()
                children = inline(text[i + run : close])
                if run == 1:
                    spans.append(Span("em", children=children))
                elif run == 2:
                    spans.append(Span("strong", children=children))
                else:
                    spans.append(Span("strong", children=(Span("em", children=children),)))
                i = close + run
                continue
            buffer.append(char * run)
            i += run
            continue
        buffer.append(char)
        i += 1
    flush()
    return tuple(spans)


def _run(text: str, at: int, char: str) -> int:
    end = at
    while end < len(text) and text[end] == char:
        end += 1
    return end - at


def _closing(text: str, at: int, run: int, char: str) -> int:
    """Where the delimiter run opened at `at` closes, or -1. A run opens before a non-space and
    after no letter or digit, and closes after a non-space before no letter or digit; a closer
    belongs to the nearest opener before it, so an opener met first leaves this one as text
    (`15 */2 * * *. On *Page*:` emphasises only the page)."""
    if not _opens(text, at, run):
        return -1
    search = at + run
    while True:
        close = text.find(char * run, search)
        if close < 0:
            return -1
        length = _run(text, close, char)
        end = close + length
        if (
            length == run
            and not text[close - 1].isspace()
            and text[close - 1] != "\\"
            and not (end < len(text) and text[end].isalnum())
        ):
            return close
        if length == run and _opens(text, close, run):
            return -1
        search = end


def _opens(text: str, at: int, run: int) -> bool:
    before = text[at - 1] if at else " "
    after = text[at + run] if at + run < len(text) else " "
    return not after.isspace() and not before.isalnum()


def _code_text(text: str) -> str:
    """A code span's text: one leading and trailing space are padding (`` `a` ``)."""
    if len(text) > 2 and text[0] == " " and text[-1] == " " and text.strip():
        return text[1:-1]
    return text


def pointer_lead(text: str) -> str:
    """What a pointed reply says before it names its sections: the text up to the last
    sentence end before its first citation marker (all of it when there is none). The
    sections themselves are shown as a list, each with its line and link."""
    first = CITATION.search(text)
    if first is None:
        return text
    ends = [match.end() for match in _SENTENCE_END.finditer(text, 0, first.start())]
    return text[: ends[-1]].strip() if ends else text


def quote_line(quote: str) -> str:
    """A quoted line ready to be put in quotation marks: a sentence cut from a longer
    quotation ("Noor fixed it.) loses the quotation mark left without its pair."""
    line = " ".join(quote.split())
    if line.count('"') % 2:
        if line.startswith('"'):
            line = line[1:]
        elif line.endswith('"'):
            line = line[:-1]
    return line


# -- plain text ----------------------------------------------------------------------------


def spans_text(spans: tuple[Span, ...]) -> str:
    """What the visitor reads of some spans, with no markup."""
    parts = []
    for span in spans:
        if span.kind in ("text", "code"):
            parts.append(span.text)
        elif span.kind == "link":
            label = spans_text(span.children)
            parts.append(label if label == span.url else f"{label} ({span.url})")
        else:
            parts.append(spans_text(span.children))
    return "".join(parts)


def to_text(text: str) -> str:
    """The answer as clean text for a terminal: markers gone, lists numbered or bulleted (•),
    code indented by four spaces, one block per line."""
    lines: list[str] = []
    for block in parse(text):
        if block.kind in ("ol", "ul"):
            for number, item in enumerate(block.items, start=block.start):
                mark = f"{number}." if block.kind == "ol" else "\u2022"
                lines.append(f"{mark} {spans_text(item)}")
        elif block.kind == "code":
            lines.extend("    " + line for line in block.code.split("\n"))
        elif block.kind == "quote":
            lines.append("    " + spans_text(block.spans))
        else:
            lines.append(spans_text(block.spans))
    return "\n".join(lines)


def plain(text: str) -> str:
    """The answer's visible words on one line (a table cell, a transcript, a log row)."""
    return " ".join(to_text(text).split())


# -- HTML ----------------------------------------------------------------------------------

Linker = Callable[[str], str]  # an escaped text piece -> markup, e.g. citation markers linked


def _safe_url(url: str) -> str:
    scheme = url.split(":", 1)[0].lower() if ":" in url.split("/", 1)[0] else ""
    return url if scheme in ("", "http", "https", "mailto") else ""


def spans_html(spans: tuple[Span, ...], link: Linker | None = None) -> str:
    """Spans as escaped HTML; `link` may turn escaped text (e.g. `[1]`) into markup."""
    parts = []
    for span in spans:
        if span.kind == "text":
            escaped = html.escape(span.text, quote=False)
            parts.append(link(escaped) if link else escaped)
        elif span.kind == "code":
            parts.append(f"<code>{html.escape(span.text, quote=False)}</code>")
        elif span.kind == "link":
            label = spans_html(span.children, link)
            url = _safe_url(span.url)
            parts.append(f'<a href="{html.escape(url)}">{label}</a>' if url else label)
        else:
            tag = "em" if span.kind == "em" else "strong"
            parts.append(f"<{tag}>{spans_html(span.children, link)}</{tag}>")
    return "".join(parts)


def to_html(text: str, link: Linker | None = None) -> str:
    """The answer as HTML blocks (paragraphs, lists, quotations, code), everything escaped."""
    out = []
    for block in parse(text):
        if block.kind in ("ol", "ul"):
            items = "".join(f"<li>{spans_html(item, link)}</li>" for item in block.items)
            start = f' start="{block.start}"' if block.kind == "ol" and block.start != 1 else ""
            out.append(f"<{block.kind}{start}>{items}</{block.kind}>")
        elif block.kind == "code":
            out.append(f"<pre><code>{html.escape(block.code, quote=False)}</code></pre>")
        elif block.kind == "quote":
            out.append(f"<blockquote>{spans_html(block.spans, link)}</blockquote>")
        elif block.kind == "heading":
            out.append(f"<p><strong>{spans_html(block.spans, link)}</strong></p>")
        else:
            out.append(f"<p>{spans_html(block.spans, link)}</p>")
    return "".join(out)
