"""With presets alone, every citation URL of the shared real sites is on the live scheme with the
live anchors: the examples each site's SOURCE.txt gives (file -> URL, heading -> anchor) are
the ground truth, on all eighteen sites, and every page of four of them is checked against its
scheme.

The shared copies hold content and data only. What a site kept only in code is given as its
owner would give it (bench/site_urls.py): an address that was in a config written as code
(`--base-url`), and alanaktion's dated URLs, which its content config built, as a `--route`
rule. Without that rule its posts follow the rule the site's own links show, and its index
says those URLs are inferred, not verified. How presets read code files is tested on small
sites of their own (tests/data/sites)."""

from __future__ import annotations

import datetime as dt
import re
from functools import cache
from pathlib import Path

import pytest
from conftest import shared_data

from bench import site_urls
from bench._source_txt import anchor_examples, url_examples
from bench.markup_debris import debris_share
from sitecite.ingest import IngestResult, load_site
from sitecite.ingest.routes import NO_PRESET

FIXTURES = Path(__file__).parent / "data" / "sites"

SITES = ("shazow", "benbalter", "lengstorf", "alanaktion")
NO_EXAMPLES = ("jarvis", "timlrx")  # their URLs are checked in tests/test_routes.py
# Each site's live scheme for its pages (SOURCE.txt, "URL scheme").
SCHEMES = {
    "shazow": re.compile(r"https://shazow\.net/(?:posts/[a-z0-9-]+/)?"),
    "benbalter": re.compile(
        r"https://ben\.balter\.com/(?:\d{4}/\d\d/\d\d/[a-z0-9-]+/|[a-z0-9-]+/|404\.html)?"
    ),
    "lengstorf": re.compile(r"https://lengstorf\.com/(?:[a-z0-9-]+/)?"),
    "alanaktion": re.compile(r"https://blog\.phpizza\.com/(?:\d{4}/\d\d/\d\d/[a-z0-9-]+/|about/)"),
}


@cache
def ingested(site: str) -> IngestResult:
    return site_urls.ingest(site, shared_data("sites", site))


