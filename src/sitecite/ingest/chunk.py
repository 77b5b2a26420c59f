"""Pages to sections: one per `##` heading, with its `###` subsections unless that is too long."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sitecite.ingest.ids import Slugger, page_url, section_url
from sitecite.text import split_sentences
from sitecite.types import Block, Page, Section

CHUNKER_VERSION = "1"
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
    anchors = {slug: block.anchor or slug for slug, block in zip(slugs, page.blocks, strict=True)}
    sections: list[Section] = []

    intro = [b for b in page.blocks if b.level == 0]
    summary = str(page.metadata.get("summary") or "").strip()
    intro_text = "\n".join(x for x in [summary, *(b.text for b in intro)] if x)
    if intro_text:
        slug = "intro" if headed else ""
        sid = f"{page.id}#{slug}" if slug else page.id
        sections.append(_section(page, sid, "", section_url(address, ""), [intro_text], 1))

    for group in _groups(page.blocks, slugs):
        if group.words() > LONG_SECTION_WORDS and len(group.blocks) > 1:
            for part in _split(group):
                slug, block = part[0]
                texts = _texts(part)
                if any(texts):
                    sections.append(
                        _section(
                            page,
                            f"{page.id}#{slug}",
                            block.heading,
                            section_url(address, anchors[slug]),
                            texts,
                            block.line,
                        )
                    )
        else:
            texts = _texts(group.blocks)
            if any(texts):
                sections.append(
                    _section(
                        page,
                        f"{page.id}#{group.slug}",
                        group.heading,
                        section_url(address, anchors[group.slug]),
                        texts,
                        group.line,
                    )
                )

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
                    [sentence],
                    1,
                    kind="stack",
                )
            )
        else:
            old = sections[existing]
            sections[existing] = _section(
                page,
                old.id,
                old.heading,
                old.url,
                [old.text, sentence],
                int(old.metadata.get("line", 1)),
            )
    return sections


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


def _texts(entries: list[tuple[str, Block]]) -> list[str]:
    texts = []
    for position, (_, block) in enumerate(entries):
        if position and block.heading:
            texts.append(f"{block.heading}:")
        texts.append(block.text)
    return texts


def _stack(page: Page) -> str:
    for key in STACK_KEYS:
        value = page.metadata.get(key)
        if isinstance(value, list) and value:
            items = [str(v) for v in value]
            return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _section(
    page: Page,
    sid: str,
    heading: str,
    url: str,
    texts: list[str],
    line: int,
    kind: str | None = None,
) -> Section:
    text = "\n".join(t for t in texts if t).strip()
    sentences = tuple(s for t in texts if t and not t.endswith(":") for s in split_sentences(t))
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
    )
