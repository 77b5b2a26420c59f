"""One file's text to its page(s), whatever built the site: Markdown and MDX, HTML (with front
matter too, as Jekyll allows), Astro and Vue components, JSON and YAML data.

Reading never stops on a bad file: every problem that leaves something readable is a warning
(file and line) in `Reading.warnings`, and the page is kept with what could be read. Only a
file with nothing readable (invalid UTF-8, a data file that does not parse) raises IngestError.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from sitecite.errors import IngestError
from sitecite.ingest.asciidoc import read_asciidoc
from sitecite.ingest.components import render_component_page
from sitecite.ingest.data import (
    FACTS_PAGE_ID,
    collection_blocks,
    facts_blocks,
    humanise,
    load_data,
    render_value,
)
from sitecite.ingest.frontmatter import split_frontmatter
from sitecite.ingest.html import parse_html
from sitecite.ingest.ids import heading_anchors, in_site, page_id, site_relative
from sitecite.ingest.jekyll import JekyllSite
from sitecite.ingest.kinds import FACT
from sitecite.ingest.markdown import markdown_blocks
from sitecite.ingest.mdx import convert_mdx
from sitecite.ingest.quarto import (
    PANDOC_SUFFIXES,
    QuartoProject,
    find_project,
    pandoc_document,
    place_listings,
)
from sitecite.ingest.records import plain, record_sentence
from sitecite.ingest.routes import Router, join_url
from sitecite.ingest.rst import rst_page
from sitecite.ingest.templates import strip_templates
from sitecite.ingest.webpage import built_path, webpage
from sitecite.types import Block, Page

MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdx"}
# Pandoc Markdown: Quarto and R Markdown (a Quarto project's .md pages are read the same way)
HTML_SUFFIXES = {".html", ".htm"}
COMPONENT_SUFFIXES = {".astro", ".vue"}
DATA_SUFFIXES = {".json", ".yaml", ".yml"}
RST_SUFFIXES = {".rst"}
ASCIIDOC_SUFFIXES = {".adoc", ".asciidoc"}
# What a page's title block shows under its title (Quarto: a subtitle, an abstract).
SUMMARY_KEYS = ("summary", "description", "subtitle", "abstract")
READ_SUFFIXES = (
    MARKDOWN_SUFFIXES | PANDOC_SUFFIXES | RST_SUFFIXES | ASCIIDOC_SUFFIXES | HTML_SUFFIXES
) | (DATA_SUFFIXES | COMPONENT_SUFFIXES)
# Front-matter keys whose records are the page's machinery, never its prose.
MACHINERY_KEYS = frozenset(
    "images image resources aliases redirect_from redirect_to menu menus cascade outputs seo "
    "sitemap build params headers scripts styles css js links sidebar toc listing listings "
    "format execute filters crossref citation".split()
)


@dataclass
class Reading:
    """What reading a site's files shares: routes, warnings, the generator's own context."""

    router: Router = field(default_factory=Router)
    warnings: list[IngestError] = field(default_factory=list)
    built: bool = False
    root: Path | None = None
    jekyll: JekyllSite | None = None
    jekyll_folder: str = ""
    data_files: dict[str, Path] = field(default_factory=dict)
    used: dict[str, str] = field(default_factory=dict)  # data file -> the page that shows it
    fronted: set[str] = field(default_factory=set)  # files that have front matter
    _quarto: list[QuartoProject | None] = field(default_factory=list)  # found once, lazily

    def warn(self, problem: IngestError) -> None:
        self.warnings.append(problem)

    def quarto_for(self, relative: str) -> QuartoProject | None:
        """The Quarto project the file belongs to, if the site is one (`_quarto.yml`)."""
        if not self._quarto:
            self._quarto.append(find_project(self.root, self.warn) if self.root else None)
        project = self._quarto[0]
        return project if project is not None and project.covers(relative) else None

    def liquid_for(self, relative: str) -> JekyllSite | None:
        folder = self.jekyll_folder
        if self.jekyll is None or (folder and not relative.startswith(folder + "/")):
            return None
        return self.jekyll


def parse_source(
    source: str,
    relative: str,
    router: Router | None = None,
    built: bool = False,
    reading: Reading | None = None,
) -> list[Page]:
    """A file's text -> its page(s); the suffix of `relative` says how to read it. Pages of a
    built site are rendered pages: their main content is extracted, their URL is their path."""
    reading = reading or Reading(router or Router(), built=built)
    router = reading.router
    suffix = PurePosixPath(relative).suffix.lower()
    pid = page_id(relative)
    if suffix in MARKDOWN_SUFFIXES | PANDOC_SUFFIXES | ASCIIDOC_SUFFIXES:
        return [_markdown_page(source, relative, pid, reading, suffix)]
    if suffix in RST_SUFFIXES:
        return [rst_page(source, relative, pid, reading.router, reading.warn)]
    if suffix in HTML_SUFFIXES and reading.built:
        page = webpage(source, relative, pid, join_url(router.base_url, built_path(relative)))
        return [page] if page.blocks else []
    if suffix in HTML_SUFFIXES:
        return [_html_page(source, relative, pid, reading)]
    if suffix in COMPONENT_SUFFIXES:
        return [_component_page(source, relative, pid, reading, vue=suffix == ".vue")]
    data = load_data(source, relative, reading.warn)
    if isinstance(data, dict):
        title, blocks = facts_blocks(data, relative)
        return [Page(FACTS_PAGE_ID, relative, title, "", tuple(blocks), "facts", {})]
    if isinstance(data, list):
        records = tuple(collection_blocks(data, relative))
        url = router.url(pid, {}, relative)
        return [Page(pid, relative, title_from(pid), url, records, "data", {})]
    raise IngestError(
        "a data file must hold a mapping (profile facts) or a list of records", relative
    )


def _markdown_page(source: str, relative: str, pid: str, reading: Reading, suffix: str) -> Page:
    headers = suffix in (".md", ".markdown")  # Pelican's `Title: ...` lines
    matter = split_frontmatter(source, relative, reading.warn, headers)
    front, body, mdx = matter.data, matter.body, suffix == ".mdx"
    if matter.offset:
        reading.fronted.add(relative)
    exported: dict[str, str] = {}
    markdown = suffix in (".md", ".markdown") or suffix in PANDOC_SUFFIXES
    project = reading.quarto_for(relative) if markdown else None
    pandoc = suffix in PANDOC_SUFFIXES or project is not None
    liquid = reading.liquid_for(relative) if not pandoc else None
    rendered = liquid is not None and ("{%" in body or "{{" in body)
    if liquid is not None:
        body = liquid.render(body, front, relative, reading.warn)
    code_blocks, listings = 0, {}
    if suffix in ASCIIDOC_SUFFIXES:
        adoc = read_asciidoc(body)
        front, body = {**adoc.metadata, **front}, adoc.markdown
    elif pandoc:
        front = project.metadata(relative, front) if project else front
        document = pandoc_document(body, front, relative, project, reading.root, reading.warn)
        reading.used.update(dict.fromkeys(document.shown, relative))
        body, code_blocks, listings = document.markdown, document.code_blocks, document.listings
    if mdx:
        converted = convert_mdx(
            strip_templates(body, mdx=True), relative, reading.warn, _resolver(reading, relative)
        )
        body, exported = converted.markdown, converted.metadata
    else:
        body = strip_templates(body)
    blocks, extra = markdown_blocks(body, str(front.get("title", "")), matter.offset, mdx=mdx)
    blocks = place_listings(blocks, listings) if listings else blocks
    extra["code_blocks"] = int(extra["code_blocks"]) + code_blocks
    style = reading.router.anchor_style
    style = "pandoc" if pandoc and reading.router.anchors == "auto" else style
    blocks = heading_anchors(blocks, str(extra["first_h1"]), style)
    shown = source if rendered else body
    blocks += record_blocks(matter.data, shown, matter.offset)  # the page's own records
    # Front matter, then the page's h1, then `export const metadata` (what <title> shows).
    named = front.get("title") or extra["first_h1"] or exported.get("title") or front.get("name")
    headings = [b.heading for b in blocks if b.level]
    title = " ".join(str(named or (headings[0] if headings else "") or title_from(pid)).split())
    described = {**exported, **front}  # exported metadata fills in, never overrides
    keys = SUMMARY_KEYS if pandoc else SUMMARY_KEYS[:2]
    summary = next((described[k] for k in keys if described.get(k)), "")
    metadata = {
        **described,
        "title": title,
        "summary": plain(summary) if isinstance(summary, str) else render_value(summary),
        "first_h1": extra["first_h1"],
        "code_blocks": extra["code_blocks"],
    }
    if pandoc:
        metadata["markup"] = "pandoc"
    if style == "none":
        metadata["heading_ids"] = "none"
    url = reading.router.url(pid, described, relative)
    return Page(pid, relative, title, url, tuple(blocks), "page", metadata)


def _resolver(reading: Reading, relative: str) -> Callable[[str], str | None]:
    """Reads a file an MDX page imports (a partial), relative to the page; None if absent."""

    def resolve(spec: str) -> str | None:
        if reading.root is None or not spec.startswith("."):
            return None
        target = in_site(reading.root, (reading.root / relative).parent / spec)
        if target is None:
            return None
        try:
            text = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        return split_frontmatter(text, spec, lambda problem: None).body

    return resolve


def _html_page(source: str, relative: str, pid: str, reading: Reading) -> Page:
    matter = split_frontmatter(source, relative, reading.warn)
    if matter.offset:
        reading.fronted.add(relative)
    body = matter.body
    liquid = reading.liquid_for(relative)
    if liquid is not None:
        body = liquid.render(body, matter.data, relative, reading.warn)
    parsed = parse_html("\n" * matter.offset + strip_templates(body, markdown=False))
    url = reading.router.url(pid, {"canonical": parsed.canonical, **matter.data}, relative)
    blocks = [*parsed.blocks, *record_blocks(matter.data, source, matter.offset)]
    metadata: dict[str, Any] = {**matter.data, "heading_ids": "explicit"}
    metadata.update(first_h1=parsed.first_h1, head_title=parsed.head_title)
    title = str(matter.data.get("title") or parsed.title or title_from(pid))
    return Page(pid, relative, title, url, tuple(blocks), "page", metadata)


def _component_page(source: str, relative: str, pid: str, reading: Reading, vue: bool) -> Page:
    root = reading.root or Path(".")
    component = render_component_page(source, root / relative, root, reading.data_files, vue)
    for used in component.used:
        if (shown := site_relative(root, used)) is not None:
            reading.used[shown] = relative
    parsed = parse_html(strip_templates(component.html, markdown=False))
    url = reading.router.url(pid, {"canonical": parsed.canonical}, relative)
    title = parsed.first_h1 or parsed.head_title or component.title or title_from(pid)
    metadata = {"first_h1": parsed.first_h1, "head_title": parsed.head_title}
    metadata["heading_ids"] = "explicit"
    return Page(pid, relative, title, url, tuple(parsed.blocks), "page", metadata)


def record_blocks(front: dict[str, Any], shown: str, offset: int) -> list[Block]:
    """Front-matter lists of records (degrees, positions, talks, projects) as prose sections,
    unless the page's own template shows them (`page.degrees`, `.Params.talks`)."""
    blocks = []
    for key, value in front.items():
        if key.lower() in MACHINERY_KEYS or not isinstance(value, list) or not value:
            continue
        if f"page.{key}" in shown or f"Params.{key}" in shown or f".{key}" in shown:
            continue
        lines = [line for item in value if (line := record_sentence(item))]
        if len(lines) * 2 >= len(value) and lines:
            heading = humanise(key).capitalize()
            text = "\n".join(lines)
            blocks.append(Block(2, heading, text, max(1, offset), kinds=(FACT,) * len(lines)))
    return blocks


def markup_of(relative: str, metadata: dict[str, Any] | None = None) -> str:
    """How the retention reference reads the page's source (ingest/retention.py): "markdown",
    "mdx", "pandoc", "rst", "html", "astro", "vue"; "" for data files."""
    suffix = PurePosixPath(relative).suffix.lower()
    if metadata and metadata.get("markup"):
        return str(metadata["markup"])
    if suffix in HTML_SUFFIXES or suffix in COMPONENT_SUFFIXES:
        return "html" if suffix in HTML_SUFFIXES else suffix[1:]
    if suffix in PANDOC_SUFFIXES | RST_SUFFIXES | ASCIIDOC_SUFFIXES:
        return {".rst": "rst", ".adoc": "asciidoc", ".asciidoc": "asciidoc"}.get(suffix, "pandoc")
    return {".mdx": "mdx", ".md": "markdown", ".markdown": "markdown"}.get(suffix, "")


def title_from(pid: str) -> str:
    """Only for pages with no title, no h1 and no <title>: data collections, bare fragments."""
    stem = re.sub(r"^\d{4}-\d\d-\d\d-", "", pid.rsplit("/", 1)[-1] or pid)
    return stem.replace("-", " ").replace("_", " ").strip().capitalize()
