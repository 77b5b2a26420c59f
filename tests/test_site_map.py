"""URLs from the site's own map, whatever built it: a built output folder next to the sources,
a sitemap file or URL, the live `/sitemap.xml` under `--base-url` (served from 127.0.0.1 here;
nothing else is ever fetched). Each source page is matched to one published page, by title,
first heading, canonical link, text overlap and URL; the index says how many matched and which
did not."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
from conftest import shared_data
from static_site import StaticSite

from sitecite.crawl.sitemap import fetch_site_map, given_site_map, live_site_map, reserved
from sitecite.ingest import load_site
from sitecite.ingest.routes import NO_PRESET
from sitecite.ingest.sitemap import local_map

PAGE = (
    '<html><head><meta name="generator" content="Boatgen 0.1"><title>{title} · Boats</title>'
    "</head><body><nav>Home · About</nav>{body}</body></html>"
)


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def made_up_site(root: Path) -> None:
    """Sources in a layout no preset knows (`writing/`), and the built folder a made-up
    generator wrote (`output/`), whose URLs share nothing with the file names."""
    write(
        root,
        {
            "writing/2021/canoe.md": "---\ntitle: Building a canoe\n---\n\n"
            "I built a cedar-strip canoe over one winter in the garage, strip by strip.\n\n"
            "## The forms\n\nPlywood forms every foot along a strongback.\n\n"
            "## Fibreglass\n\nGlass cloth on both sides, wetted out with epoxy.\n",
            "writing/2022/lakes.md": "---\ntitle: Paddling the lakes\n---\n\n"
            "A week of paddling between seven lakes, portaging the canoe between them.\n",
            "writing/about.md": "# About\n\nI build boats and write about the trips I take.\n",
            "writing/unbuilt.md": "# Not yet\n\nA page the built site does not have.\n",
            "output/index.html": PAGE.format(title="Home", body="<p>Recent: canoe.</p>"),
            "output/n/1/index.html": PAGE.format(
                title="Building a canoe",
                body="<article><h1>Building a canoe</h1><p>I built a cedar-strip canoe over one "
                "winter in the garage, strip by strip.</p><h2 id='s-1'>The forms</h2><p>Plywood "
                "forms every foot along a strongback.</p><h2 id='s-2'>Fibreglass</h2><p>Glass "
                "cloth on both sides, wetted out with epoxy.</p></article>",
            ),
            "output/n/2/index.html": PAGE.format(
                title="Paddling the lakes",
                body="<h1>Paddling the lakes</h1><p>A week of paddling between seven lakes, "
                "portaging the canoe between them.</p>",
            ),
            "output/who/index.html": PAGE.format(
                title="About", body="<h1>About</h1><p>I build boats and write about the trips.</p>"
            ),
        },
    )


def test_a_built_folder_gives_every_page_its_published_url_and_heading_ids(
    tmp_path: Path,
) -> None:
    made_up_site(tmp_path)
    result = load_site(tmp_path, "https://boats.example")
    urls = {s.id: s.url for s in result.sections}
    assert urls == {
        "writing/2021/canoe#intro": "https://boats.example/n/1/",
        "writing/2021/canoe#the-forms": "https://boats.example/n/1/#s-1",
        "writing/2021/canoe#fibreglass": "https://boats.example/n/1/#s-2",
        "writing/2022/lakes": "https://boats.example/n/2/",
        "writing/about": "https://boats.example/who/",
        "writing/unbuilt": "https://boats.example/writing/unbuilt",
    }
    assert all(not p.source.startswith("output/") for p in result.pages)  # not content
    line = result.route_lines()[0]
    assert line == (
        "site map (built folder output/): 3 of 4 page(s) matched; not in it, so routed as "
        "before: writing/unbuilt"
    )
    assert result.unrouted == ["writing/unbuilt"]


def test_a_built_folders_sitemap_gives_absolute_urls_and_what_is_published(
    tmp_path: Path,
) -> None:
    """The sitemap lists the published pages: a built file it leaves out (an old page still
    in the folder) is no candidate, and the URLs are the sitemap's."""
    made_up_site(tmp_path)
    write(
        tmp_path,
        {
            "output/old/index.html": PAGE.format(
                title="Paddling the lakes", body="<h1>Paddling the lakes</h1><p>Old copy.</p>"
            ),
            "output/sitemap.xml": '<?xml version="1.0"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            + "".join(
                f"<url><loc>https://boats.example{p}</loc></url>"
                for p in ("/", "/n/1/", "/n/2/", "/who/")
            )
            + "</urlset>",
        },
    )
    result = load_site(tmp_path)
    assert {p.id: p.url for p in result.pages} == {
        "writing/2021/canoe": "https://boats.example/n/1/",
        "writing/2022/lakes": "https://boats.example/n/2/",
        "writing/about": "https://boats.example/who/",
        "writing/unbuilt": "/writing/unbuilt",
    }
    assert result.map_match is not None
    assert result.map_match.source == "built folder output/ and its sitemap"


