"""Pages in the formats personal sites are written in (tests/data/formats): Quarto and R
Markdown, reStructuredText, Nunjucks and Liquid inside Markdown. Code is left out of the prose,
what the page shows is kept, and no syntax reaches the index; on the shared real sites, the
Quarto and Hakyll sites keep their prose and no site leaks markup."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from conftest import REPO, shared_data

from bench.markup_debris import code_shown, debris_share
from sitecite.ingest import IngestResult, load_site
from sitecite.ingest.pages import Reading, parse_source
from sitecite.types import Page

FORMATS = REPO / "tests" / "data" / "formats"


@cache
def quarto() -> IngestResult:
    return load_site(FORMATS / "quarto")


def text_of(result: IngestResult, page: str) -> str:
    return "\n".join(f"{s.heading}\n{s.text}" for s in result.sections if s.page_id == page)


def read(relative: str) -> tuple[Page, Reading]:
    reading = Reading()
    source = (FORMATS / relative).read_text(encoding="utf-8")
    return parse_source(source, relative, reading=reading)[0], reading


def test_a_quarto_page_keeps_its_prose_and_leaves_its_code_out() -> None:
    post = text_of(quarto(), "posts/first-post")
    assert "I have counted shore crabs" in post and "The authors thank the rangers." in post
    assert "library(tidyverse)" not in post and "ggplot" not in post
    assert "A comment in R" not in post  # `#` inside a chunk is R, not a heading
    assert "Crab counts per transect, 2019 to 2024" in post  # the chunk's fig-cap
    assert "scales::dollar" not in post and "n_days" not in post  # inline R has no value yet
    page = next(p for p in quarto().pages if p.id == "posts/first-post")
    assert page.metadata["code_blocks"] == 2
    assert page.metadata["summary"] == "A season of surveys on the estuary"  # the subtitle


def test_quarto_divs_are_unwrapped_as_quarto_renders_them() -> None:
    post = text_of(quarto(), "posts/first-post")
    headings = [s.heading for s in quarto().sections if s.page_id == "posts/first-post"]
    assert headings == ["", "Methods", "Results"]  # callout and tab headings are no sections
    lines = post.splitlines()
    assert "Wear boots" in lines and "Tide tables" in lines  # callout titles, lines of their own
    assert "Spring counts are low." in lines and "Autumn" in lines
    assert "printed only in the PDF" not in post
    assert ":::" not in post and "{." not in post and "callout" not in post


def test_shortcodes_cross_references_and_citations_read_as_the_page_shows_them() -> None:
    post = text_of(quarto(), "posts/first-post")
    assert "at Coastal Ecology Lab for 2019–2025 seasons" in post  # {{< var >}}
    assert "as Okafor (2020) describes" in post  # @okafor2020, from refs.bib
    assert "(Chaudhry, Dotson, and Heiss 2021; Okafor 2020)" in post
    assert "As Figure 1 shows, counts peak in July; see Methods for the transects." in post
    assert "Press Ctrl-S to save the sheet." in post  # {{< kbd >}}; {{< fa >}} leaves nothing
    assert "Sampling happens at dawn" in post  # {{< include >}}
    assert "The transects run north to south." in post  # a raw HTML block
    assert "Coastal work is slow." in post  # a bracketed span
    assert "In Methods, North bay crabs was 41." in post  # a grid table
    assert "{{" not in post and "@" not in post


def test_quarto_heading_ids_are_pandocs() -> None:
    urls = {s.id: s.url for s in quarto().sections}
    assert urls["posts/first-post#methods"].endswith("#sec-methods")  # an explicit id
    assert urls["posts/first-post#results"].endswith("#results")
    assert urls["talks#2024"].endswith("#section")  # Pandoc: nothing before the first letter


def test_a_listing_of_data_files_is_read_into_its_page() -> None:
    talks = next(s for s in quarto().sections if s.id == "talks#2024")
    assert talks.text.splitlines() == [
        "Crabs and tides — date: 2024-03-01; description: Keynote at the North Sea Ecology "
        "Meeting; location: Aberdeen, Scotland; links: Slides.",
        "Counting what moves — date: 2024-09-12; description: Seminar at the Marine Institute; "
        "location: Galway, Ireland.",
    ]
    assert "talks/talks.yml: data shown by talks/index.qmd: read into that page" in (
        quarto().skipped
    )
    assert not any(p.source == "talks/talks.yml" for p in quarto().pages)


def test_a_site_of_linked_files_reads_its_listings_and_partials(tmp_path: Path) -> None:
    """A content folder whose files are links into another folder (a checkout's content linked
    into the site) reads as the folder itself: listings, partials and data files are found,
    where a test on the links' targets refused them."""
    mirror = tmp_path / "site"
    for path in sorted((FORMATS / "quarto").rglob("*")):
        if path.is_file():
            link = mirror / path.relative_to(FORMATS / "quarto")
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(path.resolve())
    linked = load_site(mirror)
    assert [(s.id, s.text) for s in linked.sections] == [(s.id, s.text) for s in quarto().sections]
    assert "Crabs and tides" in text_of(linked, "talks")
    assert linked.skipped == quarto().skipped and linked.problems == []


