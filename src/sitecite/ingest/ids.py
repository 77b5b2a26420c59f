"""Source ids and URLs exactly as DESIGN.md fixes them."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from pathlib import PurePosixPath

from sitecite.types import Block


def page_id(relative_path: str) -> str:
    """`notes/dark-mode/index.mdx` -> `notes/dark-mode`; `app/uses/page.mdx` -> `app/uses`."""
    path = PurePosixPath(relative_path.replace("\\", "/"))
    stem = str(path.with_suffix("")) if path.suffix else str(path)
    parts = stem.split("/")
    if len(parts) > 1 and parts[-1] in ("index", "page"):
        parts = parts[:-1]
    return "/".join(parts)


def _slug_char(char: str) -> bool:
    if char in "- ":
        return True
    category = unicodedata.category(char)
    return category[0] in "LMN" or category == "Pc"


def slugify(heading: str) -> str:
    """GitHub's anchor rule: lower-case, drop punctuation except '-' and '_', spaces to '-'."""
    return "".join(c for c in heading.lower() if _slug_char(c)).replace(" ", "-")


class Slugger:
    """Assigns unique slugs within one page, as GitHub does: repeats get -1, -2, ..."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def slug(self, heading: str) -> str:
        return self.unique(slugify(heading))

    def unique(self, original: str) -> str:
        """`original`, or `original-1`, `original-2`, ... if it was already given out."""
        result = original
        while result in self._seen:
            self._seen[original] += 1
            result = f"{original}-{self._seen[original]}"
        self._seen[result] = 0
        return result

    def reserve(self, slug: str) -> None:
        """Claim a slug for a synthetic section (e.g. `stack`) without generating it."""
        self._seen.setdefault(slug, 0)


def page_url(base_url: str, route: str, pid: str) -> str:
    """The page's address: base_url + route (default: the page id itself)."""
    path = route.format(page_id=pid).lstrip("/")
    return f"{base_url.rstrip('/')}/{path}"


def section_url(page_address: str, slug: str) -> str:
    return f"{page_address}#{slug}" if slug else page_address


_EXPLICIT_ID = re.compile(r"\s*\{#([\w.:-]+)\}\s*$")
ANCHOR_STYLES = ("github", "kramdown")


def kramdown_slug(heading: str) -> str:
    """kramdown's auto id (Jekyll): drop everything before the first letter, keep ASCII letters,
    digits, spaces and dashes, spaces to dashes, lower-case; empty becomes "section"."""
    text = re.sub(r"^[^a-zA-Z]+", "", heading)
    text = re.sub(r"[^a-zA-Z0-9 -]", "", text).replace(" ", "-").lower()
    return text or "section"


def heading_anchors(blocks: Sequence[Block], first_h1: str, style: str) -> list[Block]:
    """Each heading block with the id its published page gives it.

    An explicit `{#id}` after a heading (Hugo, Docusaurus, kramdown) is that id and leaves the
    heading text; otherwise GitHub-style slugs (rehype-slug, Hugo, Astro, Docusaurus) need no
    anchor of their own, and kramdown's rule (Jekyll) numbers repeats as GitHub does."""
    seen = Slugger()
    if style == "kramdown" and first_h1:
        seen.reserve(kramdown_slug(first_h1))
    out = []
    for block in blocks:
        explicit = _EXPLICIT_ID.search(block.heading) if block.level else None
        if explicit:
            heading = block.heading[: explicit.start()]
            block = replace(block, heading=heading, anchor=explicit.group(1))
        elif block.level and style == "kramdown":
            block = replace(block, anchor=seen.unique(kramdown_slug(block.heading)))
        out.append(block)
    return out
