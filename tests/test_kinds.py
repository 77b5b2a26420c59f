"""Sentence kinds decided at ingestion, and the site's identity from its own structure."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_data

from sitecite.ingest import load_site
from sitecite.ingest.kinds import QUOTABLE, has_clause, is_fragment, refine, tidy

PAGE = """---
title: Homelab notes
---

## Table of Contents:

- [Storage](#storage)
- [Network](#network)

## Storage

I keep every photo on a Synology DiskStation DS224+ in the closet.

![Example: Buffalo TeraStation NAS Drives](./nas.png)

_The closet, before the cleanup._

- [**Synology DiskStation DS224+**](https://example.com/ds224)
  - 2x 16TB drives
- [Plex](https://plex.tv)

This website is also mirrored on the Tor network at:

> [**abcdef.onion**](http://abcdef.onion/)

Network Attached Storage (NAS)

~~GoDaddy~~ → ~~Google Domains~~ → [Cloudflare Registrar](https://cloudflare.com)

[Checkout the Tailwind Nextjs Starter Blog template](https://example.com/template)

I keep every photo on a Synology DiskStation DS224+ in the closet.

## Further reading

- [The dawn of dark mode](https://example.com/dawn)

## Rows

| Device | Storage |
| --- | --- |
| NAS | 32 TB |
"""


def kinds_of(tmp_path: Path, files: dict[str, str]) -> dict[str, str]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    result = load_site(tmp_path)
    assert not result.problems
    found: dict[str, str] = {}
    for section in result.sections:
        for sentence, kind in zip(section.sentences, section.sentence_kinds, strict=True):
            found.setdefault(sentence, kind)
    return found


def test_structure_and_language_give_each_sentence_a_kind(tmp_path: Path) -> None:
    kinds = kinds_of(tmp_path, {"homelab.md": PAGE})
    assert kinds["Storage"] == "toc" and kinds["Network"] == "toc"
    assert kinds["I keep every photo on a Synology DiskStation DS224+ in the closet."] == "prose"
    assert kinds["Example: Buffalo TeraStation NAS Drives"] == "caption"
    assert kinds["The closet, before the cleanup."] == "caption"
    assert kinds["Synology DiskStation DS224+: 2x 16TB drives"] == "item"
    assert kinds["Plex"] == "item"  # a thing's name in a list is content
    assert kinds["This website is also mirrored on the Tor network at:"] == "prose"
    assert kinds["abcdef.onion"] == "link"
    assert kinds["Network Attached Storage (NAS)"] == "fragment"
    assert kinds["Cloudflare Registrar"] == "link"  # arrows and struck-out text trimmed away
    assert kinds["Checkout the Tailwind Nextjs Starter Blog template"] == "link"
    assert kinds["The dawn of dark mode"] == "link"
    assert kinds["In Rows, NAS storage was 32 TB."] == "row"


def test_the_same_sentence_twice_on_a_page_is_a_duplicate(tmp_path: Path) -> None:
    (tmp_path / "homelab.md").write_text(PAGE)
    result = load_site(tmp_path)
    storage = next(s for s in result.sections if s.id == "homelab#storage")
    repeated = "I keep every photo on a Synology DiskStation DS224+ in the closet."
    kinds = [k for s, k in zip(storage.sentences, storage.sentence_kinds, strict=True)]
    assert [k for s, k in zip(storage.sentences, kinds, strict=True) if s == repeated] == [
        "prose",
        "duplicate",
    ]


def test_language_rules() -> None:
    assert has_clause("Jake uses a Synology NAS.") and has_clause("It worked")
    assert has_clause("To back up the server yourself, follow these steps:")
    assert not has_clause("Apple M3 Pro (12-core CPU, 18-core GPU)")
    assert is_fragment("tailwind nextjs starter blog stars")
    assert not is_fragment("Short facts in one sentence work.")
    assert refine("→ →", "prose") == "decoration"
    assert refine("Example: Buffalo TeraStation NAS Drives", "prose") == "label"
    assert refine("36 GB RAM", "item") == "item"
    assert tidy("→ → Cloudflare Registrar") == "Cloudflare Registrar"
    assert tidy("🧪  Homelab") == "Homelab"
    assert {"prose", "item", "row", "fact", "summary", "published"} == QUOTABLE


def test_an_author_page_becomes_the_owner_profile(tmp_path: Path) -> None:
    author = "---\nname: Ada Quill\noccupation: Engineer\ncompany: Foundry\n---\n\nHello there.\n"
    post = "---\ntitle: A post\nauthors: ['default']\n---\n\nMy team placed 2nd.\n"
    (tmp_path / "authors").mkdir()
    (tmp_path / "authors" / "default.md").write_text(author)
    (tmp_path / "post.md").write_text(post)
    result = load_site(tmp_path)
    assert result.identity.owner == "Ada Quill"
    profile = next(s for s in result.sections if s.id == "authors/default#profile")
    assert profile.title == "Ada Quill" and profile.url.endswith("authors/default")
    assert profile.sentences == (
        "Ada Quill writes this site.",
        "Ada Quill — occupation: Engineer; company: Foundry.",
    )
    assert set(profile.sentence_kinds) == {"fact"}


def test_a_copyright_line_names_the_owner_when_nothing_else_does(tmp_path: Path) -> None:
    (tmp_path / "cli.md").write_text("# CLI\n\nMIT &copy; [Bo Rivers](https://x.example)\n")
    assert load_site(tmp_path).identity.owner == "Bo Rivers"


@pytest.mark.parametrize(
    ("name", "config"),
    [
        (
            "gatsby-config.js",
            "module.exports = {\n  siteMetadata: {\n    author: {\n"
            "      name: 'Ida Moss',\n      minibio: 'x',\n    },\n  },\n};\n",
        ),
        ("config.toml", 'title = "A site"\nauthor = "Ida Moss"\n'),
        ("_config.yml", "title: A site\nauthor:\n  name: Ida Moss\n"),
    ],
)
def test_the_generators_configuration_names_the_owner_the_pages_do_not(
    tmp_path: Path, name: str, config: str
) -> None:
    (tmp_path / "post.md").write_text("---\ntitle: A post\n---\n\nI like bees.\n")
    (tmp_path / name).write_text(config)
    assert load_site(tmp_path).identity.owner == "Ida Moss"


def test_the_word_copyright_in_prose_names_no_one(tmp_path: Path) -> None:
    (tmp_path / "games.md").write_text(
        "# Games\n\nNintendo still doesn't get that copyright works against them sometimes.\n"
    )
    assert load_site(tmp_path).identity.owner == ""


def test_real_sites_owners() -> None:
    timlrx = load_site(shared_data("sites", "timlrx"))
    assert timlrx.identity.owner == "Timothy Lin"
    jarvis = load_site(shared_data("sites", "jarvis"))
    assert jarvis.identity.owner == "Jake Jarvis"


IMAGE_AND_LINK = """---
title: I Made a Thing
---

Introducing the Lantern Sandbox, with on-demand Windows 98 virtual machines.

![Play in the Lantern Sandbox, at your own risk.](./screenshot.png)
_[**Play in the Lantern Sandbox, at your own risk.**](https://lantern.example)_

![Diagram](./diagram.png) The diagram shows how the backend reaches the frontend through a queue.
"""


def test_an_image_with_its_link_below_is_a_caption(tmp_path: Path) -> None:
    """An image and the linked line under it (one paragraph in Markdown, as on jarvis' Y2K
    Sandbox post) are a caption, never quoted; an image before a sentence leaves it prose."""
    kinds = kinds_of(tmp_path, {"sandbox.md": IMAGE_AND_LINK})
    assert kinds["Play in the Lantern Sandbox, at your own risk."] == "caption"
    shows = "The diagram shows how the backend reaches the frontend through a queue."
    assert next(k for s, k in kinds.items() if s.endswith(shows)) == "prose"
