"""Route presets from each generator's documented rules and configuration, on small sites the
tests write; and the rules a site's own links show, for pages no preset routes."""

from __future__ import annotations

from pathlib import Path

from sitecite.ingest import IngestResult, load_site
from sitecite.ingest.ids import python_markdown_slug
from sitecite.ingest.routes import NO_PRESET


def site(root: Path, files: dict[str, str], base_url: str = "") -> IngestResult:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return load_site(root, base_url)


def urls(result: IngestResult) -> dict[str, str]:
    return {p.source: p.url for p in result.pages}


def left_out(result: IngestResult) -> dict[str, str]:
    return dict(item.split(": ", 1) for item in result.skipped)


def test_quarto_pages_are_html_files_and_indexes_their_folders(tmp_path: Path) -> None:
    result = site(
        tmp_path,
        {
            "_quarto.yml": "project:\n  type: website\n  render:\n    - '*.qmd'\n"
            "    - '!drafts/'\nwebsite:\n  site-url: https://data.example/notes\n",
            "index.qmd": "---\ntitle: Home\n---\n\nWelcome.\n",
            "about.qmd": "---\ntitle: About\n---\n\nI chart things.\n",
            "posts/2022-11-05-wdi/index.qmd": "---\ntitle: WDI\n---\n\n## Growth rates\n\nUp.\n",
            "posts/_footer.qmd": "Thanks for reading.\n",
            "drafts/soon.qmd": "---\ntitle: Soon\n---\n\nNot yet.\n",
            "notes.md": "# Notes\n\nNot in render:.\n",
            "README.md": "# Repo\n\nHow to build.\n",
        },
    )
    assert urls(result) == {
        "index.qmd": "https://data.example/notes/",
        "about.qmd": "https://data.example/notes/about.html",
        "posts/2022-11-05-wdi/index.qmd": "https://data.example/notes/posts/2022-11-05-wdi/",
    }
    assert set(left_out(result)) == {
        "posts/_footer.qmd",
        "drafts/soon.qmd",
        "notes.md",
        "README.md",
    }
    section = next(s for s in result.sections if s.heading == "Growth rates")
    assert section.url.endswith("/posts/2022-11-05-wdi/#growth-rates")


def test_mkdocs_serves_folders_under_the_site_urls_path(tmp_path: Path) -> None:
    result = site(
        tmp_path,
        {
            "mkdocs.yml": "site_name: Me\nsite_url: https://me.example/handbook/\n"
            "docs_dir: docs\nplugins:\n  - optimize:\n      enabled: !ENV [CI, false]\n",
            "README.md": "# The repository\n\nBuild with mkdocs.\n",
            "docs/README.md": "# Hello, world! 👋\n\nThe home page.\n",
            "docs/talks.md": "# Talks\n\n## Abstract\n\nOne.\n\n## Abstract\n\nTwo.\n",
            "docs/education/phd/README.md": "# PhD\n\n## MSc Degree - Design\n\nThesis.\n",
        },
    )
    assert urls(result) == {
        "docs/README.md": "https://me.example/handbook/",
        "docs/talks.md": "https://me.example/handbook/talks/",
        "docs/education/phd/README.md": "https://me.example/handbook/education/phd/",
    }
    assert left_out(result)["README.md"] == "outside MkDocs' docs_dir (docs/)"
    anchors = sorted(s.url.partition("#")[2] for s in result.sections if s.page_id == "docs/talks")
    assert anchors == ["abstract", "abstract_1"]
    phd = next(s for s in result.sections if s.heading == "MSc Degree - Design")
    assert phd.url.endswith("/education/phd/#msc-degree-design")


def test_mkdocs_without_directory_urls_serves_html_files(tmp_path: Path) -> None:
    result = site(
        tmp_path,
        {
            "mkdocs.yml": "site_name: Me\nuse_directory_urls: false\n",
            "docs/index.md": "# Home\n\nHi.\n",
            "docs/guide/setup.md": "# Setup\n\nSteps.\n",
        },
    )
    assert urls(result) == {
        "docs/index.md": "/index.html",
        "docs/guide/setup.md": "/guide/setup.html",
    }


def test_python_markdown_slugs_are_ascii() -> None:
    assert python_markdown_slug("Hello, world! 👋") == "hello-world"
    assert python_markdown_slug("Café — à la carte") == "cafe-a-la-carte"


def test_hugo_url_front_matter_and_a_yaml_config(tmp_path: Path) -> None:
    result = site(
        tmp_path,
        {
            "config.yml": "baseURL: https://prof.example/\ntitle: Prof\n",
            "content/papers/1.md": "---\ntitle: Slack\nurl: /1/\n---\n\nA paper.\n",
            "content/papers/_index.md": "---\ntitle: Papers\n---\n\nAll papers.\n",
            "content/officehours.md": "---\ntitle: Office hours\n---\n\nTuesdays.\n",
        },
    )
    assert urls(result) == {
        "content/papers/1.md": "https://prof.example/1/",
        "content/papers/_index.md": "https://prof.example/papers/",
        "content/officehours.md": "https://prof.example/officehours/",
    }


