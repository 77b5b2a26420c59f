"""The parts of Pandoc's Markdown that CommonMark does not know, as Pandoc renders them: fenced
divs (`::: {.callout-note}`), attribute lists (`{#id .class key=value}`, `{-}`), bracketed
spans (`[text]{.smallcaps}`), citations (`[@key, p. 3]`, `@key says`) and cross-references
(`@fig-map` -> "Figure 2"). Quarto and R Markdown documents are Pandoc Markdown
(ingest/quarto.py reads them with these); a citation becomes the author and year the
bibliography gives it ("Heiss (2021)"), or nothing when it does not.

Everything here is a text-to-text rewrite of one line of prose; code is never handed to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# A div fence: `::: {.class #id key="v"}`, `::: Warning`, and the bare `:::` that closes one.
DIV = re.compile(r"^\s*:{3,}\s*(?:\{(?P<attrs>[^{}]*)\}|(?P<word>[\w-]+))?\s*:*\s*$")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*$")
_ATTR_BODY = r"[^{}\n]*"
# `{#id .class key=value}` or Pandoc's `{-}` after a heading, a span, an image, a link, code.
_ATTRS = re.compile(rf"\{{\s*(?:-(?=[\s}}])|[.#][\w-]+|[\w-]+=)({_ATTR_BODY})?\}}")
_SPAN = re.compile(
    r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\{\s*(?:[.#]|-(?=[\s}])|[\w-]+=)" + _ATTR_BODY + r"\}"
)
_ID = re.compile(r"(?:^|\s)#([\w:.-]+)")
_CLASSES = re.compile(r"(?:^|\s)\.([\w-]+)")
_KEYVALUES = re.compile(r"""([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))""")
# Pandoc's citation keys: a letter, digit or `_`, then those and internal punctuation.
_KEY = r"[\w][\w:.#$%&+?<>~/-]*(?<![:.#$%&+?<>~/-])"
_BRACKETED = re.compile(rf"\[(?=[^\[\]]*@{_KEY})([^\[\]]*)\](?![(\[{{])")
_IN_TEXT = re.compile(rf"(?<![\w@.`])(-?)@({_KEY})")
_BOOKDOWN_REF = re.compile(r"\\@ref\(([^)\s]+)\)")
# Quarto's cross-reference kinds and the word Pandoc-crossref / Quarto render them with.
CROSSREF_KINDS = {
    "fig": "Figure",
    "tbl": "Table",
    "eq": "Equation",
    "lst": "Listing",
    "thm": "Theorem",
    "lem": "Lemma",
    "cor": "Corollary",
    "prp": "Proposition",
    "cnj": "Conjecture",
    "def": "Definition",
    "exm": "Example",
    "exr": "Exercise",
    "sol": "Solution",
    "rem": "Remark",
    "sec": "Section",
}


@dataclass(frozen=True)
class Attributes:
    """A Pandoc attribute list: its id, classes and key-value pairs."""

    id: str = ""
    classes: tuple[str, ...] = ()
    values: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> Attributes:
        found = _ID.search(text)
        values = {
            m.group(1): next(g for g in m.groups()[1:] if g is not None)
            for m in _KEYVALUES.finditer(text)
        }
        return cls(found.group(1) if found else "", tuple(_CLASSES.findall(text)), values)


def strip_attributes(line: str, heading: bool) -> str:
    """The line without attribute lists, bracketed spans keeping their text; a heading keeps
    its `{#id}` (ingest/ids.py reads it as the anchor)."""
    line = _SPAN.sub(lambda m: m.group(1), line)

    def keep_id(match: re.Match[str]) -> str:
        found = _ID.search(match.group(0)[1:-1]) if heading else None
        return f"{{#{found.group(1)}}}" if found else ""

    return _ATTRS.sub(keep_id, line)


def pandoc_labels(text: str) -> list[str]:
    """The ids a document defines, in order: attribute lists, chunk `label:` options, Bookdown
    chunk labels that carry a caption."""
    found = re.findall(r"\{[^{}\n]*?#([\w:.-]+)", text)
    found += re.findall(r"^#\|\s*label:\s*[\"']?([\w:.-]+)", text, re.M)
    return list(dict.fromkeys(found))


@dataclass
class References:
    """What `@label` and `[@key]` render as in one document: numbered cross-references and the
    bibliography's author-year citations."""

    numbers: dict[str, str] = field(default_factory=dict)  # label -> "Figure 2"
    headings: dict[str, str] = field(default_factory=dict)  # section id -> its heading
    cite: Callable[[str], str] | None = None  # key -> "Heiss (2021)", "" when unknown

    @classmethod
    def of(cls, labels: list[str], cite: Callable[[str], str] | None) -> References:
        numbers: dict[str, str] = {}
        counts: dict[str, int] = {}
        for label in labels:
            kind = re.split(r"[-:]", label, maxsplit=1)[0]
            if kind in CROSSREF_KINDS and kind != "sec" and label not in numbers:
                counts[kind] = counts.get(kind, 0) + 1
                numbers[label] = f"{CROSSREF_KINDS[kind]} {counts[kind]}"
        return cls(numbers, {}, cite)

    def label(self, label: str, bare: bool = False) -> str | None:
        """A cross-reference's text, or None when `label` is no cross-reference."""
        if label in self.numbers:
            return self.numbers[label].split()[-1] if bare else self.numbers[label]
        if label in self.headings:
            return self.headings[label]
        kind = re.split(r"[-:]", label, maxsplit=1)[0]
        return "" if kind in CROSSREF_KINDS or label.startswith("cr-") else None

    def rewrite(self, line: str) -> str:
        """The line with cross-references numbered and citations rendered (or removed)."""
        line = _BOOKDOWN_REF.sub(lambda m: self.label(m.group(1), bare=True) or "", line)
        line = _BRACKETED.sub(self._bracketed, line)
        return _IN_TEXT.sub(self._in_text, line)

    def _bracketed(self, match: re.Match[str]) -> str:
        """`[@fig-a; @fig-b]` -> "Figure 1; Figure 2"; `[see @heiss2021, p. 3]` -> "(Heiss
        2021)"; a citation the bibliography does not hold is left out."""
        references, cited = [], []
        for key in re.findall(rf"@({_KEY})", match.group(1)):
            reference = self.label(key)
            if reference is not None:
                references.append(reference)
            elif self.cite is not None and (found := self.cite(key)):
                cited.append(re.sub(r" \((\d{4})\)$", r" \1", found))
        parts = ["; ".join(r for r in references if r), f"({'; '.join(cited)})" if cited else ""]
        return " ".join(p for p in parts if p)

    def _in_text(self, match: re.Match[str]) -> str:
        """`@fig-map` -> "Figure 2"; `@heiss2021` -> "Heiss (2021)", `-@heiss2021` -> "2021";
        an unknown key is left as written (without a bibliography it is a handle)."""
        suppress, key = match.groups()
        reference = self.label(key)
        if reference is not None:
            return reference
        found = self.cite(key) if self.cite is not None else ""
        if not found:
            return match.group(0)
        year = re.search(r"\((\d{4})\)$", found)
        return year.group(1) if suppress and year else found


