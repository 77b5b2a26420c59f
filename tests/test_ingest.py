"""Ingestion: MDX, Markdown, HTML and data files to sections, with clear errors for bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import EXAMPLE_SITE, shared_data

from sitecite.errors import IngestError
from sitecite.ingest import load_site
from sitecite.ingest.mdx import mdx_to_markdown

MDX = """---
title: Checkout rewrite
date: 2023-09-14
tags: [payments, performance]
stack: [React, TypeScript, PostgreSQL]
summary: A faster, safer checkout.
---
import { Callout } from "@/components/callout";
import Chart from "./chart";
export const meta = {
  client: "Marlowe & Finch",
  year: 2023,
};

Intro prose before any heading.

## Context

<Callout type="info">
  The old checkout charged some customers twice.
</Callout>

<Metric label="LCP" before="4.1 s" after="1.3 s" />

<Chart data={[1, 2, 3]} className="w-full" />

{/* a JSX comment */}

Text with an {"inline string"} and `code with <Tags> and {braces}`.

## Results

| Metric | Before | After |
| --- | --- | --- |
| LCP | 4.1 s | 1.3 s |
| Payment errors | 1.4% | 0.2% |

- **Laptop**: ThinkPad
  - 32 GB RAM
  - Fedora
- Monitor

```js
const secret = "code is not prose";
```

