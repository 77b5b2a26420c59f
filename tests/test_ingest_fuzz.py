"""No input stops a site: random front matter and markup, fed to every reader (Markdown, MDX,
HTML with front matter, Astro, Vue, data files, Liquid for Jekyll sites), never raise anything
but IngestError (and that only for a file with nothing readable), and the whole folder
ingests with every problem named by file."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitecite.errors import IngestError
from sitecite.ingest import load_site
from sitecite.ingest.pages import Reading, parse_source
from sitecite.ingest.routes import Router

# Pieces real sites are made of, so random text hits the readers' edge cases often.
PIECES = [
    "---",
    "+++",
    "...",
    "title: ",
    "date: ",
    "2021-02-29T16:00:00Z",
    "2020-13-45",
    "'",
    '"',
    "[",
    "]",
    "{",
    "}",
    "{{",
    "}}",
    "{%",
    "%}",
    "{{<",
    ">}}",
    "{:",
    "<",
    ">",
    "/>",
    "</div>",
    "<Comp",
    "import x from './y'\n",
    "export const a = {",
    "```",
    "~~",
    "> [!NOTE]",
    "[[toc]]",
    "{Name}",
    "{a|https://x}",
    "<!--",
    "-->",
    "#",
    "## ",
    "\n",
    "\n\n",
    "- ",
    "|",
    ":",
    "=",
    "é",
    "🛍️",
    "\t",
    "    ",
    "\\",
    "$",
    "`",
    "*",
    "_",
    "permalink: /:year/",
    "slug: ",
    "draft: true",
    "<script>",
    "</script>",
    "<template>",
    "</template>",
    "<h1>",
]
markup = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=8)), max_size=60).map("".join)
SUFFIXES = [".md", ".mdx", ".html", ".astro", ".vue", ".json", ".yaml"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=markup, suffix=st.sampled_from(SUFFIXES))
def test_no_reader_raises_on_random_markup(source: str, suffix: str) -> None:
    reading = Reading(Router())
    try:
        pages = parse_source(source, f"page{suffix}", reading=reading)
    except IngestError as problem:
        assert suffix in (".json", ".yaml"), problem  # only a data file can be unreadable
        assert problem.path == f"page{suffix}"
        return
    assert all(p.source == f"page{suffix}" for p in pages)
    assert all(w.path == f"page{suffix}" for w in reading.warnings)


front_matter = st.dictionaries(
    st.sampled_from(["title", "date", "slug", "tags", "draft", "permalink", "degrees", "x"]),
    st.one_of(st.sampled_from(PIECES), st.text(max_size=12), st.integers()),
    max_size=6,
).map(lambda d: "\n".join(f"{k}: {v}" for k, v in d.items()))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(front=front_matter, body=markup)
def test_a_random_jekyll_site_ingests_with_every_problem_named(
    tmp_path: Path, front: str, body: str
) -> None:
    site = tmp_path / "site"
    (site / "_posts").mkdir(parents=True, exist_ok=True)
    (site / "_config.yml").write_text("permalink: pretty\ncollections: [things]\n")
    (site / "_posts" / "2021-02-28-post.md").write_text(f"---\n{front}\n---\n{body}\n")
    (site / "about.html").write_text(f"---\n{front}\n---\n<p>{body}</p>\n")
    (site / "notes.mdx").write_text(f"---\n{front}\n---\n{body}\n")
    result = load_site(site)
    files = {"_posts/2021-02-28-post.md", "about.html", "notes.mdx"}
    assert all(p.path in files for p in result.problems + result.warnings)
    assert not any("could not be read" in str(p) for p in result.problems)  # no reader crashed
