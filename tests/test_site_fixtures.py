"""Small sites of three generators nobody on the team indexed before (tests/data/sites): a Vue
site with markdown-it plugins and `pages/` routing, a Docusaurus site kept in `website/`, and a
hand-written HTML site. Presets alone give their URLs; their markup never reaches the index;
drafts, partials and templates are left out and listed."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import REPO

from bench.markup_debris import debris_share
from sitecite.ingest import IngestResult, load_site

SITES = REPO / "tests" / "data" / "sites"


def urls(result: IngestResult) -> dict[str, str]:
    return {s.id: s.url for s in result.sections}


def text(result: IngestResult, page: str) -> str:
    return "\n".join(s.text for s in result.sections if s.page_id == page)


def left_out(result: IngestResult) -> dict[str, str]:
    return dict(item.split(": ", 1) for item in result.skipped)


def test_a_vue_site_routes_pages_by_their_path_and_reads_its_plugins() -> None:
    result = load_site(SITES / "vue-pages", anchors="vitepress")
    assert [p.name for p in result.router.presets] == ["vue-pages"]
    by_id = urls(result)
    assert by_id["pages#intro"] == "/"  # pages/index.md is the home page
    assert by_id["pages/posts#writing"] == "/posts#writing"
    assert by_id["pages/projects"] == "/projects"
    # @mdit-vue's slugify puts '_' before a leading digit
    assert by_id["pages/posts/leap-day#3-things-i-learned"] == "/posts/leap-day#_3-things-i-learned"
    home = text(result, "pages")
    assert "with Vite and Nuxt, and I maintain Tiny Lint" in home  # magic links
    assert "co-maintainer kwame" in home
    assert "I am not taking on new consulting work" in home and "[!" not in home
    assert "Editors: Neovim" in home and "Languages: TypeScript, Rust" in home
    assert "TODO" not in home and "toc" not in home.lower() and "{{" not in home
    projects = text(result, "pages/projects")
    assert "Palette Pal: Generates accessible colour palettes" in projects
    out = left_out(result)
    assert out["pages/posts/unfinished.md"].startswith("a draft")
    assert "dynamic route" in out["pages/posts/[slug].vue"]
    assert "pages/projects.vue" in out["data/projects.json"]
    warning = next(w for w in result.warnings if w.path == "pages/posts/leap-day.md")
    assert warning.line == 3 and "invalid date '2021-02-29T16:00:00Z'" in str(warning)
    assert "Calendars are political" in text(result, "pages/posts/leap-day")
    assert debris_share(result.sections)[0] == 0


def test_the_default_anchors_of_a_vue_site_are_github_slugs() -> None:
    by_id = urls(load_site(SITES / "vue-pages"))
    assert by_id["pages/posts/leap-day#3-things-i-learned"] == "/posts/leap-day#3-things-i-learned"


def test_a_docusaurus_site_in_a_subfolder_routes_docs_blog_and_pages() -> None:
    result = load_site(SITES / "docusaurus")
    assert [(p.name, p.folder) for p in result.router.presets] == [
        ("docusaurus", "website"),
        ("docusaurus-blog", "website"),
    ]
    base = "https://lenapark.dev"  # the config's url: no --base-url needed
    pages = {p.source: p.url for p in result.pages}
    assert pages == {
        "website/blog/2021-05-28-first-post.md": f"{base}/blog/2021/05/28/first-post",
        "website/blog/2022-01-02-second/index.md": f"{base}/blog/2022/01/02/second",
        # a post's slug is its whole path under the blog (no date folders added)
        "website/blog/2023-03-04-launch.md": f"{base}/blog/2023-03-04-launch",
        "website/docs/intro.md": f"{base}/docs/intro",
        "website/docs/moved.md": f"{base}/docs/reference/cheatsheet",
        "website/docs/01-guides/02-setup.mdx": f"{base}/docs/guides/setup",
        "website/src/pages/about.md": f"{base}/about",
    }
    out = left_out(result)
    assert out["website/docs/wip.md"].startswith("a draft")
    assert "partial" in out["website/docs/01-guides/_shared-warning.mdx"]
    # the partial feeds the page that imports it
    assert "Back up your data" in text(result, "website/docs/01-guides/02-setup")
    assert debris_share(result.sections)[0] == 0


def test_a_hand_written_html_site_is_titled_by_its_pages_and_served_at_its_files(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    shutil.copytree(SITES / "handwritten", site)
    # a template whose name does not say so is known by its placeholders
    shutil.copy(site / "post-template.html", site / "posts" / "draft-post.html")
    result = load_site(site)
    assert not result.built_site and [p.name for p in result.router.presets] == ["static-html"]
    titles = {p.source: (p.title, p.url) for p in result.pages}
    assert titles == {
        "about.html": ("About", "/about.html"),
        "index.html": ("Hello", "/"),
        "posts/seiko-1962.html": ("Fixing a 1962 Seiko", "/posts/seiko-1962.html"),
    }
    out = left_out(result)
    assert "template" in out["post-template.html"]
    assert "POST_SLUG" in out["posts/draft-post.html"] or "POST_" in out["posts/draft-post.html"]
    by_id = urls(result)
    assert by_id["about#background"] == "/about.html#background"  # the id the page gives
    assert by_id["about#tools"] == "/about.html"  # no id on the page: link to the page
    assert "Old intro" not in text(result, "index")  # a comment is never indexed
    about = next(s for s in result.sections if s.id == "about#tools")
    byline = about.sentences.index("Tomás Reyes (@tomasreyes) March 3, 2020")
    assert about.kinds[byline] == "caption"  # said once, never quoted as the owner's words
    assert debris_share(result.sections)[0] == 0
