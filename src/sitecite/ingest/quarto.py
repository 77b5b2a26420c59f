"""Quarto (`.qmd`) and R Markdown (`.Rmd`) documents, and every Markdown page of a Quarto
project, rewritten as the CommonMark the Markdown reader takes, as Quarto renders them:

- executable chunks (```` ```{r} ````, ```` ```{python} ````, ```` ```{ojs} ````) are code, left
  out of the prose; their options (`#| fig-cap: ...` lines, or `fig.cap="..."` in an R Markdown
  chunk's header) give the figure and table captions the page shows, and their labels number
  the cross-references; ```` ```{=html} ```` blocks are raw HTML the page shows;
- fenced divs (`:::`) are unwrapped: a callout's title (`title="..."`, or the heading it opens
  with) becomes a line of its text, a tab set's tab headings are lines instead of sections,
  content for other formats (`.content-visible when-format="pdf"`) and `.hidden` divs go;
- shortcodes: `{{< var >}}` reads `_variables.yml`, `{{< meta >}}` the page's metadata,
  `{{< include >}}` the file it names, `{{< kbd >}}` keeps its keys, the rest (icons, videos)
  leave nothing;
- inline R or Python (`` `r expr` ``) leaves nothing: its value exists only once rendered;
- cross-references and citations as ingest/pandoc.py renders them;
- listings whose contents are YAML or JSON files (talks, courses) are read into the page, where
  their `:::{#id}` div stands or at its end, and those files are not pages of their own.

A page's metadata merges, as Quarto does, `_quarto.yml`'s document options, then the
`_metadata.yml` of each folder down to the page's, then the page's own front matter.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from sitecite.errors import IngestError
from sitecite.ingest.chunks import Document, LineReader, rmd_figure_labels
from sitecite.ingest.data import load_data
from sitecite.ingest.frontmatter import Warn, split_frontmatter
from sitecite.ingest.ids import in_site
from sitecite.ingest.kinds import FACT, PROSE
from sitecite.ingest.pandoc import (
    HEADING,
    References,
    bibliography,
    pandoc_labels,
    strip_attributes,
)
from sitecite.ingest.records import record_sentence
from sitecite.types import Block

PANDOC_SUFFIXES = {".qmd", ".rmd", ".rmarkdown"}
CONFIG_NAMES = ("_quarto.yml", "_quarto.yaml")
# `_quarto.yml` keys that configure the project, never a document.
PROJECT_KEYS = frozenset("project website book manuscript format profile".split())
LISTING_DATA = (".yml", ".yaml", ".json")
PLACEHOLDER = "sitecitelisting{}x"  # one word, so Markdown leaves it alone
_INLINE_CHUNK = re.compile(r"`\{?(?:r|python|julia|ojs)\}?\s[^`]*`")
_INLINE_CODE = re.compile(r"(`+)[^`\n](?:.*?[^`])?\1(?!`)")
_MATH = re.compile(r"\$\$.+?\$\$|(?<![\\$\w])\$[^$\s](?:[^$]*?[^$\s])?\$(?!\d)")
_SHORTCODE = re.compile(r"(\{)?\{\{<\s*([\w-]+)(.*?)>\}\}(\})?")
_STRUCTURE = re.compile(r"^[\s|:=+*_-]*$")
_DASHES = re.compile(r"(?<![-!<])-{2,3}(?![->])")


@dataclass
class QuartoProject:
    """A Quarto project: its folder (relative to the site, "" at the root), its document
    options, `_variables.yml` and each folder's `_metadata.yml`."""

    root: Path
    folder: str
    options: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, Any] = field(default_factory=dict)
    folders: dict[str, dict[str, Any]] = field(default_factory=dict)

    def covers(self, relative: str) -> bool:
        return not self.folder or relative.startswith(self.folder + "/")

    def metadata(self, relative: str, front: dict[str, Any]) -> dict[str, Any]:
        """The page's metadata: the project's options, each folder's `_metadata.yml`, then the
        page's front matter, each winning over the one before."""
        merged = dict(self.options)
        parts = PurePosixPath(relative).parts[:-1]
        for depth in range(len(parts) + 1):
            merged.update(self.folders.get("/".join(parts[:depth]), {}))
        merged.update(front)
        return merged


def find_project(root: Path, warn: Warn) -> QuartoProject | None:
    """The Quarto project in root or in a first-level folder (`site/`, `website/`), if any."""
    folders = [root, *(p for p in sorted(root.iterdir()) if p.is_dir())] if root.is_dir() else []
    for folder in folders:
        config = next((folder / n for n in CONFIG_NAMES if (folder / n).is_file()), None)
        if config is None:
            continue
        prefix = folder.relative_to(root).as_posix()
        prefix = "" if prefix == "." else prefix
        options = {k: v for k, v in _mapping(config, root, warn).items() if k not in PROJECT_KEYS}
        variables = _mapping(folder / "_variables.yml", root, warn)
        found = {}
        for meta in sorted(folder.rglob("_metadata.y*ml")):
            relative = meta.parent.relative_to(root).as_posix()
            found["" if relative == "." else relative] = _mapping(meta, root, warn)
        return QuartoProject(root, prefix, options, variables, found)
    return None