def test_a_partial_outside_the_site_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "secret.qmd").write_text("The outside text.\n", encoding="utf-8")
    site = tmp_path / "site"
    site.mkdir()
    (site / "_quarto.yml").write_text("project:\n  type: website\n", encoding="utf-8")
    (site / "about.qmd").write_text(
        "---\ntitle: About\n---\n\nInside.\n\n{{< include ../secret.qmd >}}\n", encoding="utf-8"
    )
    result = load_site(site)
    assert "Inside." in text_of(result, "about")
    assert "outside text" not in text_of(result, "about")
    assert any("file not found" in str(w) for w in result.warnings + result.problems)


def test_a_quarto_project_s_metadata_and_partials() -> None:
    result = quarto()
    assert result.identity.owner == "Mira Okafor"  # posts/_metadata.yml's author
    assert "_snippet.qmd" in "\n".join(result.skipped)  # a partial: never rendered
    assert {p.id for p in result.pages} == {"about", "posts/first-post", "talks"}
    assert debris_share(result.sections)[0] == 0
    retention = {f.source: f.retention for f in result.files}
    assert all(r >= 0.9 for r in retention.values()), retention
    assert result.problems == [] and result.warnings == []


def test_an_r_markdown_page() -> None:
    page, reading = read("report.Rmd")
    text = "\n".join(b.text for b in page.blocks)
    assert "Daily rainfall against the river level at the weir" in text  # fig.cap in the header
    assert "Figure 1 shows the lag clearly." in text  # Bookdown's \@ref(fig:rain-plot)
    assert "knitr" not in text and "Rscript" not in text and "lag_days" not in text
    assert [b.heading for b in page.blocks if b.level] == ["Model"]
    assert page.metadata["code_blocks"] == 3 and reading.warnings == []


def test_a_restructuredtext_page_read_with_docutils() -> None:
    page, reading = read("pelican/content/first-post.rst")
    assert page.title == "Walking the estuary"
    assert page.metadata["slug"] == "walking-the-estuary"  # docinfo fields, as Pelican reads
    assert page.metadata["summary"] == "A morning on the mudflats."
    count = next(b for b in page.blocks if b.heading == "How I count")
    assert count.anchor == "how-i-count" and count.line == 16
    assert count.text.splitlines() == [
        "I count along three transects:",
        "North bay",
        "Salt pans: the inner pans",
        "Counts are rough in fog.",
        "Boots matter more than binoculars.",  # an unknown directive keeps its text
        "Gear: Boots, a clipboard and a tide table.",
        "A raw paragraph.",
    ]
    intro = page.blocks[0].text
    assert "see the methods and gear for what I carried" in intro  # Sphinx roles keep text
    everything = "\n".join(b.text for b in page.blocks)
    assert "survey(transects)" not in everything and "comment" not in everything
    assert "tides" not in everything  # a toctree lists other files
    # a markup error is a warning naming the file and line; the rest of the page is kept
    assert [(w.path, w.line) for w in reading.warnings] == [("pelican/content/first-post.rst", 52)]


def test_nunjucks_and_liquid_inside_markdown() -> None:
    page, _ = read("nunjucks.md")
    lines = page.blocks[0].text.splitlines()
    assert lines == [
        "A grey heron on the weir",  # a shortcode's caption
        "An outer {% timeline %} tag holds the events.",  # {% raw %} goes inside code too
        "Write {{ page.title }} to show the title.",  # raw text is shown as written
        "The heron came back in March.",
        "A quiet morning.",
    ]
    assert page.metadata["code_blocks"] == 1  # {% highlight %} is code


@pytest.mark.slow
@pytest.mark.parametrize("site", ["andrewheiss", "ksreyes", "brianbuccola"])
def test_the_shared_quarto_and_hakyll_sites_keep_their_prose(site: str) -> None:
    result = load_site(shared_data("sites", site))
    read_words = sum(f.words_read for f in result.files)
    assert read_words > 20_000
    assert sum(f.words_kept for f in result.files) >= 0.95 * read_words
    assert result.problems == [] and result.warnings == []


