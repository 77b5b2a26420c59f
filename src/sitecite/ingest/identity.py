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
# "© 2021 Noor Haddad", "Copyright (c) 2020 Alan Hardman": the name is capitalised (only the
# word "copyright" may be in any case: "copyright works against them" names no one)
_COPYRIGHT = re.compile(
    r"(?:©|\((?i:c)\)|\b(?i:copyright)\b)\s*(?:\(?(?i:c)\)\s*)?"
    r"(?:\d{4}(?:\s*[-–]\s*\d{4})?,?\s*)?"
    r"([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){1,2})"
)


@dataclass(frozen=True)
class Identity:
    """The site owner's full name ("" when the site does not say) and every name it goes by."""

    owner: str = ""
    names: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"owner": self.owner, "names": list(self.names)}


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
    owner = _owner(pages, authors)
    updated = [
        _with_profile(page, owner) if page.id.rsplit("/", 1)[-1] in authors else page
        for page in pages
    ]
    names = tuple(dict.fromkeys([owner, *(str(p.metadata["name"]) for p in authors.values())]))
    return updated, Identity(owner, tuple(n for n in names if n))


def _owner(pages: Sequence[Page], authors: dict[str, Page]) -> str:
    """The most frequent author of the pages; else the only author page's person; else the
    profile's name; else the name in a copyright line."""
    counts: Counter[str] = Counter()
    for page in pages:
        for key in AUTHOR_KEYS:
            for author in _as_list(page.metadata.get(key)):
                person = authors.get(author)
                counts[str(person.metadata["name"]) if person else author] += 1
    if counts:
        return counts.most_common(1)[0][0]
    if len(authors) == 1:
        return str(next(iter(authors.values())).metadata["name"])
    facts = next((p for p in pages if p.id == FACTS_PAGE_ID), None)
    if facts is not None and facts.title.endswith(PROFILE_SUFFIX):
        return facts.title.removesuffix(PROFILE_SUFFIX)
    for page in pages:
        for block in page.blocks:
            match = _COPYRIGHT.search(block.text)
            if match:
                return match.group(1)
    return ""


def _as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [str(v).strip() for v in value if isinstance(v, str | int) and str(v).strip()]
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


# Where site generators' configurations name the site's author: Jekyll and Hugo (`author`, or
# `author.name`, `params.author`), Gatsby's and others' JavaScript (`author: {name: '...'}`).
CONFIG_FILES = ("_config.yml", "_config.yaml", "config.toml", "hugo.toml", "config.yaml")
JS_CONFIG_FILES = ("gatsby-config.js", "gatsby-config.ts", "docusaurus.config.js")
_JS_AUTHOR = re.compile(
    r"\bauthor\s*:\s*(?:\{[^{}]*?\bname\s*:\s*)?[\"'`]([^\"'`]{3,60})[\"'`]", re.DOTALL
)


def config_owner(root: Path) -> str:
    """The author a site generator's configuration names in `root` (or a first-level
    folder such as `website/`), "" when none does: the owner of a site whose pages never
    say who wrote them."""
    from sitecite.ingest.layout import config_file, read

    folders = [root, *(p for p in sorted(root.iterdir()) if p.is_dir())] if root.is_dir() else []
    for folder in folders:
        for name in CONFIG_FILES:
            data = config_file(folder / name) if (folder / name).is_file() else {}
            params = data.get("params")
            for value in (
                data.get("author"),
                params.get("author") if isinstance(params, dict) else None,
            ):
                person = value.get("name") if isinstance(value, dict) else value
                if isinstance(person, str) and _looks_like_a_name(person):
                    return person.strip()
        for name in JS_CONFIG_FILES:
            match = _JS_AUTHOR.search(read(folder / name)) if (folder / name).is_file() else None
            if match and _looks_like_a_name(match.group(1)):
                return match.group(1).strip()
    return ""


def _looks_like_a_name(text: str) -> bool:
    """Two or three capitalised words: "Andrey Petrov", not "me" or a URL."""
    return bool(re.fullmatch(r"[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+){1,2}", text.strip()))


def with_config_owner(identity: Identity, root: Path | None) -> Identity:
    """The identity, with the configuration's author when the pages name no owner."""
    if identity.owner or root is None:
        return identity
    owner = config_owner(root)
    return Identity(owner, (owner,)) if owner else identity
