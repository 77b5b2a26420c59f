"""MDX ingests completely: object-literal props, expressions, nested components, ESM blocks
and HTML inside Markdown keep their prose; code inside components is dropped."""

from __future__ import annotations

from pathlib import Path

from sitecite.ingest import load_site
from sitecite.ingest.mdx import convert_mdx

PAGE = """---
title: Components
---
import { Chart } from "@/components/chart";

export const metadata = { description: "Exported description.", canonical: "/components" };

export const Note = ({ children }) => (
  <aside className="note">
    <strong>Note:</strong> prose rendered by a local component.
    <pre>{`const code = "dropped";`}</pre>
  </aside>
);

## Styled

Colours: <span style={{backgroundColor: "#FBEA99", color: "black"}}>yellow boxes</span> mark
the first era, and everything after the span is still here.

## Props

<Timeline events={[{ title: "GAN era", when: "2019" }, { title: "Diffusion era" }]} />

<Chart data={{ values: [1, 2, 3] }} className="w-full" />

## Nested

<Callout type="warning">
  <Card>
    Deep **markdown** inside two components.
  </Card>
</Callout>

<Note />

Expressions: {"a string literal"}, {' '} and {props.hidden} and {/* a comment */}.

## HTML <Icon name="star" />

<div class="box"><p>HTML paragraph inside Markdown.</p><pre>html code dropped</pre></div>

<details><summary>Summary text</summary>Hidden details text.</details>

Last line of the page.
"""


def test_mdx_keeps_every_kind_of_prose(tmp_path: Path) -> None:
    (tmp_path / "page.mdx").write_text(PAGE, encoding="utf-8")
    result = load_site(tmp_path, "https://x.example")
    assert result.problems == [] and result.warnings == []
    by_id = {s.id: s for s in result.sections}
    styled = by_id["page#styled"].text
    assert "yellow boxes" in styled and "everything after the span is still here" in styled
    assert "#FBEA99" not in styled and "black" not in styled
    props = by_id["page#props"].text
    assert "GAN era" in props and "2019" in props and "Diffusion era" in props
    assert "w-full" not in props and "values" not in props
    nested = by_id["page#nested"].text
    assert "Deep markdown inside two components." in nested
    assert "Note: prose rendered by a local component." in nested
    assert "dropped" not in nested and "a string literal" in nested
    assert "hidden" not in nested and "comment" not in nested
    html = by_id["page#html-"]  # rehype-slug keeps the space before the component
    assert "HTML paragraph inside Markdown." in html.text and "html code" not in html.text
    assert "Summary text" in html.text and "Last line of the page." in html.text
    assert html.url == "https://x.example/components#html-"
    assert by_id["page#intro"].text == "Exported description."
    assert all(report.retention > 0.9 for report in result.files)


def test_exported_metadata_reads_like_front_matter_without_overriding_it() -> None:
    document = convert_mdx(PAGE.split("---\n", 2)[2])
    assert document.metadata["description"] == "Exported description."
    assert document.metadata["canonical"] == "/components"
    assert document.markdown.count("\n") == PAGE.split("---\n", 2)[2].count("\n")


def test_dollar_signs_in_prose_are_not_math() -> None:
    out = convert_mdx("It costs $5 and $10 per seat.\n\nMath: $x^2$ stays.\n").markdown
    assert out == "It costs $5 and $10 per seat.\n\nMath: $x^2$ stays.\n"


FOOTNOTES = """---
title: Benchmarks
---

## Setup

Single machines scale far now.^[A 240 GB machine with *64 vCPUs* costs about $1.5k a month.]
The packages read files differently.[^io] Some are slow.

- graph-tool[^c]
- networkx

[^io]: Three of them call C libraries to read the files.
[^c]: Written in C++ with a Python API.

## Results

Networkx was the slowest again.[^io]
"""


def test_footnotes_leave_the_sentence_and_follow_it_in_its_section(tmp_path: Path) -> None:
    (tmp_path / "bench.mdx").write_text(FOOTNOTES, encoding="utf-8")
    result = load_site(tmp_path, "https://x.example")
    assert result.problems == []
    by_id = {s.id: s for s in result.sections}
    setup, results = by_id["bench#setup"], by_id["bench#results"]
    assert "^[" not in setup.text and "[^" not in setup.text and "[^" not in results.text
    lines = setup.text.splitlines()
    assert (
        lines[0]
        == "Single machines scale far now. The packages read files differently. Some are slow."
    )
    assert lines[1:3] == [
        "A 240 GB machine with 64 vCPUs costs about $1.5k a month.",
        "Three of them call C libraries to read the files.",
    ], "the paragraph's notes follow it, in the order it refers to them"
    assert lines.index("Written in C++ with a Python API.") > lines.index("networkx"), (
        "a list's notes follow the whole list"
    )
    assert results.text == "Networkx was the slowest again.", "a note is placed once"
    assert all(report.retention > 0.9 for report in result.files)
