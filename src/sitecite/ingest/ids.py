"""Source ids and URLs exactly as DESIGN.md fixes them."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from sitecite.types import Block


def page_id(relative_path: str) -> str:
    """`notes/dark-mode/index.mdx` -> `notes/dark-mode`; `app/uses/page.mdx` -> `app/uses`."""
    path = PurePosixPath(relative_path.replace("\\", "/"))
    stem = str(path.with_suffix("")) if path.suffix else str(path)
    parts = stem.split("/")
    if len(parts) > 1 and parts[-1] in ("index", "page"):
        parts = parts[:-1]
    return "/".join(parts)


def in_site(root: Path, path: Path) -> Path | None:
    """`path` made absolute and normalised when it lies under `root`, else None. The test is on
    the path as written (`..` resolved, links not followed), as the walk that finds the site's
    files reads it: a site whose files are links into another folder (a checkout's content
    linked into the site) keeps its partials, listings and imports, and `../` still cannot
    leave the site."""
    base = os.path.normpath(os.path.abspath(root))
    target = os.path.normpath(os.path.abspath(path))
    if os.path.commonpath([base, target]) != base or target == base:
        return None
    return Path(target)


def site_relative(root: Path, path: Path) -> str | None:
    """`path` relative to `root` (POSIX), when it lies under it (`in_site`), else None."""
    inside = in_site(root, path)
    return (
        None
        if inside is None
        else os.path.relpath(inside, os.path.abspath(root)).replace(os.sep, "/")
    )


def _slug_char(char: str) -> bool:
    if char in "- ":
        return True
    category = unicodedata.category(char)
    return category[0] in "LMN" or category == "Pc"


def slugify(heading: str) -> str:
    """GitHub's anchor rule: lower-case, drop punctuation except '-' and '_', spaces to '-'."""
    return "".join(c for c in heading.lower() if _slug_char(c)).replace(" ", "-")


class Slugger:
    """Assigns unique slugs within one page, as GitHub does: repeats get -1, -2, ... (`joiner`
    "_": Python-Markdown's _1, _2)."""

    def __init__(self, joiner: str = "-") -> None:
        self._seen: dict[str, int] = {}
        self.joiner = joiner

    def slug(self, heading: str) -> str:
        return self.unique(slugify(heading))

    def unique(self, original: str) -> str:
        """`original`, or `original-1`, `original-2`, ... if it was already given out."""
        result = original
        while result in self._seen:
            self._seen[original] += 1
            result = f"{original}{self.joiner}{self._seen[original]}"
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
ANCHOR_STYLES = (
    *("auto", "github", "kramdown", "vitepress", "markdown-it-anchor", "pandoc"),
    *("python-markdown", "none"),
)
_VITEPRESS_SPECIAL = re.compile(r"[\s~`!@#$%^&*()\-_+=\[\]{}|\\;:\"'“”‘’–—<>,.?/]+")


def kramdown_slug(heading: str) -> str:
    """kramdown's auto id (Jekyll): drop everything before the first letter, keep ASCII letters,
    digits, spaces and dashes, spaces to dashes, lower-case; empty becomes "section"."""
    text = re.sub(r"^[^a-zA-Z]+", "", heading)
    text = re.sub(r"[^a-zA-Z0-9 -]", "", text).replace(" ", "-").lower()
    return text or "section"


def vitepress_slug(heading: str) -> str:
    """@mdit-vue's slugify (VitePress, unplugin-vue-markdown): accents and punctuation runs to
    one '-', trimmed, and a '_' before a leading digit ("2021 in review" -> "_2021-in-review")."""
    text = unicodedata.normalize("NFKD", heading)
    text = re.sub(r"[\u0300-\u036f]", "", text)
    text = re.sub(r"[\u0000-\u001f]", "", text)
    text = _VITEPRESS_SPECIAL.sub("-", text)
    text = re.sub(r"-{2,}", "-", text).strip("-")
    return re.sub(r"^(\d)", r"_\1", text).lower()


def markdown_it_anchor_slug(heading: str) -> str:
    """markdown-it-anchor's default: trimmed, lower-case, whitespace runs to '-', then
    percent-encoded as encodeURIComponent does."""
    return quote(re.sub(r"\s+", "-", heading.strip().lower()), safe="-_.!~*'()")


def pandoc_slug(heading: str) -> str:
    """Pandoc's auto_identifiers (Quarto, R Markdown, Hakyll): letters, digits, '_', '-' and
    '.' kept, spaces to '-', lower-case, everything before the first letter dropped; empty
    becomes "section". Pandoc numbers repeats -1, -2 as GitHub does."""
    kept = "".join(c for c in heading.lower() if c in "_-. " or unicodedata.category(c)[0] in "LN")
    text = re.sub(r"\s+", "-", kept.strip())
    first = next((i for i, c in enumerate(text) if c.isalpha()), len(text))
    return text[first:] or "section"


def python_markdown_slug(heading: str) -> str:
    """Python-Markdown's toc slugify (MkDocs, Pelican): accents to ASCII, other non-ASCII
    dropped, characters other than letters, digits, '_', '-' and spaces dropped, lower-case,
    runs of spaces and '-' to one '-'. Repeats get _1, _2."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


SLUGIFIERS = {
    "python-markdown": python_markdown_slug,
    "pandoc": pandoc_slug,
    "kramdown": kramdown_slug,
    "vitepress": vitepress_slug,
    "markdown-it-anchor": markdown_it_anchor_slug,
}


def heading_anchors(blocks: Sequence[Block], first_h1: str, style: str) -> list[Block]:
    """Each heading block with the id its published page gives it.

    An explicit `{#id}` after a heading (Hugo, Docusaurus, kramdown) is that id and leaves the
    heading text; otherwise GitHub-style slugs (rehype-slug, Hugo, Astro, Docusaurus) need no
    anchor of their own, and another generator's rule (kramdown for Jekyll, @mdit-vue for
    VitePress, markdown-it-anchor's default) numbers repeats as GitHub does."""
    seen = Slugger("_" if style == "python-markdown" else "-")
    slugify_with = SLUGIFIERS.get(style)
    if slugify_with is not None and first_h1 and style in ("kramdown", "python-markdown"):
        seen.reserve(slugify_with(first_h1))  # the page's h1 has its id too
    out = []
    for block in blocks:
        explicit = _EXPLICIT_ID.search(block.heading) if block.level else None
        if explicit:
            heading = block.heading[: explicit.start()]
            block = replace(block, heading=heading, anchor=explicit.group(1))
        elif block.level and slugify_with is not None:
            block = replace(block, anchor=seen.unique(slugify_with(block.heading)))
        out.append(block)
    return out