def test_each_published_page_is_taken_once(tmp_path: Path) -> None:
    """Two source pages with the same title: each takes the published page its text is on."""
    write(
        tmp_path,
        {
            "a.md": "# Notes\n\nOn rivers, floods and the banks that hold them back.\n",
            "b.md": "# Notes\n\nOn mountains, passes and the roads that climb them.\n",
            "dist/index.html": PAGE.format(title="Home", body="<p>Hi.</p>"),
            "dist/x/index.html": PAGE.format(
                title="Notes", body="<h1>Notes</h1><p>On mountains, passes and the roads.</p>"
            ),
            "dist/y/index.html": PAGE.format(
                title="Notes", body="<h1>Notes</h1><p>On rivers, floods and the banks.</p>"
            ),
        },
    )
    urls = {p.id: p.url for p in load_site(tmp_path).pages}
    assert urls == {"a": "/y/", "b": "/x/"}


def test_a_built_page_whose_headings_have_no_ids_is_cited_whole(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "post.md": "# Post\n\nIntro words of the post.\n\n## Part\n\nThe part's words here.\n",
            "public/index.html": PAGE.format(title="Home", body="<p>Hi.</p>"),
            "public/p/index.html": PAGE.format(
                title="Post",
                body="<h1>Post</h1><p>Intro words of the post.</p><h2>Part</h2>"
                "<p>The part's words here.</p>",
            ),
        },
    )
    assert {s.url for s in load_site(tmp_path).sections} == {"/p/"}


def dated_sitemap(root: Path, base: str) -> str:
    """alanaktion's sitemap as its site publishes it: posts at /YYYY/MM/DD/<folder>/ (the
    front-matter date in UTC), and pages that have no source here (about, tags, pages 2+)."""
    urls = [f"{base}/", f"{base}/about/", f"{base}/page/2/", f"{base}/tags/games/"]
    for post in sorted((root / "content" / "blog").glob("*/*/index.md")):
        raw = re.search(r"^date:\s*['\"]?([^'\"\n]+)", post.read_text(), re.M)
        assert raw is not None, post
        moment = dt.datetime.fromisoformat(raw.group(1).strip().replace("Z", "+00:00"))
        if moment.tzinfo is not None:
            moment = moment.astimezone(dt.UTC)
        urls.append(f"{base}/{moment:%Y/%m/%d}/{post.parent.name}/")
    return (
        '<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        + "".join(f"<url><loc>{u}</loc></url>" for u in urls)
        + "</urlset>"
    )


def test_a_sitemap_file_routes_what_only_code_defined(tmp_path: Path) -> None:
    """alanaktion's dated URLs were built by code no data file carries: its sitemap gives them
    all, one page each, where presets alone say they are a guess."""
    root = shared_data("sites", "alanaktion")
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(dated_sitemap(root, "https://blog.phpizza.com"))
    result = load_site(root, "https://blog.phpizza.com", site_map=local_map(sitemap))
    by_source = {p.source: p.url for p in result.pages}
    assert by_source["content/blog/2011/mysql-game/index.md"] == (
        "https://blog.phpizza.com/2011/11/30/mysql-game/"
    )
    assert by_source["content/blog/2023/steam-deck/index.md"] == (
        "https://blog.phpizza.com/2023/04/23/steam-deck/"
    )
    posts = [p for p in result.pages if p.source.startswith("content/blog/")]
    assert len(posts) >= 80 and result.unrouted == []
    assert len({p.url for p in posts}) == len(posts)
    assert all(re.search(r"/\d{4}/\d\d/\d\d/[a-z0-9-]+/$", p.url) for p in posts)
    assert not any(NO_PRESET in line for line in result.route_lines())


