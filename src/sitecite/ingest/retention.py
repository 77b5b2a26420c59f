"""How much of a page's prose reached the index: words read against words indexed.

"Words read" is a reference count taken from the raw source with plain stripping (front
matter, fenced code, ESM blocks, expressions, tags, inline code, math and link targets
removed; the text between tags kept). It does not go through the Markdown parser or the
MDX stripper, so a bug there shows up as lost words instead of being counted away. A word
is kept when the page's sections hold it (as a multiset: a word read five times needs five
occurrences). Line numbers survive the stripping, so a warning can name where loss begins.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from sitecite.errors import IngestError

MIN_RETENTION = 0.6
MIN_WORDS = 50  # pages shorter than this never warn: a lost caption is not a lost page
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}\1[ \t]*$|\Z)", re.M | re.S)
_ESM = re.compile(r"^(?:import|export)\b.*?(?=\n[ \t]*\n|\Z)", re.M | re.S)
_FRONTMATTER = re.compile(
    r"\A(?:---[ \t]*\n.*?\n(?:---|\.\.\.)|\+\+\+[ \t]*\n.*?\n\+\+\+)[ \t]*(?:\n|\Z)", re.S
)
# Generator syntax is not prose: Liquid comments and tags, template expressions, shortcodes,
# kramdown attribute lists.
_TEMPLATE = re.compile(
    r"\{%-?\s*comment\s*-?%\}.*?\{%-?\s*endcomment\s*-?%\}|\{%.*?%\}|\{\{.*?\}\}|\{:[^}\n]*\}",
    re.S,
)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
# Pandoc Markdown (Quarto, R Markdown): fenced-div lines, attribute lists, citation and
# cross-reference keys are syntax; a raw HTML block (```{=html}) is text the page shows.
_DIV_FENCE = re.compile(r"^[ \t]*:{3,}.*$", re.M)
_PANDOC_ATTRS = re.compile(r"\{\s*(?:[.#]|-(?=[\s}])|[\w-]+=)[^{}\n]*\}")
_CITATION = re.compile(r"(?<![\w@.`])-?@[\w][\w:.#$%&+?<>~/-]*")
# AsciiDoc: attribute, comment and block-attribute lines, listing and literal blocks, comment
# blocks and macro targets are syntax.
_ADOC_LINES = re.compile(r"^(?::!?[\w-]+!?:.*|//(?!/).*|\[[^\]\n]*\]\s*|\|===\s*)$", re.M)
_ADOC_HEADER = re.compile(r"\A(=[ \t].*\n)(?:[^\s:].*\n){1,2}")  # author, revision lines
_ADOC_BLOCKS = re.compile(r"^(-{4,}|\.{4,}|/{4,})[ \t]*\n.*?^\1[ \t]*$", re.M | re.S)
_ADOC_MACRO = re.compile(r"\b(?:link|xref|image|footnote|kbd|btn|menu|pass|include):?:?[^\s\[]*\[")
_RAW_HTML = re.compile(r"^ {0,3}(`{3,})\{=html\}[ \t]*\n(.*?)^ {0,3}\1[ \t]*$", re.M | re.S)
_CODE_ELEMENTS = re.compile(
    r"<(script|style|pre|code|svg|math|noscript|nav|footer|head)\b[^>]*>.*?</\1\s*>",
    re.S | re.I,
)
_TAG = re.compile(r"</?[A-Za-z][^<>]*>|<>|</>", re.S)
_INLINE_CODE = re.compile(r"(`+).+?\1", re.S)
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.S)
_LINK_TARGET = re.compile(r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_REFERENCE = re.compile(r"^ {0,3}\[(?!\^)[^\]]+\]:[ \t]*\S+[ \t]*$", re.M)
_URL = re.compile(r"<?(?:https?|mailto|ftp):[^\s>)]*>?")
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-f]+|[a-z]+);", re.I)


@dataclass(frozen=True)
class FileReport:
    """One source file: prose words read, words its sections hold, and how many of them match."""

    source: str
    words_read: int
    words_indexed: int
    words_kept: int
    first_lost_line: int | None = None

    @property
    def retention(self) -> float:
        return self.words_kept / self.words_read if self.words_read else 1.0

    def warning(self) -> IngestError | None:
        """A warning naming the file and the line where loss begins, under 60% retention."""
        if self.words_read < MIN_WORDS or self.retention >= MIN_RETENTION:
            return None
        return IngestError(
            f"only {self.retention:.0%} of {self.words_read} prose words reached the index "
            f"(first lost text here)",
            self.source,
            self.first_lost_line,
        )

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.source,
            "words_read": self.words_read,
            "words_indexed": self.words_indexed,
            "words_kept": self.words_kept,
            "retention": round(self.retention, 4),
        }


def _blank(match: re.Match[str]) -> str:
    """Replace a stripped span by its newlines, so later line numbers stay right."""
    return " " + "\n" * match.group(0).count("\n")


def reference_text(source: str, markup: str) -> str:
    """The prose of a source file by plain stripping; `markup` is "markdown", "mdx", "pandoc"
    (Quarto, R Markdown), "asciidoc", "rst", "html", "astro" or "vue" (the last two read as
    HTML, their code left out)."""
    text = _FRONTMATTER.sub(_blank, source)
    if markup in ("astro", "vue"):
        text = _strip_expressions(text)
        markup = "html"
    text = _TEMPLATE.sub(_blank, text) if markup != "mdx" else text
    text = _COMMENT.sub(_blank, text)
    if markup == "asciidoc":
        text = _ADOC_HEADER.sub(_blank, text)
        text = _ADOC_BLOCKS.sub(_blank, text)
        text = _ADOC_MACRO.sub("[", _ADOC_LINES.sub(" ", text))
    if markup == "pandoc":
        text = _RAW_HTML.sub(lambda m: "\n" + m.group(2) + "\n", text)
        text = _DIV_FENCE.sub(" ", _PANDOC_ATTRS.sub(" ", text))
    if markup != "html":
        text = _FENCE.sub(_blank, text)
    if markup != "html":
        text = _INLINE_CODE.sub(_blank, text)
        text = _MATH.sub(_blank, text)
    if markup == "mdx":
        text = _ESM.sub(_blank, text)
        text = _strip_expressions(text)
    if markup == "pandoc":
        text = _CITATION.sub(" ", text)
    if markup != "html":
        text = _LINK_TARGET.sub("]", text)
        text = _REFERENCE.sub(" ", text)
    text = _CODE_ELEMENTS.sub(_blank, text)
    text = _TAG.sub(_blank, text)
    text = _URL.sub(" ", text)
    return _ENTITY.sub(" ", text)


def _strip_expressions(text: str) -> str:
    """Drop `{...}` expressions (balanced braces); keep `{`/`}` inside inline code alone."""
    out: list[str] = []
    depth = 0
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif depth == 0 or char == "\n":
            out.append(char if depth == 0 else "\n")
    return "".join(out)


def words_by_line(text: str) -> list[tuple[str, int]]:
    """Every word of the text, lower-cased, with its 1-based line number."""
    found: list[tuple[str, int]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        found.extend((word.lower(), number) for word in _WORD.findall(line))
    return found


def word_counts(texts: Iterable[str]) -> Counter[str]:
    return Counter(word.lower() for text in texts for word in _WORD.findall(text))


def file_report(source: str, raw: str, markup: str, indexed_texts: Iterable[str]) -> FileReport:
    """Compare the reference prose of `raw` with the texts the file's sections hold."""
    read = words_by_line(reference_text(raw, markup))
    available = word_counts(indexed_texts)
    indexed_total = sum(available.values())
    lost_per_line: Counter[int] = Counter()
    read_per_line: Counter[int] = Counter()
    kept = 0
    for word, line in read:
        read_per_line[line] += 1
        if available[word] > 0:
            available[word] -= 1
            kept += 1
        else:
            lost_per_line[line] += 1
    first_lost = _first_lost(lost_per_line, read_per_line)
    return FileReport(source, len(read), indexed_total, kept, first_lost)


def _first_lost(lost: Counter[int], read: Counter[int]) -> int | None:
    """The first line that lost most of its words (at least three), else the first with a loss."""
    lines = sorted(lost)
    for line in lines:
        if lost[line] >= 3 and lost[line] * 2 >= read[line]:
            return line
    return lines[0] if lines else None