SHARED = (
    *("alanaktion", "andrewheiss", "benbalter", "bldavies", "brianbuccola", "derekkedziora"),
    *("jarvis", "kaeruct", "ksreyes", "lengstorf", "maxleiter", "mpilia", "olegnenashev"),
    *("pmichaillat", "roobie", "rpsychologist", "shazow", "timlrx"),
)


@pytest.mark.slow
@pytest.mark.parametrize("site", SHARED)
def test_no_markup_reaches_the_index_of_a_shared_site(site: str) -> None:
    """What a page shows as code (`<C-v>` in a post about vim) is text, not leaked syntax."""
    root = shared_data("sites", site)
    result = load_site(root)
    sections = [
        s for s in result.sections if not s.metadata.get("source", "").startswith("questions")
    ]
    share, kinds, lines = debris_share(sections, code_shown(root))
    assert share <= 0.01, (kinds, lines[:5])


def test_the_debris_measure_still_counts_syntax_beside_code(tmp_path: Path) -> None:
    (tmp_path / "post.md").write_text("Type `<C-v>` to paste.\n\nIt says {{ site.title }}.\n")

    class Section:
        heading = ""
        metadata = {"source": "post.md"}

        def __init__(self, text: str) -> None:
            self.text = text

    shown = code_shown(tmp_path)
    assert debris_share([Section("Type <C-v> to paste.")], shown)[0] == 0
    assert debris_share([Section("Type <C-v> to paste.")])[0] == 1  # without the site
    assert debris_share([Section("Type <C-v> to paste <div>.")], shown)[0] == 1


def test_pelican_s_metadata_header_is_front_matter() -> None:
    source = (
        "Title: Walking the dunes\nDate: 2023-05-01 08:00\nTags: fieldwork, dunes\n"
        "Summary: A morning on the dunes,\n    before the wind.\n\nThe dunes moved 3 m.\n"
    )
    page = parse_source(source, "content/dunes.md")[0]
    assert page.title == "Walking the dunes" and page.metadata["tags"] == ["fieldwork", "dunes"]
    assert page.metadata["summary"] == "A morning on the dunes, before the wind."
    assert [b.text for b in page.blocks] == ["The dunes moved 3 m."]
    prose = parse_source("Note: this page is old.\nIt stays prose.\n", "note.md")[0]
    assert prose.blocks[0].text == "Note: this page is old. It stays prose."


def test_a_page_rendered_from_r_markdown_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "post.Rmd").write_text("---\ntitle: Tides\n---\n\nThe tide turned at six.\n")
    (tmp_path / "post.html").write_text("<h1>Tides</h1><p>The tide turned at six.</p>\n")
    result = load_site(tmp_path)
    assert [p.source for p in result.pages] == ["post.Rmd"] and result.problems == []
    assert result.skipped == ["post.html: rendered from post.Rmd"]


def test_an_asciidoc_page() -> None:
    page, reading = read("estuary.adoc")
    assert page.title == "Field guide to the estuary"
    assert page.metadata["author"] == "Mira Okafor" and page.metadata["station"]
    intro, there, safe = page.blocks
    assert intro.text.splitlines() == [
        "The guide covers the North Bay Station transects. See the tide tables and the safety "
        "notes before you go.",
        "Tides here run 6 m.",  # a footnote, after its paragraph
    ]
    # the document's :idprefix: and :idseparator:, and an explicit [[safety]] anchor
    assert (there.heading, there.anchor) == ("Getting there", "getting-there")
    assert safe.anchor == "safety"
    assert there.text.splitlines() == [
        "Take the coast road and park at the P2 lot.",
        "Kit list",
        "Boots: waders in winter",
        "A clipboard",
        "The gate closes at dusk.",
        "./count-crabs --site north",  # a short shell block is a command, as in Markdown
    ]
    assert safe.text.splitlines() == [
        "In Staying safe, Soft mud what to do was Stay on the marked path.",
        "In Staying safe, Fog what to do was Turn back.",
        "Tide: the sea's rise and fall twice a day.",
        "The estuary keeps its own time.",
        "A heron on the weir",
    ]
    assert page.metadata["code_blocks"] == 1 and reading.warnings == []


def test_asciidoctor_ids() -> None:
    from sitecite.ingest.asciidoc import asciidoctor_id

    assert asciidoctor_id("Getting Started with v1.2") == "_getting_started_with_v1_2"
    assert asciidoctor_id("What's new?", "", "-") == "whats-new"
