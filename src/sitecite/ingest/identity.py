"""Who the site is by: the owner's name and profile, from the site's own structure.

A visitor asks "What does Timothy do?" or "Where did Tim's team place?" on a blog whose text
never says "Timothy": the name lives in frontmatter (`authors: ['Timothy Lin']`, an author
page's `name`, `occupation`, `company`), in a profile data file, or in a copyright line. Those
become facts here, so the owner's names are words of the site (never "not on the site"), an
author page gets a cited Profile section, and the owner's names can be told apart from what a
question is about.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitecite.ingest.authorship import COPYRIGHT, configured_owner, person
from sitecite.ingest.data import FACTS_PAGE_ID, humanise, render_value
from sitecite.ingest.kinds import FACT
from sitecite.types import PROFILE_SUFFIX, Block, Page

AUTHOR_KEYS = ("authors", "author")
# Frontmatter keys that describe a person (an author page), besides `name`.
PERSON_KEYS = (
    "occupation",
    "company",
    "role",
    "job",
    "position",
    "employer",
    "location",
    "email",
    "bio",
    "twitter",
    "github",
    "linkedin",
    "mastodon",
    "website",
)
PROFILE_HEADING = "Profile"
WRITES_THE_SITE = "writes this site"  # the fact that says who the site's owner is
CONTACT_KEYS = ("email", "twitter", "github", "linkedin", "mastodon", "website")


HANDLE = "an author handle in front matter"
COPYRIGHT_LINE = "a copyright line"
WEAK = (HANDLE, COPYRIGHT_LINE)  # evidence a configuration's author outranks


@dataclass(frozen=True)
class Identity:
    """The site owner's full name ("" when the site does not say), every name it goes by,
    and where the owner was found ("front matter authors", "pelicanconf.py AUTHOR")."""

    owner: str = ""
    names: tuple[str, ...] = ()
    found_in: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"owner": self.owner, "names": list(self.names), "found_in": self.found_in}


def is_author_page(page: Page) -> bool:
    """A page that describes a person: a `name` in its frontmatter and some fact about them."""
    name = page.metadata.get("name")
    if page.kind != "page" or not isinstance(name, str) or not name.strip():
        return False
    return "authors" in page.id.split("/") or any(page.metadata.get(k) for k in PERSON_KEYS)


def with_identity(pages: Sequence[Page]) -> tuple[list[Page], Identity]:
    """The pages with each author page titled by its person and given a Profile of facts, and
    the site's identity."""
    authors = {page.id.rsplit("/", 1)[-1]: page for page in pages if is_author_page(page)}
    owner, found_in = _owner(pages, authors)
    updated = [
        _with_profile(page, owner) if page.id.rsplit("/", 1)[-1] in authors else page
        for page in pages
    ]
    names = tuple(dict.fromkeys([owner, *(str(p.metadata["name"]) for p in authors.values())]))
    return updated, Identity(owner, tuple(n for n in names if n), found_in)


def _owner(pages: Sequence[Page], authors: dict[str, Page]) -> tuple[str, str]:
    """(the owner, where found): the most frequent author of the pages; else the only author
    page's person; else the profile's name; else the name in a copyright line. An author that
    is a handle ("oleg_nenashev") is the owner only when nothing else names one."""
    counts: Counter[str] = Counter()
    for page in pages:
        for key in AUTHOR_KEYS:
            for author in _as_list(page.metadata.get(key)):
                found = authors.get(author)
                counts[str(found.metadata["name"]) if found else author] += 1
    named = [(name, n) for name, n in counts.most_common() if not _is_handle(name)]
    if named:
        return named[0][0], "front matter authors"
    if len(authors) == 1:
        return str(next(iter(authors.values())).metadata["name"]), "an author page"
    facts = next((p for p in pages if p.id == FACTS_PAGE_ID), None)
    if facts is not None and facts.title.endswith(PROFILE_SUFFIX):
        return facts.title.removesuffix(PROFILE_SUFFIX), "the profile data"
    for page in pages:
        for block in page.blocks:
            match = COPYRIGHT.search(block.text)
            if match:
                return match.group(1), COPYRIGHT_LINE
    if counts:
        return counts.most_common(1)[0][0], HANDLE
    return "", ""


def _is_handle(name: str) -> bool:
    """A user name rather than a person's name: "oleg_nenashev", "@jdoe", "default"."""
    return bool(re.fullmatch(r"@?[\w.-]+", name)) and (name.islower() or "_" in name or "@" in name)


def _as_list(value: Any) -> list[str]:
    """Authors as names: a string (several joined by commas or "and"), a list of them, or
    Quarto's records (`- name: Andrew Heiss`)."""
    if isinstance(value, str):
        parts = re.split(r"\s*(?:,|&|\band\b)\s*", value) if value.count(",") < 3 else [value]
        return [p.strip() for p in parts if p.strip()]
    if isinstance(value, dict):
        return _as_list(person(value))
    if isinstance(value, list):
        return [
            name
            for v in value
            if isinstance(v, str | int | dict)
            for name in _as_list(v if not isinstance(v, int) else str(v))
        ]
    return []


def _with_profile(page: Page, owner: str) -> Page:
    """An author page titled by its person's name, with a Profile section of their facts."""
    name = str(page.metadata["name"]).strip()
    facts = {k: v for k, v in page.metadata.items() if k in PERSON_KEYS and render_value(v)}
    lines = [f"{name} {WRITES_THE_SITE}."] if name == owner else []
    for group in (
        {k: v for k, v in facts.items() if k not in CONTACT_KEYS and _is_short(v)},
        {k: v for k, v in facts.items() if k in CONTACT_KEYS},
    ):
        if group:
            pairs = "; ".join(f"{humanise(k)}: {render_value(v)}" for k, v in group.items())
            lines.append(f"{name} — {pairs}.")
    long = [(k, v) for k, v in facts.items() if k not in CONTACT_KEYS and not _is_short(v)]
    lines += [f"{name} — {humanise(k)}: {render_value(v)}." for k, v in long]
    title = str(page.metadata.get("title") or name)
    if not lines:
        return dataclasses.replace(page, title=title)
    # line 0: the section is not in the file, so its citation links to the page, no anchor
    profile = Block(2, PROFILE_HEADING, "\n".join(lines), 0, kinds=(FACT,) * len(lines))
    return dataclasses.replace(page, title=title, blocks=(*page.blocks, profile))


def _is_short(value: Any) -> bool:
    return not isinstance(value, list) and len(render_value(value).split()) <= 4


def with_config_owner(identity: Identity, root: Path | None) -> Identity:
    """The identity with what the generator's configuration says (ingest/authorship.py): its
    author when the pages name no person (a handle such as "oleg_nenashev" becomes one of the
    owner's names), else its copyright line or byline when the pages have none either."""
    if root is None or (identity.owner and identity.found_in not in WEAK):
        return identity
    strong, weak = configured_owner(root)
    chosen = strong or (None if identity.owner and identity.found_in != HANDLE else weak)
    if chosen is None:
        return identity
    names = tuple(dict.fromkeys([chosen.name, *identity.names]))
    return Identity(chosen.name, names, chosen.where)
