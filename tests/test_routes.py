"""URLs that land: route rules, presets, front matter, heading anchors, titles."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import REPO, shared_data

from sitecite.errors import ConfigError
from sitecite.ingest import load_site
from sitecite.ingest.presets import detect_presets
from sitecite.ingest.routes import Router, Rule

README = (REPO / "README.md").read_text()
HEADING_IDS = json.loads((REPO / "tests" / "data" / "real_site_heading_ids.json").read_text())
LIVE_PATHS = {
    "jarvis": re.compile(r"/(uses|cli|previously|privacy|zip|notes/[a-z0-9-]+)"),
    "timlrx": re.compile(r"/(about|blog/[a-z0-9-]+)"),
}
BASE = {"jarvis": "https://jarv.is", "timlrx": "https://www.timlrx.com"}


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_first_matching_rule_wins_with_named_groups_and_filters() -> None:
    router = Router(
        "https://x.example/",
        [
            Rule.parse(r"posts/(?P<y>\d{4})-(?P<slug>.+) => /{y}/{slug}/"),
            Rule.parse(r"posts/(?P<slug>.+) => /never/{slug}"),
            Rule.parse(r"app/(?P<path>.+) => /{path|nogroups}"),
            Rule.parse(r"docs/(?P<path>.+) => /docs/{path|nonumbers}"),
        ],
    )
    assert router.url("posts/2024-hello") == "https://x.example/2024/hello/"
    assert router.url("posts/hello") == "https://x.example/never/hello"
    assert router.url("app/(marketing)/about") == "https://x.example/about"
    assert router.url("app/blog/(posts)/first") == "https://x.example/blog/first"
    assert router.url("docs/01-intro/02-setup") == "https://x.example/docs/intro/setup"
    assert router.url("other/page") == "https://x.example/other/page"  # the default route


def test_front_matter_wins_over_rules() -> None:
    router = Router("https://x.example", [Rule.parse("notes/(?P<s>.+) => /n/{s}")])
    assert router.url("notes/a", {"permalink": "/custom/"}) == "https://x.example/custom/"
    assert router.url("notes/a", {"slug": "renamed"}) == "https://x.example/n/renamed"
    assert router.url("notes/a", {"slug": "/top"}) == "https://x.example/top"
    assert router.url("notes/a", {"canonical": "https://elsewhere.example/a"}) == (
        "https://elsewhere.example/a"
    )
    jekyll_style = {"permalink": "/:year/:title/", "date": "2021-03-04"}
    assert router.url("notes/a", jekyll_style) == "https://x.example/2021/a/"


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ("(unclosed => /x", "does not compile"),
        ("notes/(?P<slug>.+) => /{title}", "{title} is not a named group"),
        ("notes/(?P<slug>.+) => /{slug|upper}", "unknown filter 'upper'"),
    ],
)
def test_a_bad_rule_is_an_error_that_names_it(rule: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(problem)) as error:
        Rule.parse(rule)
    assert rule in str(error.value)


@pytest.mark.parametrize(
    ("files", "preset", "page", "url"),
    [
        (
            {"app/(site)/about/page.mdx": "# About\n\nHi."},
            "nextjs-app",
            "app/(site)/about",
            "/about",
        ),
        ({"data/blog/2021-01-12-hi.mdx": "Hi."}, "tailwind-nextjs-starter-blog", None, "/blog/hi"),
        (
            {"hugo.toml": "", "content/posts/first/index.md": "Hi."},
            "hugo",
            "content/posts/first",
            "/posts/first/",
        ),
        (
            {"_posts/2020-05-01-hello.md": "---\ntitle: Hello\n---\nHi."},
            "jekyll",
            None,
            "/2020/05/01/hello.html",
        ),
        ({"src/content/blog/post.md": "Hi."}, "astro", "src/content/blog/post", "/blog/post/"),
        (
            {"docusaurus.config.js": "", "docs/01-intro.md": "Hi."},
            "docusaurus",
            "docs/01-intro",
            "/docs/intro",
        ),
    ],
)
def test_presets_are_detected_and_route_their_pages(
    tmp_path: Path, files: dict[str, str], preset: str, page: str | None, url: str
) -> None:
    for relative, text in files.items():
        write(tmp_path, relative, text)
    assert [p.name for p in detect_presets(tmp_path)] == [preset]
    result = load_site(tmp_path)
    assert [p.url for p in result.pages] == [url]
    assert any(preset in line for line in result.router.describe())
    assert page is None or result.pages[0].id == page  # page ids never change


def test_jekyll_anchors_follow_kramdown_and_explicit_ids_win(tmp_path: Path) -> None:
    write(
        tmp_path,
        "_posts/2020-05-01-hello.md",
        "---\ntitle: Hello\n---\n## 1. Getting Started!\n\nA.\n\n"
        "## Getting Started\n\nB.\n\n## Custom {#own-id}\n\nC.\n",
    )
    urls = {s.id: s.url for s in load_site(tmp_path).sections}
    assert urls == {
        "_posts/2020-05-01-hello#1-getting-started": "/2020/05/01/hello.html#getting-started",
        "_posts/2020-05-01-hello#getting-started": "/2020/05/01/hello.html#getting-started-1",
        "_posts/2020-05-01-hello#custom": "/2020/05/01/hello.html#own-id",
    }


def test_titles_never_come_from_the_path(tmp_path: Path) -> None:
    write(tmp_path, "a.mdx", "export const metadata = { title: 'Exported' };\n\nText.\n")
    write(tmp_path, "b.mdx", "<PageTitle>Visible h1</PageTitle>\n\n## Part\n\nText.\n")
    write(tmp_path, "c.md", "---\nname: Ada Lovelace\n---\n\nAbout me.\n")
    write(tmp_path, "d.html", "<title>From the title tag</title><p>Text.</p>")
    titles = {p.id: p.title for p in load_site(tmp_path).pages}
    assert titles == {
        "a": "Exported",
        "b": "Visible h1",
        "c": "Ada Lovelace",
        "d": "From the title tag",
    }


def readme_rules(site: str) -> list[str]:
    """The --route rules the README gives for a site."""
    command = re.search(rf"sitecite index \S*{site}\S* .*?(?:\n\n|\Z)", README, re.S)
    assert command, f"the README has no `sitecite index` line for {site}"
    return re.findall(r"--route '([^']+)'", command.group(0))


@pytest.mark.parametrize("site", ["jarvis", "timlrx"])
@pytest.mark.parametrize("how", ["readme rules", "presets"])
def test_every_citation_url_of_the_real_sites_lands(site: str, how: str) -> None:
    """Each URL has the live site's path, and an anchor that the site's own toolchain (MDX with
    rehype-slug, `scripts/heading_ids.mjs`) gives one of the page's headings."""
    root = shared_data("sites", site)
    if how == "presets":
        result = load_site(root, BASE[site])
    else:
        result = load_site(root, BASE[site], routes=readme_rules(site), presets=False)
    assert result.sections
    for section in result.sections:
        path, _, anchor = section.url.removeprefix(BASE[site]).partition("#")
        assert LIVE_PATHS[site].fullmatch(path), section.url
        assert "/data/" not in path and "/app/" not in path and "20" not in path[:9]
        ids = HEADING_IDS[f"{site}/{section.metadata['source']}"]
        assert anchor == "" or anchor in ids, (section.id, anchor)
    urls = {s.url for s in result.sections}
    if site == "jarvis":
        assert "https://jarv.is/uses#daily-drivers" in urls
    else:
        assert "https://www.timlrx.com/blog/applications-of-dags-in-causal-inference" in urls
        assert any(u.startswith("https://www.timlrx.com/about") for u in urls)