def source_text(site: str) -> str:
    return (shared_data("sites", site) / "SOURCE.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("site", site_urls.ALL)
def test_the_examples_of_source_txt_land(site: str) -> None:
    result, text = ingested(site), source_text(site)
    examples = site_urls.url_results(site, result, text)
    assert len(examples) >= 2 or site in NO_EXAMPLES, url_examples(text, shared_data("sites"))
    missed = [(e.source, e.got, e.expected) for e in examples if not e.lands]
    assert missed == []
    anchors = site_urls.anchor_results(result, text)
    assert anchors or not anchor_examples(text) or site in ("olegnenashev", "ksreyes")
    assert [(e.source, e.got, e.expected) for e in anchors if not e.lands] == []


# What a URL that pretends shows: a source file's extension or a folder only the sources have.
SOURCE_PATH = re.compile(
    r"\.(md|mdx|qmd|rmd|markdown|adoc|rst|astro|ya?ml|json)$"
    r"|/(content|src|_posts|_pages|_data|data|static|gatsby-theme[^/]*)/",
    re.I,
)


@pytest.mark.slow
@pytest.mark.parametrize("site", site_urls.ALL)
def test_no_url_pretends_and_every_guess_is_said(site: str) -> None:
    """On every shared site, a URL that is not said to be a guess is no source path; the
    guesses are named in the warning and in the index's record."""
    result = ingested(site)
    report = result.url_report()
    guessed = set(report["guessed"])  # type: ignore[arg-type]
    for page in (p for p in result.pages if p.kind != "facts" and p.id not in guessed):
        assert not SOURCE_PATH.search(page.url.split("#")[0]), (page.source, page.url)
    warning = next((line for line in result.route_lines() if line.startswith(NO_PRESET)), "")
    assert bool(warning) == bool(result.unrouted)
    assert report["unverified"] == bool(result.unrouted)


@pytest.mark.slow
@pytest.mark.parametrize("site", SITES)
def test_every_page_of_the_site_is_on_its_live_scheme(site: str) -> None:
    result = ingested(site)
    pages = [p for p in result.pages if p.kind != "facts"]
    assert len(pages) >= 30
    for page in pages:
        assert SCHEMES[site].fullmatch(page.url), (page.source, page.url)
    for section in (s for s in result.sections if s.page_id != "_facts"):
        if site == "lengstorf":  # no heading ids on the live site: citations link to the page
            assert "#" not in section.url, section.url
        path, _, anchor = section.url.partition("#")
        assert SCHEMES[site].fullmatch(path) or section.page_id == "_facts", section.url
        assert anchor == "" or re.fullmatch(r"[\w\ufe0f-]+", anchor), section.url


def _front_date(text: str) -> str:
    found = re.search(r"^date:\s*['\"]?([^'\"\n]+)", text, re.M)
    return found.group(1).strip() if found else ""


@pytest.mark.slow
def test_dated_urls_take_the_date_their_generator_does() -> None:
    """Jekyll: the file name's date (no post has a date key); alanaktion: the front-matter date
    in UTC, as its content config built the id (a late-evening time stays on its day)."""
    for page in ingested("benbalter").pages:
        name = Path(page.source).name
        if page.source.startswith("_posts/"):
            assert f"/{name[:4]}/{name[5:7]}/{name[8:10]}/" in page.url, page.url
    root = shared_data("sites", "alanaktion")
    checked = 0
    for page in ingested("alanaktion").pages:
        if not page.source.startswith("content/blog/"):
            continue
        raw = _front_date((root / page.source).read_text(encoding="utf-8"))
        moment = dt.datetime.fromisoformat(raw.replace("Z", "+00:00").replace(" ", "T"))
        if moment.tzinfo is not None:
            moment = moment.astimezone(dt.UTC)
        assert f"/{moment:%Y/%m/%d}/" in page.url, (page.source, raw, page.url)
        checked += 1
    assert checked >= 80


@pytest.mark.slow
@pytest.mark.parametrize("site", SITES)
def test_the_question_sets_name_pages_that_exist(site: str) -> None:
    from sitecite.eval.questions import index_source_ids, load_question_set

    known = index_source_ids(ingested(site).sections)
    for half in ("dev", "test"):
        load_question_set(shared_data("sites", site) / f"questions-{half}.json", known)


@pytest.mark.slow
@pytest.mark.parametrize("site", [*SITES, "jarvis", "timlrx"])
def test_markup_never_reaches_the_index(site: str) -> None:
    result = ingested(site)
    share, kinds, lines = debris_share(
        s for s in result.sections if not s.metadata.get("source", "").startswith("questions")
    )
    assert share <= 0.01, (kinds, lines[:5])
    assert all(f.retention >= 0.6 for f in result.files if f.words_read >= 100)
    read = sum(f.words_read for f in result.files)
    assert sum(f.words_kept for f in result.files) >= 0.85 * read
    assert result.problems == [] and result.warnings == [], result.warnings[:3]


def test_urls_that_only_code_defined_are_said_to_be_inferred() -> None:
    """Without the owner's rule, alanaktion's posts match no preset's rule: Astro is known from
    package.json, but where it serves content/blog/ was code. Its posts link to each other at
    their dated URLs, and that rule places every post where the owner's rule does; the index
    says so, names what it tried, says these URLs are inferred and not verified, and how to
    give the site's map or a rule. Its data file gets no URL that pretends."""
    root = shared_data("sites", "alanaktion")
    result = load_site(root, "https://blog.phpizza.com")
    assert [p.name for p in result.router.presets] == ["astro"]
    posts = [p.id for p in result.pages if p.source.startswith("content/blog/")]
    assert len(posts) >= 80 and set(posts) <= set(result.unrouted) <= set(result.learned)
    warning = next(line for line in result.route_lines() if line.startswith(NO_PRESET))
    assert warning.startswith(f"{NO_PRESET} {len(result.unrouted)} page(s)")
    assert "astro (package.json depends on astro (no content config))" in warning
    assert (
        f"{len(posts)} are at the URLs the site's own links show (content/blog/\\d+/(?P<name>"
        "[^/]+) => /{page.year}/{page.month}/{page.day}/{page.slug}/ (9 links)): inferred, "
        "not verified" in warning
    )
    assert "--sitemap FILE|URL" in warning and "--route" in warning
    by_owner = {p.id: p.url for p in ingested("alanaktion").pages}
    assert {p.id: p.url for p in result.pages} == by_owner
    assert all(p.source != "content/unsplash.json" for p in result.pages)
    assert any(s.startswith("content/unsplash.json: data for") for s in result.skipped)
    assert ingested("alanaktion").unrouted == []  # the owner's rule routes every post


def test_gatsby_is_known_from_its_package_json_and_routes_by_slug() -> None:
    result = ingested("lengstorf")
    gatsby = result.router.presets[0]
    assert gatsby.name == "gatsby" and "gatsby-theme-jason-blog" in gatsby.evidence
    assert result.unrouted == []
    out = dict(item.split(": ", 1) for item in result.skipped)
    assert all(out.get(f"content/offers/{n}.md") for n in ("default", "focus", "travel"))


def test_an_astro_content_config_dates_its_entries_in_utc() -> None:
    """The collection's glob base, its date-built ids (UTC: a post written at 23:49 with no
    zone keeps its day) and the dynamic route that serves them, read from the code files."""
    result = load_site(FIXTURES / "astro-dated")
    urls = {s.id: s.url for s in result.sections}
    assert urls == {
        "content/blog/2014/late-night#intro": "https://notes.example/2014/06/26/late-night/",
        "content/blog/2014/late-night#hardware-": (
            "https://notes.example/2014/06/26/late-night/#hardware-"
        ),
        "content/blog/2021/zulu": "https://notes.example/2021/07/08/zulu/",
    }
    assert result.unrouted == []
    assert (
        "dynamic route"
        in dict(i.split(": ", 1) for i in result.skipped)["src/pages/[...slug].astro"]
    )


def test_a_gatsby_config_gives_the_address_and_the_heading_ids() -> None:
    result = load_site(FIXTURES / "gatsby-config")
    urls = {s.id: s.url for s in result.sections}
    assert urls == {
        "content/posts/01-first#intro": "https://field.example/coast-walk/",
        "content/posts/01-first#what-we-carried": (
            "https://field.example/coast-walk/#what-we-carried"
        ),
        "content/posts/02-second/second": "https://field.example/river-map/",
        "src/pages/about": "https://field.example/about/",
    }
    assert [i.split(":")[0] for i in result.skipped] == ["content/offers/newsletter.md"]