def _mapping(path: Path, root: Path, warn: Warn) -> dict[str, Any]:
    if not path.is_file():
        return {}
    relative = path.relative_to(root).as_posix()
    try:
        data = load_data(path.read_text(encoding="utf-8", errors="replace"), relative, warn)
    except IngestError as problem:
        warn(problem)
        return {}
    return data if isinstance(data, dict) else {}


@dataclass
class PandocContext:
    """What rewriting one document needs: its metadata, the project, its folder's files."""

    relative: str
    metadata: dict[str, Any]
    project: QuartoProject | None
    root: Path | None
    warn: Warn
    references: References = field(default_factory=References)
    listings: dict[str, list[str]] = field(default_factory=dict)  # listing id -> lines
    depth: int = 0

    def read(self, relative: str) -> str | None:
        """A file of the site, by its path relative to the site (None if absent or outside)."""
        if self.root is None:
            return None
        target = in_site(self.root, self.root / relative)
        if target is None or not target.is_file():
            return None
        return target.read_text(encoding="utf-8", errors="replace")

    def listing_at(self, div_id: str, document: Document) -> str:
        lines = self.listings.pop(div_id, None) if div_id else None
        if lines is None:
            return ""
        placeholder = PLACEHOLDER.format(len(document.listings))
        document.listings[placeholder] = lines
        return placeholder

    def inline(self, line: str, heading: bool) -> str:
        """One line of prose: shortcodes, inline chunks, attributes, references; code spans
        and math kept as they are."""
        line = _SHORTCODE.sub(self.shortcode, line)
        line = _INLINE_CHUNK.sub("", line)
        held: list[str] = []

        def hold(match: re.Match[str]) -> str:
            held.append(match.group(0))
            return f"\ue000{len(held) - 1}\ue001"

        line = _MATH.sub(hold, _INLINE_CODE.sub(hold, line))
        line = self.references.rewrite(strip_attributes(line, heading))
        if not _STRUCTURE.match(line):  # Pandoc's smart dashes, not a rule or a table's row
            line = _DASHES.sub(lambda m: "—" if len(m.group(0)) == 3 else "–", line)
        return re.sub("\ue000(\\d+)\ue001", lambda m: held[int(m.group(1))], line)

    def raw(self, line: str) -> str:
        """A line of a raw HTML block: Quarto runs its shortcodes."""
        return _SHORTCODE.sub(self.shortcode, line)

    def shortcode(self, match: re.Match[str]) -> str:
        if match.group(1) and match.group(4):  # {{{< x >}}}: written out, not run
            return match.group(0)[1:-1]
        name, args = match.group(2), match.group(3).split()
        if name in ("var", "meta") and args:
            source = self.project.variables if name == "var" and self.project else self.metadata
            return _text(_dotted(source, args[0]))
        if name == "kbd":
            return " ".join(a for a in args if "=" not in a)
        if name == "include" and args and self.depth < 3:
            return self.include(args[0].strip("\"'"))
        return ""

    def include(self, target: str) -> str:
        """An included file's text, rewritten (and its own includes, three deep)."""
        base = self.project.folder if target.startswith("/") and self.project else ""
        folder = str(PurePosixPath(self.relative).parent) if not target.startswith("/") else base
        relative = str(PurePosixPath(folder, target.lstrip("/"))).removeprefix("./")
        text = self.read(relative)
        if text is None:
            self.warn(IngestError(f"{{{{< include {target} >}}}}: file not found", self.relative))
            return ""
        body = split_frontmatter(text, relative, self.warn).body
        inner = PandocContext(
            relative,
            self.metadata,
            self.project,
            self.root,
            self.warn,
            self.references,
            {},
            self.depth + 1,
        )
        return rewrite(body, inner).markdown


def _dotted(data: Any, key: str) -> Any:
    for part in key.split("."):
        data = data.get(part) if isinstance(data, dict) else None
    return data


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    if isinstance(value, dict):
        return _text(value.get("name") or value.get("text") or "")
    return "" if value is None else " ".join(str(value).split())


