"""Pages to sections: one per `##` heading, with its `###` subsections unless that is too long."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

from sitecite.ingest.ids import Slugger, page_url, section_url
from sitecite.ingest.kinds import (
    CODE,
    FACT,
    HEADING,
    PROSE,
    PUBLISHED,
    SUMMARY,
    mark_duplicates,
    refine,
    tidy,
)
from sitecite.text import split_sentences
from sitecite.types import Block, Page, Section

CHUNKER_VERSION = "2"  # 2: every sentence has a kind; decoration is trimmed from sentences
# A line of a section: its text and the structural kind ingestion gave it.
Line = tuple[str, str]
LONG_SECTION_WORDS = 300
STACK_KEYS = ("stack", "technologies", "tech")


@dataclass
class _Group:
    slug: str
    heading: str
    line: int
    blocks: list[tuple[str, Block]]  # (slug, block); the first is the group's own heading

    def words(self) -> int:
        return sum(len(block.text.split()) for _, block in self.blocks)


def section_hash(embed_text: str, sentences: tuple[str, ...]) -> str:
    digest = hashlib.sha256(CHUNKER_VERSION.encode())
    digest.update(embed_text.encode())
    digest.update("\x00".join(sentences).encode())
    return digest.hexdigest()[:32]


def block_lines(block: Block, default: str = PROSE) -> list[Line]:
    """The block's non-empty lines with their structural kinds (blocks parsed without kinds,
    such as HTML pages, are prose; data pages are facts)."""
    lines = [line for line in block.text.splitlines() if line.strip()]
    kinds = block.kinds if len(block.kinds) == len(lines) else (default,) * len(lines)
    return list(zip(lines, kinds, strict=True))


def chunk_page(page: Page, base_url: str = "", route: str = "{page_id}") -> list[Section]:
    """Split a page into sections with GitHub-style anchors (DESIGN.md "Source ids")."""
    slugger = Slugger()
    if page.metadata.get("first_h1"):
        slugger.slug(str(page.metadata["first_h1"]))
    headed = [b for b in page.blocks if b.level > 0]
    slugs = [slugger.slug(b.heading) if b.level > 0 else "" for b in page.blocks]
    # Profile facts have no page of their own: their links point at the site's home page.
    address = (
        f"{base_url.rstrip('/')}/"
        if page.kind == "facts"
        else page.url or page_url(base_url, route, page.id)
    )
    # URLs land on the id the published page gives a heading; ids stay the GitHub-style slugs.
    # A block with no line in the file (the profile facts ingestion adds) has no anchor there.
    # `heading_ids`: "none" (the generator gives headings no ids: link to the page),
    # "explicit" (only the ids the page's HTML gives), else the generator's rule.
    ids = page.metadata.get("heading_ids", "")
    anchors = {
        slug: ""
        if ids == "none"
        else block.anchor or (slug if block.line and ids != "explicit" else "")
        for slug, block in zip(slugs, page.blocks, strict=True)
    }
    sections: list[Section] = []
    seen: set[str] = set()  # sentences already on the page: a second copy is a duplicate
    default = FACT if page.kind in ("facts", "data") else PROSE

    intro = [b for b in page.blocks if b.level == 0]
    summary = " ".join(str(page.metadata.get("summary") or "").split())
    intro_lines = [(summary, SUMMARY)] if summary else []
    intro_lines += [line for b in intro for line in block_lines(b, default)]
    # the date is a sentence of the page's first section, not part of its text
    published = [(_published(page), PUBLISHED)] if _published(page) else []
    if intro_lines:
        intro_lines += published
        published = []
    if intro_lines:
        slug = "intro" if headed else ""
        sid = f"{page.id}#{slug}" if slug else page.id
        sections.append(_section(page, sid, "", section_url(address, ""), intro_lines, 1, seen))

    for group in _groups(page.blocks, slugs):
        if group.words() > LONG_SECTION_WORDS and len(group.blocks) > 1:
            for part in _split(group):
                slug, block = part[0]
                lines = _lines(part, default) + published
                published = []
                if any(kind != HEADING for _, kind in lines):
                    sections.append(
                        _section(
                            page,
                            f"{page.id}#{slug}",
                            block.heading,
                            section_url(address, anchors[slug]),
                            lines,
                            block.line,
                            seen,
                        )
                    )
        else:
            lines = _lines(group.blocks, default) + published
            published = []
            if any(kind != HEADING for _, kind in lines):
                sections.append(
                    _section(
                        page,
                        f"{page.id}#{group.slug}",
                        group.heading,
                        section_url(address, anchors[group.slug]),
                        lines,
                        group.line,
                        seen,
                    )
                )

    if not sections and page.kind == "page" and page.title:
        # a page of front matter only (a talk given elsewhere, a link post): its title, tags
        # and date are what the site says of it
        lines = [(page.title.rstrip(".") + ".", FACT)]
        tags = page.metadata.get("tags")
        if isinstance(tags, list) and tags:
            lines.append((f"Tags: {', '.join(str(t) for t in tags)}.", FACT))
        lines += published
        sections.append(_section(page, page.id, "", section_url(address, ""), lines, 1, seen))

    stack = _stack(page)
    if stack:
        sentence = f"The stack for {page.title}: {stack}."
        existing = next((i for i, s in enumerate(sections) if s.id == f"{page.id}#stack"), None)
        if existing is None:
            sections.append(
                _section(
                    page,
                    f"{page.id}#stack",
                    "Stack",
                    section_url(address, ""),
                    [(sentence, FACT)],
                    1,
                    seen,
                    kind="stack",
                )
            )
        else:
            old = sections[existing]
            old_lines = [(line, PROSE) for line in old.text.splitlines() if line.strip()]
            sections[existing] = _section(
                page,
                old.id,
                old.heading,
                old.url,
                [*old_lines, (sentence, FACT)],
                int(old.metadata.get("line", 1)),
                set(),
            )
    return sections


def _published(page: Page) -> str:
    """The page's date from its frontmatter as a fact: "When was X published?" is answerable."""
    raw = str(page.metadata.get("date") or "")[:10]
    try:
        day = dt.date.fromisoformat(raw)
    except ValueError:
        return ""
    title = page.title.strip()
    return f"{title} was published on {day.day} {day:%B %Y}." if title else ""