def sitemap_xml(base: str, paths: list[str], index: bool = False) -> str:
    tag, item = ("sitemapindex", "sitemap") if index else ("urlset", "url")
    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    locs = "".join(f"<{item}><loc>{base}{p}</loc></{item}>" for p in paths)
    return f'<?xml version="1.0"?>\n<{tag} {ns}>{locs}</{tag}>'


def served_site(root: Path) -> None:
    """The made-up site as its server publishes it: the built pages, a robots.txt naming a
    sitemap index, and the sitemap it lists."""
    made_up_site(root / "built")
    (root / "built" / "output").rename(root / "served")
    write(
        root / "served",
        {
            "robots.txt": "User-agent: *\nAllow: /\nSitemap: {base}/maps/index.xml\n",
            "maps/index.xml": sitemap_xml("{base}", ["/maps/pages.xml"], index=True),
            "maps/pages.xml": sitemap_xml("{base}", ["/", "/n/1/", "/n/2/", "/who/"]),
        },
    )


def fill_base(root: Path, base: str) -> None:
    for path in root.rglob("*.*"):
        if path.is_file():
            path.write_text(path.read_text().replace("{base}", base))


def test_the_live_sitemap_under_the_base_url_is_read_from_robots_txt(tmp_path: Path) -> None:
    """Its URLs say nothing of the files (/n/1/): the pages they leave unmatched are fetched,
    politely, and matched by what they show."""
    served_site(tmp_path)
    served = tmp_path / "served"
    with StaticSite(served) as server:
        fill_base(served, server.url)
        found, tried = fetch_site_map(server.url + "/")
        assert found is not None and tried == f"read {server.url}/maps/index.xml"
        assert [e.path for e in found.entries] == ["/", "/n/1/", "/n/2/", "/who/"]
        fetch = live_site_map(server.url)
        assert fetch is not None
        made_up_site(tmp_path / "site")
        shutil.rmtree(tmp_path / "site" / "output")  # no built folder now
        server.clear()
        result = load_site(tmp_path / "site", server.url, live_map=fetch)
        by_id = {p.id: p.url for p in result.pages}
        assert by_id["writing/2021/canoe"] == f"{server.url}/n/1/"
        assert by_id["writing/about"] == f"{server.url}/who/"
        sections = {s.id: s.url for s in result.sections}
        assert sections["writing/2021/canoe#the-forms"] == f"{server.url}/n/1/#s-1"
        fetched = [r.path for r in server.requests() if not r.path.endswith((".txt", ".xml"))]
        assert sorted(fetched) == ["/", "/n/1/", "/n/2/", "/who/"]  # each page once


def test_a_missing_live_sitemap_is_named_in_the_warning(tmp_path: Path) -> None:
    (tmp_path / "served").mkdir()
    with StaticSite(tmp_path / "served") as server:
        write(tmp_path / "site", {"notes/a.md": "# A\n\nText.\n"})
        result = load_site(tmp_path / "site", server.url, live_map=live_site_map(server.url))
    warning = result.route_lines()[-1]
    assert warning.startswith(f"{NO_PRESET} 1 page(s) (notes/a)")
    assert f"{server.url}/sitemap.xml: HTTP 404" in warning
    assert "no built folder (_site/, public/" in warning
    assert "--sitemap FILE|URL" in warning and "--route" in warning


def test_names_reserved_for_examples_are_never_fetched() -> None:
    assert reserved("https://noorhaddad.example/") and reserved("http://x.test")
    assert reserved("https://example.com") and reserved("https://www.example.org/a")
    assert not reserved("https://blog.phpizza.com") and not reserved("http://127.0.0.1:80")
    assert live_site_map("https://noorhaddad.example") is None
    assert given_site_map("none") == (None, [])
    missing, notes = given_site_map("/nonexistent/sitemap.xml")
    assert missing is None and notes == [
        "warning: --sitemap /nonexistent/sitemap.xml: no such file or folder"
    ]


