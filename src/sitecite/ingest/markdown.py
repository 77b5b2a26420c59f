"""Markdown (and MDX, once stripped) to a Page of heading-delimited blocks of prose.

Structure becomes prose before anything is embedded: a table row becomes one
sentence, a nested list item becomes "item: child; child". Fenced code is left
out of the prose (it is counted in the page metadata) because it drowns the
sentences a visitor's question is about, except a short block of commands (a
shell block, or one without a language, of at most COMMAND_LINES short lines):
"npx @jakejarvis/cli" is how a how-to says how to run it, and each of its lines
is kept as a sentence of kind code. A footnote (`[^label]` with its
definition, or inline `^[...]`) is taken out of the sentence that refers to it
and follows that sentence's paragraph as a paragraph of its own, in the same
section. A Pandoc raw block (```` ```{=html} ````) is what the page shows when it is HTML, and
nothing when it is for another format (LaTeX).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin

from sitecite.ingest.html import BYLINE, html_fragment_text
from sitecite.ingest.kinds import (
    CAPTION,
    CODE,
    ITEM,
    LINK,
    PROSE,
    ROW,
    TOC,
    has_clause,
    is_fragment,
)
from sitecite.ingest.prose import table_sentences
from sitecite.types import Block

_SEPARATOR = re.compile(r"(\s*[/|·•,;]\s*)")


def without_orphans(text: str) -> str:
    """Text without the separators struck-through entries left ("A: ~~B~~ / ~~C~~ / D" read
    as "A:  /  / D" -> "A: D"): a separator stays only between two pieces of text."""
    parts = _SEPARATOR.split(text)
    out = parts[0].rstrip()
    for separator, piece in zip(parts[1::2], parts[2::2], strict=True):
        if not piece.strip():
            continue
        if not out.strip() or out.rstrip().endswith((":", "(")):
            out = f"{out.rstrip()} {piece.strip()}".strip()
        else:
            out = f"{out}{separator}{piece.strip()}"
    return out


def make_parser(mdx: bool) -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    parser.use(footnote_plugin)
    if mdx:
        parser.disable("code")  # MDX has no indented code blocks; JSX children are indented
    return parser


_CONTENTS = re.compile(r"\b(contents|on this page|in this (post|article))\b", re.IGNORECASE)
_READING = re.compile(
    r"\b(further|more|additional)\s+reading\b|\b(references|resources|links|see also|related)\b",
    re.IGNORECASE,
)
# where the footnotes a paragraph, list, table or quotation referred to are placed
_NOTES_AFTER = (
    *("paragraph_close", "bullet_list_close", "ordered_list_close"),
    *("table_close", "blockquote_close"),
)
_LINKED = re.compile(r"\[([^\[\]]+)\]\((?:https?:|mailto:|/|\.|#)[^()\s]*\)")
_HEADING_ID = re.compile(r"\s*\{#[\w.:-]+\}\s*$")  # read as the anchor by ingest/ids.py
_RAW = re.compile(r"^\{=(\w+)\}$")  # a Pandoc raw block: ```{=html}, ```{=latex}
LINK_SHARE = 0.6  # a line whose letters are mostly link text is a link title, not prose
TITLE_WORDS = 6  # a linked list item this long is another page's title, not a thing's name


@dataclass
class _Item:
    text: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    children: list[str] = field(default_factory=list)

    def render(self) -> str:
        own = " ".join(" ".join(self.text).split())
        if not self.children:
            return own
        joined = "; ".join(self.children)
        if not own:
            return joined
        return f"{own} {joined}" if own.endswith(":") else f"{own}: {joined}"

    def kind(self) -> str:
        """A list item is content (a product's name is an answer) unless it is a contents entry
        or the title of another page: a linked line long enough to be a headline."""
        if self.children or not self.kinds or not all(k in (LINK, TOC) for k in self.kinds):
            return ITEM
        if TOC in self.kinds:
            return TOC
        own = " ".join(self.text)
        return LINK if len(own.split()) >= TITLE_WORDS or has_clause(own) else ITEM


@dataclass
class _Builder:
    """Walks markdown-it tokens and collects blocks of prose."""

    title: str
    line_offset: int
    blocks: list[Block] = field(default_factory=list)
    heading: str = ""
    level: int = 0
    line: int = 1
    parts: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # the structural kind of each part
    items: list[_Item] = field(default_factory=list)
    table: list[list[str]] | None = None
    row: list[str] | None = None
    code_blocks: int = 0
    first_h1: str = ""
    notes: dict[int, str] = field(default_factory=dict)  # footnote id -> its text
    pending: list[int] = field(default_factory=list)  # footnotes referred to, not yet placed
    placed: set[int] = field(default_factory=set)

    def place_notes(self) -> None:
        """The footnotes referred to so far, each once, as paragraphs after the one that
        referred to them (not inside a list or a table)."""
        if self.items or self.row is not None or self.table is not None:
            return
        for note in self.pending:
            if note not in self.placed and self.notes.get(note):
                self.placed.add(note)
                self.part(self.notes[note], PROSE)
                self.part("", "")
        self.pending.clear()

    def flush(self) -> None:
        kept = [(p, k) for p, k in zip(self.parts, self.kinds, strict=True) if p.strip()]
        text = "\n".join(p for p, _ in kept).strip()
        if text or self.level:
            kinds = tuple(k for _, k in kept)
            self.blocks.append(Block(self.level, self.heading, text, self.line, kinds=kinds))
        self.parts, self.kinds = [], []

    def part(self, text: str, kind: str) -> None:
        """One line of the block: a paragraph, a list item, a table row, or a break ("")."""
        self.parts.append(text)
        self.kinds.append(kind)

    def add(self, text: str, kind: str = PROSE) -> None:
        text = " ".join(text.split())
        if not text:
            return
        if self.row:
            self.row[-1] = f"{self.row[-1]} {text}".strip()
        elif self.items:
            self.items[-1].text.append(text)
            self.items[-1].kinds.append(kind)
        else:
            pairs = zip(self.parts, self.kinds, strict=True)
            previous = next((k for p, k in reversed(list(pairs)) if p), "")
            if kind == "emphasis":  # an emphasised line under an image is its caption
                kind = CAPTION if previous == CAPTION else PROSE
            self.part(text, kind)


COMMAND_LINES = 3  # a longer block is a program, not a command to quote
COMMAND_CHARS = 160
_SHELL = frozenset(
    "sh bash shell console zsh fish powershell ps1 cmd bat text txt plaintext".split()
)


def commands(info: str, content: str) -> list[str]:
    """The lines of a code block worth quoting as commands: a block in a shell language (or
    none) of at most COMMAND_LINES lines of at most COMMAND_CHARS characters; else none."""
    language = next(iter(info.split()), "").lower()
    lines = [line.strip() for line in content.splitlines() if line.strip()]
    if language and language not in _SHELL:
        return []
    if len(lines) > COMMAND_LINES or any(len(line) > COMMAND_CHARS for line in lines):
        return []
    return lines


@dataclass
class _Letters:
    """Letters and digits of an inline run, counted by where they stand."""

    total: int = 0
    linked: int = 0
    emphasised: int = 0
    alt: int = 0
    anchors_only: bool = True

    def kind(self, text: str) -> str:
        if self.total == 0:
            return PROSE
        if self.alt == self.total:
            return CAPTION
        if self.alt and self.alt + max(self.linked, self.emphasised) >= self.total:
            return CAPTION  # an image with its caption or link on the next line
        if self.linked == self.total or (
            self.linked >= LINK_SHARE * self.total and is_fragment(text)
        ):
            return TOC if self.anchors_only else LINK
        if self.emphasised == self.total:
            return "emphasis"
        return PROSE


def _inline_text(
    token: Token, keep_struck: bool = False, notes: list[int] | None = None
) -> tuple[str, str]:
    """Plain text of an inline token (links keep their text, images their alt, code its content)
    and its structural kind: prose, a link title, a contents entry, an image caption.

    Struck-through text is left out of prose but kept in headings, whose anchors include it.
    Footnote references leave no mark; their ids are appended to `notes`."""
    out: list[str] = []
    letters = _Letters()
    struck = links = emphasis = 0
    dropped = False
    for child in token.children or []:
        kind = child.type
        if kind in ("s_open", "s_close"):
            struck += 1 if kind == "s_open" else -1
        elif struck and not keep_struck:
            dropped = True
            continue
        elif kind in ("link_open", "link_close"):
            links += 1 if kind == "link_open" else -1
            href = str(child.attrGet("href") or "") if kind == "link_open" else "#"
            letters.anchors_only = letters.anchors_only and href.startswith("#")
        elif kind in ("em_open", "em_close"):
            emphasis += 1 if kind == "em_open" else -1
        elif kind in ("text", "code_inline", "image"):
            text = child.content
            if kind == "image":
                parts = [c.content for c in child.children or [] if c.type != "html_inline"]
                text = "".join(parts) if child.children else child.content  # alt: no HTML
                text = f" {text.strip()} " if text.strip() else ""
            count = sum(ch.isalnum() for ch in text)
            letters.total += count
            letters.linked += count if links else 0
            letters.emphasised += count if emphasis else 0
            letters.alt += count if kind == "image" else 0
            out.append(text)
        elif kind in ("softbreak", "hardbreak", "html_inline"):
            out.append(" ")
        elif kind == "footnote_ref" and notes is not None:
            notes.append(int(child.meta["id"]))
    text = "".join(out)
    if dropped:  # no orphan " / / /" where struck-through entries were
        text = without_orphans(text)
    return text, letters.kind(text)


def markdown_blocks(
    body: str, title: str, line_offset: int, mdx: bool
) -> tuple[list[Block], dict[str, Any]]:
    """Parse Markdown into blocks; returns (blocks, extra metadata such as the first h1)."""
    tokens = make_parser(mdx).parse(body, {})
    builder = _Builder(title=title, line_offset=line_offset)
    tokens, builder.notes = _footnotes(tokens)
    in_heading: Token | None = None
    for token in tokens:
        kind = token.type
        if builder.pending and kind in _NOTES_AFTER:
            _close(builder, token)
            builder.place_notes()
            continue
        if kind == "heading_open":
            in_heading = token
        elif kind == "inline" and in_heading is not None:
            heading = _inline_text(token, keep_struck=True)[0]
            _start_heading(builder, in_heading, heading.strip())
            in_heading = None
        elif kind == "inline":
            builder.add(*_inline_text(token, notes=builder.pending))
        elif kind == "fence" and (raw := _RAW.match(token.info.strip())):
            if raw.group(1).lower() == "html":  # Pandoc's raw HTML: shown, as HTML
                for line in html_fragment_text(token.content).splitlines():
                    builder.add(line)
        elif kind in ("fence", "code_block"):
            builder.code_blocks += 1
            for line in commands(token.info, token.content):
                builder.add(line, CODE)
        elif kind == "html_block":  # Markdown links inside are rendered by Pandoc, kramdown
            for line in _LINKED.sub(r"\1", html_fragment_text(token.content)).splitlines():
                builder.add(line, CAPTION if BYLINE.match(line) else PROSE)
        else:
            _close(builder, token)
    builder.place_notes()
    builder.flush()
    extra = {"code_blocks": builder.code_blocks, "first_h1": builder.first_h1}
    return builder.blocks, extra


def _close(builder: _Builder, token: Token) -> None:
    """A token that is not text: a paragraph's end is a break, the rest is structure."""
    if (
        token.type in ("paragraph_close", "blockquote_close")
        and not builder.items
        and builder.row is None
    ):
        builder.part("", "")
    else:
        _structure(builder, token)


def _footnotes(tokens: list[Token]) -> tuple[list[Token], dict[int, str]]:
    """The document without its footnote block, and each footnote's text by id."""
    notes: dict[int, list[str]] = {}
    body: list[Token] = []
    current: int | None = None
    inside = False
    for token in tokens:
        if token.type == "footnote_block_open":
            inside = True
        elif token.type == "footnote_block_close":
            inside = False
        elif token.type == "footnote_open":
            current = int(token.meta["id"])
        elif inside and token.type == "inline" and current is not None:
            notes.setdefault(current, []).append(_inline_text(token)[0])
        elif not inside:
            body.append(token)
    return body, {n: " ".join(" ".join(parts).split()) for n, parts in notes.items()}


def _start_heading(builder: _Builder, token: Token, text: str) -> None:
    level = int(token.tag[1])
    line = (token.map[0] if token.map else 0) + 1 + builder.line_offset
    if (
        level == 1
        and not builder.first_h1
        and not builder.blocks
        and not "".join(builder.parts).strip()
    ):
        builder.first_h1 = text  # a leading h1 is the page title, not a section
        return
    builder.flush()
    builder.heading, builder.level, builder.line = text, level, line


def _item_kind(item: _Item, heading: str) -> str:
    """A linked item is a contents entry under "Contents", a link under "Further reading"."""
    kind = item.kind()
    linked = not item.children and bool(item.kinds) and all(k in (LINK, TOC) for k in item.kinds)
    if linked and _CONTENTS.search(heading):
        return TOC
    if linked and _READING.search(heading):
        return LINK
    return kind


def _structure(builder: _Builder, token: Token) -> None:
    kind = token.type
    if kind == "list_item_open":
        builder.items.append(_Item())
    elif kind == "list_item_close":
        item = builder.items.pop()
        rendered = item.render()
        if builder.items:
            builder.items[-1].children.append(rendered)
        elif rendered:
            builder.part(rendered, _item_kind(item, builder.heading))
    elif kind == "table_open":
        builder.table = []
    elif kind == "tr_open":
        builder.row = []
    elif kind == "tr_close" and builder.table is not None and builder.row is not None:
        builder.table.append(builder.row)
        builder.row = None
    elif kind in ("th_open", "td_open") and builder.row is not None:
        builder.row.append("")  # one cell per column, even when the cell is empty
    elif kind == "table_close" and builder.table is not None:
        context = _HEADING_ID.sub("", builder.heading) or builder.title
        for sentence in table_sentences(builder.table, context):
            builder.part(sentence, ROW)
        builder.table = None
