"""reStructuredText pages (Pelican, Sphinx, Nikola) read with docutils, the reference parser:
sections are headings (with the ids docutils gives them, which Pelican's and Sphinx's pages
carry), paragraphs, lists, definition and field lists, tables and admonitions are prose, code
and comments are left out, and the docinfo fields (`:date:`, `:tags:`, `:slug:`, `:summary:`,
`:author:`) are the page's metadata, as Pelican reads them.

Sphinx's roles and directives are not docutils': an unknown role keeps its text
(":ref:`Install <install>`" -> "Install"), and an unknown directive keeps the text of its
content, except those that only pull in other files or generated API text (`toctree`,
`literalinclude`, `automodule`...). A markup error is a warning naming the file and line;
what parsed is kept.
"""

from __future__ import annotations

import io
import re
from collections import defaultdict
from typing import Any

from sitecite.errors import IngestError
from sitecite.ingest.frontmatter import Warn
from sitecite.ingest.html import html_fragment_text
from sitecite.ingest.kinds import CAPTION, ITEM, PROSE, ROW
from sitecite.ingest.prose import table_sentences
from sitecite.ingest.routes import Router
from sitecite.types import Block, Page

# Sphinx directives whose content is other files or generated text, never the page's prose.
DROPPED = frozenset(
    "toctree literalinclude automodule autoclass autofunction automethod autodata "
    "autoattribute autosummary autoexception graphviz digraph plot jupyter-execute "
    "ipython code-cell highlight index tabularcolumns".split()
)
_ROLE = re.compile(r":([A-Za-z][\w:+.-]*):`")
_DIRECTIVE = re.compile(r"^\s*\.\.\s+([A-Za-z][\w:+.-]*)::", re.M)
_SKIPPED = (
    "literal_block comment system_message substitution_definition target doctest_block "
    "problematic pending title subtitle docinfo transition".split()
)


def _role_text(raw: str) -> str:
    """The text a role shows: `Install <install>` -> "Install", `~pkg.mod.func` -> "func"."""
    found = re.match(r"^(.*?)\s*<[^<>]*>$", raw, re.S)
    text = found.group(1) if found and found.group(1) else raw
    return text.lstrip("~!").rsplit(".", 1)[-1] if text.startswith("~") else text.lstrip("!")


def _register(source: str) -> None:
    """Generic stand-ins for the roles and directives of the source docutils does not know."""
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles
    from docutils.parsers.rst.languages import en

    def role(
        name: str, rawtext: str, text: str, lineno: int, inliner: Any, *args: Any
    ) -> tuple[list[Any], list[Any]]:
        return [nodes.inline(rawtext, _role_text(text))], []

    class Generic(Directive):
        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec: dict[str, Any] = defaultdict(lambda: directives.unchanged)

        def run(self) -> list[Any]:
            if self.name in DROPPED or not self.content:
                return []
            node = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    known_roles = {*en.roles, *en.roles.values(), *roles._roles, *roles._role_registry}
    for name in set(_ROLE.findall(source)) - known_roles:
        roles.register_local_role(name, role)
    known = {*en.directives, *directives._directives, *directives._directive_registry}
    for name in set(_DIRECTIVE.findall(source)) - known:
        directives.register_directive(name, Generic)


def parse_rst(source: str, relative: str, warn: Warn) -> Any:
    """The docutils document tree; its errors become warnings naming the file and line."""
    from docutils import utils
    from docutils.core import publish_doctree

    _register(source)
    stream = io.StringIO()
    settings = {
        "report_level": utils.Reporter.ERROR_LEVEL,
        "halt_level": utils.Reporter.SEVERE_LEVEL + 1,
        "warning_stream": stream,
        "file_insertion_enabled": False,
        "raw_enabled": True,
        "input_encoding": "unicode",
        "_disable_config": True,
    }
    tree = publish_doctree(source, source_path=relative, settings_overrides=settings)
    for message in _find(tree, "system_message"):
        if int(message.get("level", 0)) >= utils.Reporter.ERROR_LEVEL:
            text = message.children[0].astext() if message.children else "markup error"
            warn(IngestError(f"reStructuredText: {text}", relative, message.get("line")))
    return tree