def _groups(blocks: tuple[Block, ...], slugs: list[str]) -> list[_Group]:
    levels = [b.level for b in blocks if b.level > 0]
    if not levels:
        return []
    starter = max(2, min(levels))
    groups: list[_Group] = []
    for block, slug in zip(blocks, slugs, strict=True):
        if block.level == 0:
            continue
        if block.level <= starter or not groups:
            groups.append(_Group(slug, block.heading, block.line, []))
        groups[-1].blocks.append((slug, block))
    return groups


def _split(group: _Group) -> list[list[tuple[str, Block]]]:
    """The group's own text, then each subsection with the deeper ones under it."""
    parts = [[group.blocks[0]]]
    child_level = min(block.level for _, block in group.blocks[1:])
    for entry in group.blocks[1:]:
        if entry[1].level <= child_level:
            parts.append([entry])
        else:
            parts[-1].append(entry)
    return parts


def _lines(entries: list[tuple[str, Block]], default: str) -> list[Line]:
    """The lines of a group of blocks; each subsection's heading is a line of its own."""
    lines: list[Line] = []
    for position, (_, block) in enumerate(entries):
        if position and block.heading:
            lines.append((f"{block.heading}:", HEADING))
        lines.extend(block_lines(block, default))
    return lines


def _stack(page: Page) -> str:
    for key in STACK_KEYS:
        value = page.metadata.get(key)
        if isinstance(value, list) and value:
            items = [str(v) for v in value]
            return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _sentences(lines: list[Line], seen: set[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Every sentence of the lines but the headings, trimmed of decoration, with its kind."""
    sentences: list[str] = []
    kinds: list[str] = []
    for line, structural in lines:
        if structural == HEADING:
            continue
        if structural == CODE:  # a command is quoted as it stands, never split or trimmed
            sentences.append(line)
            kinds.append(CODE)
            continue
        for sentence in split_sentences(line):
            trimmed = tidy(sentence) or sentence
            sentences.append(trimmed)
            kinds.append(refine(trimmed, structural))
    return tuple(sentences), tuple(mark_duplicates(sentences, kinds, seen))


def _section(
    page: Page,
    sid: str,
    heading: str,
    url: str,
    lines: list[Line],
    line: int,
    seen: set[str],
    kind: str | None = None,
) -> Section:
    text = "\n".join(t for t, k in lines if t and k != PUBLISHED).strip()
    sentences, kinds = _sentences(lines, seen)
    metadata = {
        "source": page.source,
        "line": line,
        "kind": kind or page.kind,
        "date": page.metadata.get("date"),
        "tags": page.metadata.get("tags") or [],
    }
    embed = Section(
        sid, page.id, page.title, heading, url, text, "", sentences, metadata
    ).embed_text
    return Section(
        sid,
        page.id,
        page.title,
        heading,
        url,
        text,
        section_hash(embed, sentences),
        sentences,
        metadata,
        kinds,
    )