def test_jekyll_folder_indexes_titles_and_permalinks(tmp_path: Path) -> None:
    result = site(
        tmp_path,
        {
            "_config.yml": "url: https://garden.example\n",
            "posts/index.html": "---\ntitle: Posts\n---\n<p>All the posts.</p>\n",
            "_posts/2021-03-21-not-going viral.md": "---\npermalink: /notes/:year/:month/:day/"
            ":title\n---\n\nA note.\n",
            "cv.html": "---\npermalink: /cv\n---\n<html><head><link rel='canonical' "
            "href='https://garden.example/cv.pdf'></head><body><p>CV.</p></body></html>\n",
        },
    )
    assert urls(result) == {
        "posts/index.html": "https://garden.example/posts/",
        "_posts/2021-03-21-not-going viral.md": (
            "https://garden.example/notes/2021/03/21/not-going-viral"
        ),
        "cv.html": "https://garden.example/cv",
    }


LINKED = {
    "index.md": "# Me\n\nA linguist.\n",
    "404.md": "# Not found\n\nNothing here.\n",
    "bio.md": "# Bio\n\nBorn, studied.\n",
    "research.md": "# Research\n\nSee [contact](/contact/).\n",
    "contact.md": "# Contact\n\nWrite to me.\n",
    "posts/2013-01-01-site-part-1.md": "---\ntitle: Part 1\n---\n\nSee [part 2][pt2].\n\n"
    "[pt2]: /site-part-2/\n",
    "posts/2013-01-02-site-part-2.md": "---\ntitle: Part 2\n---\n\nAfter [part 1](/site-part-1/)."
    "\n",
    "posts/2014-05-06-unless.md": "---\ntitle: Unless\n---\n\nNo one links here.\n",
}


def test_pages_nothing_routes_follow_the_rules_their_links_show(tmp_path: Path) -> None:
    """No generator is known (a Hakyll site without its site.hs): the posts' links to each
    other show /<name without date>/, the link to /contact/ shows /<name>/ at the root; the
    root index is / and the 404 page /404.html, as hosts serve them."""
    result = site(tmp_path, LINKED, "https://ling.example")
    assert urls(result) == {
        "index.md": "https://ling.example/",
        "404.md": "https://ling.example/404.html",
        "bio.md": "https://ling.example/bio/",
        "research.md": "https://ling.example/research/",
        "contact.md": "https://ling.example/contact/",
        "posts/2013-01-01-site-part-1.md": "https://ling.example/site-part-1/",
        "posts/2013-01-02-site-part-2.md": "https://ling.example/site-part-2/",
        "posts/2014-05-06-unless.md": "https://ling.example/unless/",
    }
    warning = result.route_lines()[-1]
    assert warning.startswith(f"{NO_PRESET} 8 page(s)")
    assert "8 are at the URLs the site's own links show" in warning
    assert "posts/(?P<name>[^/]+) => /{page.slug}/ (2 links)" in warning
    assert "inferred, not verified" in warning


def test_links_that_disagree_or_fit_two_pages_show_nothing(tmp_path: Path) -> None:
    result = site(
        tmp_path,
        {
            "notes/a.md": "# A\n\nSee [b](/n/b) and [c](/notes/c/).\n",
            "notes/b.md": "# B\n\nText.\n",
            "notes/c.md": "# C\n\nText.\n",
            "x/same.md": "# Same\n\nSee [same](/same/).\n",
            "y/same.md": "# Same too\n\nText.\n",
        },
    )
    assert urls(result) == {
        "notes/a.md": "/notes/a",
        "notes/b.md": "/notes/b",
        "notes/c.md": "/notes/c",
        "x/same.md": "/x/same",
        "y/same.md": "/y/same",
    }
    assert result.learned == {}
    assert "5 are their page ids: a guess that may not land" in result.route_lines()[-1]


FIXTURES = Path(__file__).parent / "data" / "sites"


def test_eleventy_reads_its_input_folder_data_cascade_and_permalink_templates() -> None:
    result = load_site(FIXTURES / "eleventy")
    assert [p.name for p in result.router.presets] == ["eleventy"]
    assert urls(result) == {
        "src/index.md": "/",
        "src/about/index.md": "/about/",
        # posts/posts.json: permalink "/blog/{{ page.fileSlug }}/" (the date prefix goes)
        "src/posts/2021-01-02-hello.md": "/blog/hello/",
        "src/posts/custom.md": "/custom/",  # its own permalink, /custom/index.html
        "src/computed.md": "/c/computed/",  # eleventyComputed, `title | slugify`
    }
    out = left_out(result)
    assert out["src/posts/secret.md"] == "permalink: false (Eleventy writes no page for it)"
    assert out["README.md"] == "outside Eleventy's input folder"
    assert out["src/posts/posts.json"].startswith("an Eleventy data file")
    assert out["src/_includes/note.md"].startswith("Eleventy's includes")
    hello = next(s for s in result.sections if s.heading == "First steps")
    assert hello.url == "/blog/hello/#first-steps"  # markdown-it-anchor is a dependency