class _Collector:
    """Walks the tree into heading-delimited blocks of prose lines."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.level, self.heading, self.anchor, self.line = 0, "", "", 1
        self.lines: list[tuple[str, str]] = []
        self.code_blocks = 0

    def flush(self) -> None:
        if self.lines or self.level:
            text = "\n".join(t for t, _ in self.lines)
            kinds = tuple(k for _, k in self.lines)
            self.blocks.append(Block(self.level, self.heading, text, self.line, self.anchor, kinds))
        self.lines = []

    def add(self, text: str, kind: str = PROSE) -> None:
        text = " ".join(text.split())
        if text:
            self.lines.append((text, kind))

    def walk(self, node: Any, depth: int) -> None:
        from docutils import nodes

        for child in node.children:
            tag = child.tagname
            if tag in _SKIPPED:
                self.code_blocks += tag in ("literal_block", "doctest_block")
            elif isinstance(child, nodes.section):
                self.flush()
                title = child.next_node(nodes.title)
                self.heading = " ".join(title.astext().split()) if title else ""
                self.anchor = child["ids"][0] if child["ids"] else ""
                self.level, self.line = min(depth + 2, 6), _line(child)
                self.walk(child, depth + 1)
            elif tag in ("paragraph", "line", "rubric", "attribution", "caption", "term"):
                self.add(child.astext(), CAPTION if tag == "caption" else PROSE)
            elif tag in ("bullet_list", "enumerated_list"):
                for item in child.children:
                    self.add(_item_text(item), ITEM)
            elif tag in ("definition_list", "field_list", "option_list"):
                for item in child.children:
                    head, *rest = [" ".join(c.astext().split()) for c in item.children]
                    self.add(f"{head}: {' '.join(rest)}" if rest else head, ITEM)
            elif tag == "table":
                rows = [
                    [" ".join(entry.astext().split()) for entry in row.children]
                    for row in _find(child, "row")
                ]
                for sentence in table_sentences(rows, self.heading or "the page"):
                    self.add(sentence, ROW)
            elif tag == "image":
                self.add(str(child.get("alt", "")), CAPTION)
            elif tag == "raw":
                if "html" in child.get("format", "").split():
                    for text in html_fragment_text(child.astext()).splitlines():
                        self.add(text)
            else:  # admonitions, topics, sidebars, block quotes, containers, figures
                self.walk(child, depth)


def _item_text(item: Any) -> str:
    """A list item as one line: its own text, then its sub-list's items ("a: b; c")."""
    own, children = [], []
    for child in item.children:
        if child.tagname in ("bullet_list", "enumerated_list"):
            children += [_item_text(grand) for grand in child.children]
        elif child.tagname not in _SKIPPED:
            own.append(" ".join(child.astext().split()))
    text = " ".join(own)
    return f"{text}: {'; '.join(children)}" if children and text else text or "; ".join(children)


def _find(node: Any, tag: str) -> list[Any]:
    """The nodes named `tag` under node (docutils' `findall`, `traverse` before 0.18)."""
    walk = getattr(node, "findall", None) or node.traverse
    return list(walk(lambda n: n.tagname == tag))


def _line(node: Any) -> int:
    while node is not None:
        if node.line:
            return int(node.line)
        node = node.parent
    return 1


def docinfo(tree: Any) -> dict[str, Any]:
    """The document's bibliographic fields (`:date:`, `:tags:`...), keys lower-cased."""
    found: dict[str, Any] = {}
    for info in _find(tree, "docinfo"):
        for field in info.children:
            if field.tagname == "field":
                name, body = field.children[0].astext(), field.children[1].astext()
                found[name.strip().lower()] = " ".join(body.split())
            elif field.tagname == "authors":
                found["authors"] = [a.astext() for a in field.children]
            else:
                found[field.tagname] = " ".join(field.astext().split())
    for meta in _find(tree, "meta"):  # `.. meta::` fields
        if meta.get("name") and meta.get("content"):
            found.setdefault(str(meta["name"]).lower(), meta["content"])
    return found


def rst_page(source: str, relative: str, pid: str, router: Router, warn: Warn) -> Page:
    """A reStructuredText file as a page (see the module docstring)."""
    tree = parse_rst(source, relative, warn)
    front = docinfo(tree)
    collector = _Collector()
    collector.walk(tree, 0)
    collector.flush()
    title = str(tree.get("title") or front.get("title") or pid.rsplit("/", 1)[-1])
    subtitle = tree.next_node(lambda n: n.tagname == "subtitle")
    summary = front.get("summary") or (subtitle.astext() if subtitle is not None else "")
    metadata = {
        **front,
        "title": title,
        "summary": summary,
        "first_h1": title,
        "code_blocks": collector.code_blocks,
        "heading_ids": "explicit",
        "markup": "rst",
    }
    url = router.url(pid, front, relative)
    return Page(pid, relative, title, url, tuple(collector.blocks), "page", metadata)