Math stays: $\\frac{a}{b}$ and $$x^{2}$$.
"""


def write(root: Path, relative: str, text: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def sections_by_id(root: Path) -> dict[str, object]:
    return {s.id: s for s in load_site(root).sections}


def test_mdx_keeps_prose_and_drops_markup(tmp_path: Path) -> None:
    write(tmp_path, "work/checkout/index.mdx", MDX)
    result = load_site(tmp_path, base_url="https://noor.example")
    assert result.problems == []
    by_id = {s.id: s for s in result.sections}
    assert set(by_id) == {
        "work/checkout#intro",
        "work/checkout#context",
        "work/checkout#results",
        "work/checkout#stack",
    }
    context = by_id["work/checkout#context"].text
    assert "The old checkout charged some customers twice." in context
    assert "LCP: before 4.1 s, after 1.3 s." in context
    assert "inline string" in context
    assert "`" not in context and "code with <Tags> and {braces}" in context
    for residue in ("import", "export", "Callout", "className", "data=", "JSX comment", "{"):
        assert residue not in context.replace("{braces}", ""), residue
    assert by_id["work/checkout#intro"].text.startswith("A faster, safer checkout.")
    assert by_id["work/checkout#results"].url == "https://noor.example/work/checkout#results"
    assert by_id["work/checkout#stack"].text == (
        "The stack for Checkout rewrite: React, TypeScript and PostgreSQL."
    )
    assert by_id["work/checkout#results"].metadata["date"] == "2023-09-14"


def test_tables_become_one_sentence_per_row_and_lists_flatten(tmp_path: Path) -> None:
    write(tmp_path, "work/checkout.mdx", MDX)
    results = sections_by_id(tmp_path)["work/checkout#results"]
    assert "In Results, LCP before was 4.1 s and after was 1.3 s." in results.sentences
    assert "In Results, Payment errors before was 1.4% and after was 0.2%." in results.sentences
    assert "Laptop: ThinkPad: 32 GB RAM; Fedora" in results.sentences
    assert "code is not prose" not in results.text
    assert "$\\frac{a}{b}$" in results.text


def test_mdx_stripping_keeps_line_numbers() -> None:
    out = mdx_to_markdown(MDX.split("---\n", 2)[2], "x.mdx")
    assert out.count("\n") == MDX.split("---\n", 2)[2].count("\n")


def test_long_sections_split_per_subsection(tmp_path: Path) -> None:
    words = " ".join(["prose"] * 200) + "."
    write(
        tmp_path,
        "post.md",
        f"# Post\n\n## Big\n\nLead.\n\n### One\n\n{words}\n\n### Two\n\n{words}\n"
        f"\n## Small\n\nShort.\n\n### Inner\n\nAlso short.\n",
    )
    ids = list(sections_by_id(tmp_path))
    assert ids == ["post#big", "post#one", "post#two", "post#small"]


def test_page_without_headings_is_one_section_named_by_page_id(tmp_path: Path) -> None:
    write(tmp_path, "notes/plain.md", "Just a paragraph.\n")
    assert list(sections_by_id(tmp_path)) == ["notes/plain"]


def test_html_pages_and_profile_data(tmp_path: Path) -> None:
    write(
        tmp_path,
        "talks.html",
        "<html><head><title>Talks</title><script>var x=1</script></head>"
        "<body><h1>Talks</h1><p>Intro.</p><h2>Offline apps</h2>"
        "<p>Given at <b>JSConf</b> in 2024.</p><ul><li>Recording</li></ul>"
        "</body></html>",
    )
    write(
        tmp_path,
        "profile.yaml",
        "name: Ada Lovelace\nrole: Engineer\nlocation:\n  city: London\n  country: UK\n",
    )
    write(tmp_path, "projects.json", '[{"title": "Engine", "stack": ["Brass", "Steam"]}]')
    by_id = sections_by_id(tmp_path)
    assert by_id["talks#offline-apps"].text == "Given at JSConf in 2024.\nRecording"
    assert by_id["talks#intro"].title == "Talks"
    assert "var x" not in " ".join(s.text for s in by_id.values())
    assert by_id["_facts#location"].sentences == ("Location — city: London; country: UK.",)
    assert by_id["_facts#location"].title == "Ada Lovelace (profile)"
    assert by_id["_facts#profile"].url == "/#profile"
    assert "Engine stack: Brass, Steam." in by_id["projects#engine"].sentences


@pytest.mark.parametrize(
    ("name", "content", "message", "line"),
    [
        ("bad-bytes.md", b"fine line\nbad \xff byte\n", "not valid UTF-8", 2),
        ("bad.json", '{"name": "x",\n  oops}', "invalid JSON", 2),
    ],
)
def test_an_unreadable_file_is_skipped_with_file_and_line_and_others_still_index(
    tmp_path: Path, name: str, content: str | bytes, message: str, line: int
) -> None:
    write(tmp_path, "good.md", "## Fine\n\nThis file is fine.\n")
    write(tmp_path, name, content)
    result = load_site(tmp_path)
    assert [s.id for s in result.sections] == ["good#fine"]
    assert len(result.problems) == 1
    problem = result.problems[0]
    assert isinstance(problem, IngestError)
    assert problem.path == name and problem.line == line
    assert message in str(problem) and str(problem).startswith(f"{name}:{line}: ")


@pytest.mark.parametrize(
    ("name", "content", "message", "line", "kept"),
    [
        (
            "bad-yaml.md",
            "---\ntitle: Still titled\ntags: [unclosed\n---\n## Body\n\nThe body stays.\n",
            "invalid YAML front matter",
            3,
            "The body stays.",
        ),
        (
            "bad-date.md",
            "---\ntitle: Leap\ndate: 2021-02-29T16:00:00Z\n---\n## Body\n\nThe body stays.\n",
            "invalid date '2021-02-29T16:00:00Z'",
            3,
            "The body stays.",
        ),
        (
            "bad-toml.md",
            '+++\ntitle = "Still titled"\ndate = 2021-02-30\n+++\n## Body\n\nThe body stays.\n',
            "invalid TOML front matter",
            3,
            "The body stays.",
        ),
        (
            "bad-jsx.mdx",
            "# T\n\n## Body\n\nThe body stays.\n\n{unbalanced expression\n",
            "unbalanced '{'",
            7,
            "The body stays.",
        ),
        (
            "bad-esm.mdx",
            "import { a,\n\n## Body\n\nThe body stays.\n",
            "unterminated import/export",
            1,
            "The body stays.",
        ),
    ],
)
def test_a_bad_part_is_a_warning_with_file_and_line_and_the_page_is_kept(
    tmp_path: Path, name: str, content: str, message: str, line: int, kept: str
) -> None:
    write(tmp_path, "good.md", "## Fine\n\nThis file is fine.\n")
    write(tmp_path, name, content)
    result = load_site(tmp_path)
    assert result.problems == []
    warning = next(w for w in result.warnings if w.path == name)
    assert warning.line == line and message in str(warning), str(warning)
    assert str(warning).startswith(f"{name}:{line}: ")
    page = next(p for p in result.pages if p.source == name)
    assert any(kept in s.text for s in result.sections if s.page_id == page.id)
    if "titled" in content:
        assert page.title == "Still titled"
    assert "date" not in page.metadata or page.metadata["date"] != "2021-02-29T16:00:00Z"


def test_example_site_ingests_cleanly() -> None:
    result = load_site(EXAMPLE_SITE)
    assert result.problems == []
    pages = {p.id for p in result.pages}
    assert {"_facts", "about", "changelog", "awards", "testimonials", "speaking", "uses"} <= pages
    assert sum(p.startswith("work/") for p in pages) >= 9
    assert len({s.id for s in result.sections}) == len(result.sections)


JSX_RESIDUE = re.compile(r"^\s*(import|export)\s|className=|<[A-Z][A-Za-z]*[\s/>]|\{/\*|=\{", re.M)
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)
INLINE_CODE = re.compile(r"`[^`\n]+`")


@pytest.mark.parametrize("site", ["jarvis", "timlrx"])
def test_real_sites_ingest_every_file_without_jsx_residue(site: str) -> None:
    root = shared_data("sites", site)
    result = load_site(root)
    assert result.problems == []
    assert {p.source for p in result.pages} == {
        p.relative_to(root).as_posix() for p in root.rglob("*.mdx")
    }
    assert len(result.sections) > 100
    for section in result.sections:
        source = (root / section.metadata["source"]).read_text(encoding="utf-8")
        literal = " ".join(INLINE_CODE.findall(source))  # code the author wrote as text on purpose
        for match in JSX_RESIDUE.finditer(MATH.sub(" ", section.text)):
            assert match.group(0).strip() in literal, (section.id, match.group(0))


COMMANDS = """---
title: The Lantern CLI
---

Lantern prints the weather in your terminal.

## Usage

```sh
npx lantern-weather
```

To change the city, run:

```
lantern-weather --city Halifax
```

```js
const secret = "code is not prose";
```

```bash
line one
line two
line three
line four
```
"""


def test_a_short_shell_block_is_kept_as_commands_and_other_code_is_not(tmp_path: Path) -> None:
    """A how-to says how to run something in a code block: a short shell block (or one
    without a language) is kept, each line a sentence of kind code quoted as it stands;
    a program (another language, or more than three lines) is still left out."""
    write(tmp_path, "cli.md", COMMANDS)
    usage = sections_by_id(tmp_path)["cli#usage"]
    pairs = list(zip(usage.sentences, usage.sentence_kinds, strict=True))
    assert ("npx lantern-weather", "code") in pairs
    assert ("To change the city, run:", "prose") in pairs
    assert ("lantern-weather --city Halifax", "code") in pairs
    assert "code is not prose" not in usage.text
    assert "line one" not in usage.text