def test_sitecite_index_takes_the_live_sitemap_and_says_what_matched(tmp_path: Path) -> None:
    served_site(tmp_path)
    served = tmp_path / "served"
    made_up_site(tmp_path / "site")
    shutil.rmtree(tmp_path / "site" / "output")
    env = {**os.environ, "SITECITE_EMBEDDER": "hash-32"}
    with StaticSite(served) as server:
        fill_base(served, server.url)
        command = [sys.executable, "-m", "sitecite.cli", "index", str(tmp_path / "site")]
        command += ["--index", str(tmp_path / "index"), "--base-url", server.url, "--json"]
        run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["routes"][0] == (
        f"site map (sitemap {server.url}/maps/index.xml): 3 of 4 page(s) matched; not in it, "
        "so routed as before: writing/unbuilt"
    )
    sections = [json.loads(line) for line in (tmp_path / "index" / "sections.jsonl").open()]
    assert {s["url"] for s in sections if s["page_id"] == "writing/2022/lakes"} == {
        f"{server.url}/n/2/"
    }


def test_the_map_can_be_turned_off_and_its_folder_is_still_not_content(tmp_path: Path) -> None:
    made_up_site(tmp_path)
    found, _ = given_site_map("none")
    result = load_site(tmp_path, site_map=found, find_map=False)
    assert result.map_match is None
    assert {p.id for p in result.pages} == {
        "writing/2021/canoe",
        "writing/2022/lakes",
        "writing/about",
        "writing/unbuilt",
    }
    assert len(local_map(tmp_path / "output").entries) == 4  # `--sitemap output` reads it


def test_a_hand_written_docs_folder_is_content_not_a_map(tmp_path: Path) -> None:
    """`docs/` holds sources on many sites: without a generator's mark it is read as pages."""
    write(
        tmp_path,
        {
            "README.md": "# Tools\n\nSmall tools.\n",
            "docs/index.html": "<html><head><title>Tools</title></head><body><h1>Tools</h1>"
            "<p>Hand-written pages about the tools.</p></body></html>",
        },
    )
    result = load_site(tmp_path)
    assert result.map_match is None
    assert {p.source for p in result.pages} == {"README.md", "docs/index.html"}


def test_the_index_records_unverified_urls_and_the_lab_shows_them(tmp_path: Path) -> None:
    """No preset, no map: the index says its URLs are a guess, names the pages, and the lab
    (served, before any evaluation run) tells the owner how to make them land."""
    from sitecite.config import load_settings
    from sitecite.embed import HashEmbedder
    from sitecite.eval.lab_urls import urls_section
    from sitecite.index.store import read_manifest
    from sitecite.pipeline import Engine
    from sitecite.refresh import index_source
    from sitecite.serve.server import serve_in_thread

    write(tmp_path / "site", {"notes/a.md": "# A\n\nText.\n", "notes/b.md": "# B\n\nMore.\n"})
    settings = load_settings({"embedder": "hash-64"}, environ={})
    index = tmp_path / "index"
    run = index_source(str(tmp_path / "site"), index, HashEmbedder(64), settings)
    urls = read_manifest(index)["urls"]
    assert urls == {
        "unverified": True,
        "pages": 2,
        "from": {"guess": 2},
        "presets": [],
        "site_map": "",
        "guessed": ["notes/a", "notes/b"],
        "inferred": [],
    }
    assert any(line.startswith(NO_PRESET) for line in run.routes)
    section = urls_section(urls)
    assert "may not land" in section and "--sitemap FILE|URL" in section
    assert "<code>notes/a</code>" in section
    with serve_in_thread(index, settings, Engine.load(index, settings)) as url:
        lab = httpx.get(f"{url}/lab", timeout=30).text
    assert "No evaluation run yet" in lab and "Citation URLs" in lab and "may not land" in lab

    made_up_site(tmp_path / "mapped")
    index_source(str(tmp_path / "mapped"), tmp_path / "mapped-index", HashEmbedder(64), settings)
    mapped = read_manifest(tmp_path / "mapped-index")["urls"]
    assert mapped["from"] == {"site map": 3, "guess": 1} and mapped["unverified"] is True
    assert mapped["site_map"].startswith("site map (built folder output/): 3 of 4")
