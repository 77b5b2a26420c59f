"""Generator syntax found in indexed text: the measure of markup that leaked into the index.

A line of a section (its heading or a line of its text) is debris when it carries syntax of a
site generator or template language: Liquid tags, template expressions, Hugo shortcodes,
kramdown or markdown-it attribute lists, magic links, table-of-contents and alert markers,
HTML comments and tags, JSX, ESM statements, front-matter lines, the separators
struck-through text leaves. It also counts prose and code that mention such
syntax (a post about Liquid), so a real site's share is rarely zero.

Used by the ingestion tests and by `bench/extraction.py --sites`; the library never imports it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

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


def debris_share(sections: Iterable[object]) -> tuple[float, Counter[str], list[str]]:
    """(share of indexed lines with syntax, lines by kind, the offending lines)."""
    lines = indexed_lines(sections)
    kinds: Counter[str] = Counter()
    found = []
    for line in lines:
        hit = debris(line)
        if hit:
            kinds.update(hit)
            found.append(line)
    return (len(found) / len(lines) if lines else 0.0), kinds, found