def rewrite(body: str, context: PandocContext) -> Document:
    """The document's body as CommonMark (see the module docstring)."""
    cited: Callable[[str], str] | None = None
    if context.metadata.get("bibliography") and context.root is not None and context.depth == 0:
        citations = _citations(context)
        cited = lambda key: citations.get(key, "")  # noqa: E731
    if context.depth == 0:
        labels = pandoc_labels(body) + rmd_figure_labels(body)
        context.references = References.of(labels, cited)
        for match in filter(None, map(HEADING.match, body.split("\n"))):
            found = re.search(r"\{[^}]*#([\w:.-]+)", match.group(2))
            if found:  # `@sec-methods` reads as the heading it names
                context.references.headings[found.group(1)] = re.sub(
                    r"\s*\{.*\}\s*$", "", match.group(2)
                )
    document = LineReader(context).read(body.split("\n"))
    for lines in context.listings.values():  # listings without a div of theirs: at the end
        placeholder = PLACEHOLDER.format(len(document.listings))
        document.listings[placeholder] = lines
        document.markdown += f"\n\n{placeholder}\n"
    return document


def _bibliographies(
    metadata: dict[str, Any], relative: str, project: QuartoProject | None, root: Path | None
) -> list[str]:
    """The bibliography files the page names (relative to the site), as Quarto finds them:
    beside the page, else at the project's root."""
    value = metadata.get("bibliography")
    names = [n for n in (value if isinstance(value, list) else [value]) if isinstance(n, str)]
    if root is None or not names:
        return []
    folders = [PurePosixPath(relative).parent, PurePosixPath(project.folder if project else "")]
    found = []
    for name in names:
        candidates = [str(folder / name).removeprefix("./") for folder in folders]
        found += [c for c in candidates if (root / c).is_file()][:1]
    return found


def _citations(context: PandocContext) -> dict[str, str]:
    files = _bibliographies(context.metadata, context.relative, context.project, context.root)
    return bibliography([context.root / f for f in files]) if context.root else {}


def read_listings(
    front: dict[str, Any], relative: str, read: Callable[[str], str | None], warn: Warn
) -> tuple[dict[str, list[str]], list[str]]:
    """The lines of each listing whose contents are data files (by listing id), and the data
    files they show. A listing of pages (`contents: posts`) shows other pages: none here."""
    listing = front.get("listing")
    entries = listing if isinstance(listing, list) else [listing]
    folder = PurePosixPath(relative).parent
    found: dict[str, list[str]] = {}
    shown: list[str] = []
    for number, entry in enumerate(e for e in entries if isinstance(e, dict)):
        contents = entry.get("contents")
        names = contents if isinstance(contents, list) else [contents]
        lines: list[str] = []
        for name in (str(n) for n in names if isinstance(n, str)):
            if not name.endswith(LISTING_DATA):
                continue
            path = str(PurePosixPath(folder, name)).removeprefix("./")
            text = read(path)
            if text is None:
                warn(IngestError(f"listing contents '{name}': file not found", relative))
                continue
            try:
                items = load_data(text, path, warn)
            except IngestError as problem:
                warn(problem)
                continue
            shown.append(path)
            for item in items if isinstance(items, list) else []:
                sentence = record_sentence(item)
                lines += [sentence] if sentence else []
        if lines:
            found[str(entry.get("id") or f"listing-{number + 1}")] = lines
    return found, shown


def pandoc_document(
    body: str,
    metadata: dict[str, Any],
    relative: str,
    project: QuartoProject | None,
    root: Path | None,
    warn: Warn,
) -> Document:
    """A Quarto or R Markdown page's body as CommonMark, its listings read."""
    context = PandocContext(relative, metadata, project, root, warn)
    if root is not None and metadata.get("listing"):
        context.listings, shown = read_listings(metadata, relative, context.read, warn)
    else:
        shown = []
    document = rewrite(body, context)
    document.shown = shown + _bibliographies(metadata, relative, project, root)
    return document


def place_listings(blocks: list[Block], listings: dict[str, list[str]]) -> list[Block]:
    """Each listing's records where its placeholder stands, one line (a fact) each."""
    out = []
    for block in blocks:
        if not any(p in block.text for p in listings):
            out.append(block)
            continue
        lines = [line for line in block.text.split("\n") if line.strip()]
        kinds = [*block.kinds, *[PROSE] * (len(lines) - len(block.kinds))]
        new_lines, new_kinds = [], []
        for line, kind in zip(lines, kinds, strict=False):
            placeholder = next((p for p in listings if p in line), None)
            rest = line.replace(placeholder, "").strip() if placeholder else line
            if rest:
                new_lines.append(rest)
                new_kinds.append(kind)
            if placeholder:
                new_lines += listings[placeholder]
                new_kinds += [FACT] * len(listings[placeholder])
        text = "\n".join(new_lines)
        out.append(dataclasses.replace(block, text=text, kinds=tuple(new_kinds)))
    return out
