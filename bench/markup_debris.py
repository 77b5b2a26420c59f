"""Generator syntax found in indexed text: the measure of markup that leaked into the index.

A line of a section (its heading or a line of its text) is debris when it carries syntax of a
site generator or template language: Liquid tags, template expressions, Hugo shortcodes,
kramdown or markdown-it attribute lists, magic links, table-of-contents and alert markers,
HTML comments and tags, JSX, ESM statements, front-matter lines, the separators
struck-through text leaves. By itself it also counts prose and code that mention such syntax
(a post about Liquid), so a real site's share is rarely zero.

Given the site's folder (`code_shown`), it does not count what the page shows as code: the
text of the source's inline code spans (`` `<C-v>` ``) and code blocks is what a reader of the
published page sees, written as the author wrote it, so it is the page's text, not leaked
syntax. Everything else on such a line still counts.

Used by the ingestion tests and by `bench/extraction.py --sites`; the library never imports it.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

PATTERNS = {
    "liquid tag": re.compile(r"\{%|%\}"),
    "template expression": re.compile(r"\{\{|\}\}"),
    "kramdown attributes": re.compile(r"\{:[^}]*\}"),
    "attribute list": re.compile(r"\{\s*[.#][\w-]+(?:\s+[^}]*)?\}"),
    "magic link": re.compile(r"\{[^{}\s][^{}]*\|\s*https?://[^}]*\}|\{@[\w-]+\}"),
    "braced name": re.compile(r"(?<![{$\w])\{[A-Z][\w .+-]{0,40}\}(?!\})"),
    "toc marker": re.compile(r"\[\[_?toc_?\]\]|\[toc\]", re.I),
    "alert marker": re.compile(r"\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]", re.I),
    "html comment": re.compile(r"<!--"),
    "tag": re.compile(r"</?[A-Za-z][\w.-]*(?:\s+[\w:@.-]+=|\s*/?>)"),
    "esm": re.compile(r"^(?:import\s+[\w{*][^;]*\bfrom\s|export\s+(?:const|default|function)\b)"),
    "front matter": re.compile(
        r"^(?:layout|permalink|title|date|tags|categories|draft|slug|description|"
        r"redirect_from|published):\s"
    ),
    "orphan separators": re.compile(r"(?:^|\s)[/|](?:\s+[/|])+(?:\s|$)"),
}


_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\s][^$]*?\$")


def debris(line: str) -> list[str]:
    """The kinds of generator syntax a line carries (LaTeX math is not syntax of a generator)."""
    line = _MATH.sub(" ", line)
    return [name for name, pattern in PATTERNS.items() if pattern.search(line)]


def indexed_lines(sections: Iterable[object]) -> list[str]:
    """Every line the index holds for the sections: headings and text lines."""
    lines: list[str] = []
    for section in sections:
        heading = str(getattr(section, "heading", "") or "")
        if heading:
            lines.append(heading)
        lines += [ln for ln in str(getattr(section, "text", "")).splitlines() if ln.strip()]
    return lines


_CODE_SPAN = re.compile(r"(`+)([^`\n](?:[^`]*?[^`])?)\1(?!`)")  # within a paragraph
_FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n(.*?)^ {0,3}\1", re.M | re.S)
_INDENTED = re.compile(r"^(?: {4}|\t)(.+)$", re.M)
_CODE_ELEMENT = re.compile(r"<(code|kbd|tt|samp|pre)\b[^>]*>(.*?)</\1>", re.S | re.I)
_RAW_MARKER = re.compile(r"\{%-?\s*(?:end)?raw\s*-?%\}")


def shown_as_code(source: str) -> list[str]:
    """What a Markdown source shows as code: its inline code spans and code-block lines,
    longest first."""
    source = _RAW_MARKER.sub("", source)  # Liquid and Nunjucks run before Markdown
    found = {m.group(2) for m in _CODE_SPAN.finditer(source) if "\n\n" not in m.group(2)}
    found.update(html.unescape(m.group(2)).strip() for m in _CODE_ELEMENT.finditer(source))
    for block in _FENCED.finditer(source):
        found.update(line.strip() for line in block.group(2).splitlines())
    found.update(m.group(1).strip() for m in _INDENTED.finditer(source))
    spans = {" ".join(f.split()) for f in found}  # the index holds a span on one line
    return sorted((f for f in spans if f), key=len, reverse=True)


def code_shown(root: Path) -> Callable[[str], list[str]]:
    """The code each source file of the site under root shows (by its relative path)."""

    @cache
    def shown(relative: str) -> list[str]:
        code: list[str] = []
        for part in relative.split(", "):  # merged pages name all their files
            try:
                code += shown_as_code((root / part).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue
        return code

    return shown


def debris_share(
    sections: Iterable[object], shown: Callable[[str], list[str]] | None = None
) -> tuple[float, Counter[str], list[str]]:
    """(share of indexed lines with syntax, lines by kind, the offending lines). With
    `shown` (code_shown), the code a section's source shows as code is not counted."""
    kinds: Counter[str] = Counter()
    found = []
    total = 0
    for section in sections:
        source = str((getattr(section, "metadata", None) or {}).get("source", ""))
        code = shown(source) if shown is not None and source else []
        for line in indexed_lines([section]):
            total += 1
            checked = line
            for snippet in code:
                if snippet in checked:
                    checked = checked.replace(snippet, " code ")
            hit = debris(checked)
            if hit:
                kinds.update(hit)
                found.append(line)
    return (len(found) / total if total else 0.0), kinds, found
