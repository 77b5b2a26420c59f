"""The site's owner from each generator's own configuration (tests/data/owners, and Pelican's
in tests/data/formats), the owners of the shared real sites, and an LLM prompt that reads as
English when no owner is found."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, shared_data

from sitecite.generate.prompts import system_prompt
from sitecite.ingest import load_site
from sitecite.ingest.authorship import configured_owner

OWNERS = REPO / "tests" / "data" / "owners"


@pytest.mark.parametrize(
    ("folder", "where"),
    [
        ("eleventy-json", "src/_data/metadata.json author"),
        ("eleventy-js", "_data/site.js author"),
        ("quarto", "_quarto.yml author"),  # {name: {given, family}}
        ("mkdocs", "mkdocs.yml site_author"),  # beside a `!!python/name:` tag
        ("hakyll", "site.hs feedAuthorName"),
        ("hexo", "_config.yml author"),
        ("npm", "package.json author"),  # "Name <mail> (url)"
        ("hugo-dir", "config/_default/params.toml author"),
        ("zola", "config.toml extra.author"),
    ],
)
def test_each_generator_s_configuration_names_the_owner(folder: str, where: str) -> None:
    named, _ = configured_owner(OWNERS / folder)
    assert named is not None and (named.name, named.where) == ("Ines Duarte", where)
    identity = load_site(OWNERS / folder).identity
    assert identity.owner == "Ines Duarte" and identity.found_in == where


def test_pelican_s_author_is_read_without_running_its_configuration() -> None:
    identity = load_site(REPO / "tests" / "data" / "formats" / "pelican").identity
    assert (identity.owner, identity.found_in) == ("Mira Okafor", "pelicanconf.py AUTHOR")


def test_a_byline_in_the_site_s_description_names_the_owner() -> None:
    identity = load_site(OWNERS / "byline").identity
    assert (identity.owner, identity.found_in) == ("Ines Duarte", "mkdocs.yml site_description")


def test_a_handle_in_front_matter_gives_way_to_the_configured_name() -> None:
    identity = load_site(OWNERS / "handle-author").identity
    assert identity.owner == "Ines Duarte" and "ines_d" in identity.names


def test_authors_written_together_are_counted_one_by_one(tmp_path: Path) -> None:
    for number in range(3):
        (tmp_path / f"p{number}.md").write_text(
            f"---\ntitle: Post {number}\nauthor: Ines Duarte, GPT-5\n---\n\nText.\n"
        )
    assert load_site(tmp_path).identity.owner == "Ines Duarte"


def test_no_configuration_and_no_author_names_no_one(tmp_path: Path) -> None:
    (tmp_path / "post.md").write_text("---\ntitle: A post\n---\n\nI like bees.\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: Bee Notes\nsite_author: bees\n")
    assert load_site(tmp_path).identity.owner == ""


def test_the_prompt_reads_as_english_without_an_owner() -> None:
    opening = system_prompt("").splitlines()[0]
    assert opening == (
        "You answer visitors' questions about a website and whoever it is about, using only "
        "the numbered sources quoted from the website in the user message."
    )
    assert system_prompt("Ines Duarte").splitlines()[0] == (
        "You answer visitors' questions about Ines Duarte, using only the numbered sources "
        "quoted from Ines Duarte's website in the user message."
    )
    assert "'s website" not in opening


# The owners of the shared sites whose data names them; alanaktion, brianbuccola, lengstorf
# and maxleiter named theirs only in configuration written as code, removed from the copies.
SHARED_OWNERS = {
    "andrewheiss": "Andrew Heiss",
    "benbalter": "Benjamin J. Balter",
    "bldavies": "Benjamin Davies",
    "derekkedziora": "Derek Kedziora",
    "jarvis": "Jake Jarvis",
    "kaeruct": "Andrés Villarreal",
    "ksreyes": "Kenneth S. Reyes",
    "mpilia": "Martino Pilia",
    "olegnenashev": "Oleg Nenashev",
    "pmichaillat": "Pascal Michaillat",
    "roobie": "Björn Roberg",
    "rpsychologist": "Kristoffer Magnusson",
    "shazow": "Andrey Petrov",
    "timlrx": "Timothy Lin",
}


@pytest.mark.slow
@pytest.mark.parametrize("site", sorted(SHARED_OWNERS))
def test_the_shared_sites_owners(site: str) -> None:
    assert load_site(shared_data("sites", site)).identity.owner == SHARED_OWNERS[site]
