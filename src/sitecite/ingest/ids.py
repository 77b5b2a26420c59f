"""Source ids and URLs exactly as DESIGN.md fixes them."""

from __future__ import annotations

import unicodedata
from pathlib import PurePosixPath


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
        original = slugify(heading)
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
