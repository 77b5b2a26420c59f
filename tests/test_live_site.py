"""A live site: the example site rendered to HTML and served from 127.0.0.1 (never any other
address) is indexed by URL into the same sections as its source folder; a second crawl fetches
no page (conditional GET) and embeds nothing; robots.txt, sitemaps and links are followed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import EXAMPLE_SITE
from static_site import StaticSite

from bench.site_render import render_site, write_sitemap
from sitecite.config import load_settings
from sitecite.crawl import USER_AGENT, CrawlOptions, crawl
from sitecite.embed import Embedder
from sitecite.index.store import read_sections
from sitecite.ingest import load_site
from sitecite.refresh import index_source

pytest.importorskip("readability", reason="the test extra installs readability-lxml")


@pytest.fixture()
def site(tmp_path: Path) -> Iterator[StaticSite]:
    root = tmp_path / "public"
    render_site(EXAMPLE_SITE, root)
    with StaticSite(root) as server:
        write_sitemap(root, server.url)
        yield server


def page_sections(origin: str) -> dict[tuple[str, str], tuple[str, str]]:
    """The source folder's sections, routed as the rendered site serves them, without the
    synthetic ones (profile facts, front-matter stacks), which no page shows as prose."""
    ingested = load_site(EXAMPLE_SITE, origin, "{page_id}/")
    return {
        (s.url, s.heading): (s.title, s.text)
        for s in ingested.sections
        if s.metadata["kind"] not in ("facts", "stack")
    }


def fast_settings(**extra: object):  # type: ignore[no-untyped-def]
    flags = {"index.crawl_requests_per_second": 200.0, **extra}
    return load_settings(flags, environ={})


def test_live_site_gives_the_source_folders_sections_and_a_recrawl_fetches_nothing(
    site: StaticSite, tmp_path: Path, embedder: Embedder
) -> None:
    index = tmp_path / "index"
    first = index_source(f"{site.url}/", index, embedder, fast_settings())
    assert first.build is not None and first.problems == []
    crawled = {(s.url, s.heading): (s.title, s.text) for s in read_sections(index)}
    assert crawled == page_sections(site.url)
    assert first.crawl["discovered_by"] == "sitemap"
    assert not any(r.path.startswith("/drafts/") for r in site.requests())  # robots.txt
    assert {r.user_agent for r in site.requests()} == {USER_AGENT}

    site.clear()
    second = index_source(f"{site.url}/", index, embedder, fast_settings())
    assert second.build is None  # nothing changed: no embedding, the index is left alone
    assert second.crawl["changed_pages"] == 0
    assert second.crawl["unchanged_pages"] == first.crawl["changed_pages"]
    fetched_pages = [r for r in site.requests(200) if r.path.endswith("/")]
    assert fetched_pages == []
    assert len(site.requests(304)) == first.crawl["changed_pages"]

    page = site.root / "writing" / "rtl-is-not-a-mirror" / "index.html"
    page.write_text(page.read_text().replace("</article>", "<p>A new closing line.</p></article>"))
    third = index_source(f"{site.url}/", index, embedder, fast_settings())
    assert third.crawl["changed_pages"] == 1 and third.build is not None
    assert third.build.embedded == 1 and third.build.reused == third.build.sections - 1
    assert any("A new closing line." in s.text for s in read_sections(index))


def test_without_a_sitemap_links_are_followed(site: StaticSite) -> None:
    (site.root / "sitemap.xml").unlink()
    (site.root / "robots.txt").write_text("User-agent: *\nDisallow: /drafts/\n")
    result = crawl(f"{site.url}/", {}, CrawlOptions(per_second=200.0))
    assert result.discovered_by == "links"
    expected = {url for url, _ in page_sections(site.url)}
    found = {p.url for p in result.changed}
    assert {u.split("#")[0] for u in expected} == found
    assert not any(r.path.startswith("/drafts/") for r in site.requests())


def test_a_sitemap_index_is_followed(site: StaticSite) -> None:
    sitemap = (site.root / "sitemap.xml").read_text()
    entries = sitemap.split("<url>")
    half = len(entries) // 2
    head = "<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
    (site.root / "a.xml").write_text(head + "<url>".join(["", *entries[1:half]]) + "</urlset>")
    (site.root / "b.xml").write_text(head + "<url>" + "<url>".join(entries[half:]))
    (site.root / "sitemap.xml").write_text(
        "<?xml version='1.0'?><sitemapindex xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
        f"<sitemap><loc>{site.url}/a.xml</loc></sitemap>"
        f"<sitemap><loc>{site.url}/b.xml</loc></sitemap></sitemapindex>"
    )
    result = crawl(f"{site.url}/", {}, CrawlOptions(per_second=200.0))
    assert result.discovered_by == "sitemap"
    assert len(result.changed) == len({url.split("#")[0] for url, _ in page_sections(site.url)})


def test_requests_are_paced_by_the_rate_limit(site: StaticSite) -> None:
    crawl(f"{site.url}/", {}, CrawlOptions(concurrency=4, per_second=20.0))
    arrivals = sorted(r.at for r in site.requests())
    assert len(arrivals) > 10
    # 20 requests a second, whatever the concurrency: n requests span at least (n - 1) x 50 ms
    # (the span, not each gap, so scheduling jitter on a busy machine cannot fail it).
    assert arrivals[-1] - arrivals[0] >= (len(arrivals) - 1) * 0.05 * 0.95


def test_built_site_folder_ingests_with_urls_from_its_paths(tmp_path: Path) -> None:
    root = tmp_path / "out"
    render_site(EXAMPLE_SITE, root)
    ingested = load_site(root, "https://noor.example")
    assert ingested.built_site
    built = {(s.url, s.heading): (s.title, s.text) for s in ingested.sections}
    drafts = {key for key in built if "/drafts/" in key[0]}
    assert {k: v for k, v in built.items() if k not in drafts} == page_sections(
        "https://noor.example"
    )


def test_cli_indexes_a_url_and_reports_what_it_fetched(site: StaticSite, tmp_path: Path) -> None:
    env = {**os.environ, "SITECITE_EMBEDDER": "hash-32", "SITECITE_PROGRESS": ""}
    env["SITECITE_INDEX_CRAWL_REQUESTS_PER_SECOND"] = "200"
    command = [sys.executable, "-m", "sitecite.cli", "index", f"{site.url}/"]
    command += ["--index", str(tmp_path / "index"), "--json"]
    runs = [
        subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env, check=True)
        for _ in range(2)
    ]
    first, second = (json.loads(run.stdout.strip().splitlines()[-1]) for run in runs)
    assert first["kind"] == "live site" and first["sections"] > 100
    with (tmp_path / "index" / "sections.jsonl").open() as lines:
        pages = {json.loads(line)["page_id"] for line in lines}
    assert first["crawl"]["changed_pages"] == len(pages)
    assert second["crawl"]["changed_pages"] == 0 and second["embedded"] == 0
    assert "fetching pages" in runs[0].stderr


def test_an_unreachable_site_leaves_the_index_as_it_was(site: StaticSite, tmp_path: Path) -> None:
    from sitecite.embed import HashEmbedder
    from sitecite.errors import IngestError

    embedder = HashEmbedder(32)  # index mechanics only
    index = tmp_path / "index"
    index_source(f"{site.url}/", index, embedder, fast_settings())
    before = read_sections(index)
    with pytest.raises(IngestError, match="no page could be read, index left as it was"):
        index_source("http://127.0.0.1:9/", index, embedder, fast_settings())
    assert read_sections(index) == before