def test_pelican_fills_its_url_settings_from_each_pages_metadata() -> None:
    result = load_site(FIXTURES / "pelican")
    assert [p.name for p in result.router.presets] == ["pelican"]
    assert urls(result) == {
        "content/python/first.md": "https://ida.example/2020/03/my-first-post/",
        "content/pages/home.md": "https://ida.example/",  # Save_as: index.html
        "content/pages/about-page.md": "https://ida.example/about/",  # Slug: about
    }


def test_hakyll_routes_are_read_from_site_hs() -> None:
    result = load_site(FIXTURES / "hakyll", "https://ling.example")
    assert urls(result) == {
        "404.md": "https://ling.example/404.html",
        "bio.md": "https://ling.example/bio/",
        "notes/a.md": "https://ling.example/notes/a.html",
        "posts/2012-11-30-the-semantics-of-unless.md": (
            "https://ling.example/the-semantics-of-unless/"
        ),
    }
    assert left_out(result) == {
        "cv.md": "no match rule of site.hs covers it: Hakyll builds no page from it"
    }
    unless = next(s for s in result.sections if s.heading == "At MSU")
    assert unless.url.endswith("/the-semantics-of-unless/#at-msu")


def test_hexo_posts_follow_its_permalink(tmp_path: Path) -> None:
    result = site(
        tmp_path,
        {
            "_config.yml": "url: https://h.example\npermalink: :year/:month/:title/\n"
            "new_post_name: :title.md\n",
            "source/_posts/hello-world.md": "---\ntitle: Hi\ndate: 2020-05-06 10:00\n---\n\nHi.\n",
            "source/about/index.md": "---\ntitle: About\n---\n\nMe.\n",
            "source/links.md": "---\ntitle: Links\n---\n\nL.\n",
        },
    )
    assert [p.name for p in result.router.presets] == ["hexo"]
    assert urls(result) == {
        "source/_posts/hello-world.md": "https://h.example/2020/05/hello-world/",
        "source/about/index.md": "https://h.example/about/",
        "source/links.md": "https://h.example/links.html",
    }


def test_zola_sections_pages_slugs_and_paths(tmp_path: Path) -> None:
    result = site(
        tmp_path,
        {
            "config.toml": 'base_url = "https://z.example"\ntitle = "Z"\n',
            "content/_index.md": '+++\ntitle = "Z"\n+++\n\nHome.\n',
            "content/blog/_index.md": '+++\ntitle = "Blog"\n+++\n\nPosts.\n',
            "content/blog/2021-01-01-first.md": '+++\ntitle = "First"\n+++\n\nOne.\n',
            "content/blog/second.md": '+++\ntitle = "Second"\nslug = "deux"\n+++\n\nTwo.\n',
            "content/moved.md": '+++\ntitle = "Moved"\npath = "elsewhere"\n+++\n\nM.\n',
        },
    )
    assert [p.name for p in result.router.presets] == ["zola"]
    assert urls(result) == {
        "content/_index.md": "https://z.example/",
        "content/blog/_index.md": "https://z.example/blog/",
        "content/blog/2021-01-01-first.md": "https://z.example/blog/first/",
        "content/blog/second.md": "https://z.example/blog/deux/",
        "content/moved.md": "https://z.example/elsewhere/",
    }


def test_vue_and_next_routing_are_known_from_package_json(tmp_path: Path) -> None:
    vue = site(
        tmp_path / "vue",
        {
            "package.json": '{"dependencies": {"vite-ssg": "^0.23.0"}}',
            "src/pages/index.md": "# Home\n\nHi.\n",
            "src/pages/posts/leap-day.md": "# Leap day\n\nFeb 29.\n",
        },
    )
    assert urls(vue) == {
        "src/pages/index.md": "/",
        "src/pages/posts/leap-day.md": "/posts/leap-day",
    }
    nextjs = site(
        tmp_path / "next",
        {
            "package.json": '{"dependencies": {"next": "^14.0.0"}}',
            "pages/index.mdx": "# Home\n\nHi.\n",
            "pages/about.mdx": "# About\n\nMe.\n",
        },
    )
    assert [p.name for p in nextjs.router.presets] == ["nextjs"]
    assert urls(nextjs) == {"pages/index.mdx": "/", "pages/about.mdx": "/about"}