_ENTRY = re.compile(r"@(\w+)\s*\{\s*([^,\s]+)\s*,(.*?)(?=^\s*@\w+\s*\{|\Z)", re.S | re.M)
_FIELD = re.compile(r"(\w+)\s*=\s*(?:\{((?:[^{}]|\{[^{}]*\})*)\}|\"([^\"]*)\"|(\d+))", re.S)


def bibtex_citations(text: str) -> dict[str, str]:
    """Each BibTeX entry's author-year citation ("Chaudhry, Dotson, and Heiss (2021)")."""
    cited = {}
    for _kind, key, body in _ENTRY.findall(text):
        fields = {
            m.group(1).lower(): next(g for g in m.groups()[1:] if g is not None)
            for m in _FIELD.finditer(body)
        }
        names = fields.get("author") or fields.get("editor") or ""
        surnames = [_surname(n) for n in re.split(r"\s+and\s+", names) if n.strip()]
        year = re.search(r"\d{4}", fields.get("year") or fields.get("date") or "")
        if not surnames:
            continue
        if len(surnames) > 3:
            who = f"{surnames[0]} et al."
        elif len(surnames) > 1:
            who = (
                ", ".join(surnames[:-1]) + f"{',' if len(surnames) > 2 else ''} and {surnames[-1]}"
            )
        else:
            who = surnames[0]
        cited[key] = f"{who} ({year.group(0)})" if year else who
    return cited


def _surname(name: str) -> str:
    name = " ".join(re.sub(r"[{}\\]", "", name).split())
    return name.split(",")[0].strip() if "," in name else name.split(" ")[-1]


def bibliography(paths: list[Path]) -> dict[str, str]:
    """The citations of the BibTeX files a document names (others, such as CSL JSON, give
    none: their citations are left out)."""
    cited: dict[str, str] = {}
    for path in paths:
        if path.suffix.lower() == ".bib" and path.is_file():
            cited.update(bibtex_citations(path.read_text(encoding="utf-8", errors="replace")))
    return cited
