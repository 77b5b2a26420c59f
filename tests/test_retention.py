"""No content lost silently: every page of both real sites keeps its prose in the index.

"Prose words read" is defined here without any of sitecite's parsing: mistune (another
Markdown parser) renders the page after a plain pre-pass for MDX (front matter, ESM blocks,
`{...}` expressions and math removed), lxml reads the text of the HTML minus code, and the
words are counted. A page keeps a word when its sections hold it (counted as a multiset).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from conftest import shared_data

from sitecite.errors import IngestError
from sitecite.ingest import load_site
from sitecite.ingest.retention import FileReport

mistune = pytest.importorskip("mistune", reason="the test extra installs mistune")
lxml_html = pytest.importorskip("lxml.html", reason="the test extra installs lxml")

WORD = re.compile(r"[^\W_]+")
FRONTMATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.M | re.S)
ESM = re.compile(r"^(?:import|export)\b.*?(?=\n\s*\n|\Z)", re.M | re.S)
MATH = re.compile(r"\$\$.+?\$\$|(?<![\w$])\$(?=\S)[^$\n]+(?<=\S)\$(?!\d)", re.S)
CODE_TAGS = ("pre", "code", "script", "style", "svg", "math", "iframe")


def _without_expressions(text: str) -> str:
    kept, depth = [], 0
    for char in text:
        depth += char == "{"
        if depth == 0 or char == "\n":
            kept.append(char)
        depth -= char == "}" and depth > 0
    return "".join(kept)


def reference_words(source: str) -> Counter[str]:
    """The prose words a visitor reads on the page, by mistune and lxml."""
    body = FENCE.sub("\n\n", FRONTMATTER.sub("", source))  # code is not prose, nor JSX
    body = _without_expressions(MATH.sub(" ", ESM.sub("", body)))
    rendered = mistune.html(body)
    if not rendered.strip():
        return Counter()
    tree = lxml_html.fragment_fromstring(rendered, create_parent="div")
    for element in list(tree.iter(*CODE_TAGS)):
        if element.getparent() is not None:
            element.drop_tree()
    alts = " ".join(img.get("alt", "") for img in tree.iter("img"))  # alt text is the image's prose
    return Counter(w.lower() for w in WORD.findall(f"{tree.text_content()} {alts}"))


def kept_words(read: Counter[str], indexed: Counter[str]) -> int:
    return sum(min(count, indexed[word]) for word, count in read.items())


@pytest.mark.slow
@pytest.mark.parametrize("site", ["jarvis", "timlrx"])
def test_every_page_keeps_its_prose(site: str) -> None:
    root = shared_data("sites", site)
    result = load_site(root)
    assert result.problems == [], [str(p) for p in result.problems]
    indexed: dict[str, Counter[str]] = defaultdict(Counter)
    for page in result.pages:
        indexed[page.source].update(w.lower() for w in WORD.findall(page.title))
    for section in result.sections:
        text = f"{section.heading}\n{section.text}"
        indexed[section.metadata["source"]].update(w.lower() for w in WORD.findall(text))
    total_read = total_kept = 0
    failures = []
    print(f"\n{site}: retention per page (reference: mistune + lxml)")
    for path in sorted(root.rglob("*.md*")):
        source = path.relative_to(root).as_posix()
        read = reference_words(path.read_text(encoding="utf-8"))
        kept = kept_words(read, indexed[source])
        words = sum(read.values())
        total_read += words
        total_kept += kept
        retention = kept / words if words else 1.0
        print(f"  {retention:6.1%} of {words:5d} words  {source}")
        if words > 100 and retention < 0.6:
            failures.append((source, round(retention, 3)))
    site_retention = total_kept / total_read
    print(f"{site}: {site_retention:.1%} of {total_read} prose words kept")
    assert failures == []
    assert site_retention >= 0.85


@pytest.mark.slow
def test_reported_retention_agrees_with_the_reference() -> None:
    """What `sitecite index` reports per file is within 5 points of this test's reference."""
    root = shared_data("sites", "timlrx")
    result = load_site(root)
    reports = {r.source: r for r in result.files}
    assert set(reports) == {p.source for p in result.pages}
    for source, report in reports.items():
        read = reference_words((root / source).read_text(encoding="utf-8"))
        reference_total = sum(read.values())
        assert abs(report.words_read - reference_total) <= max(10, 0.05 * reference_total), source
        assert report.retention >= 0.9, (source, report.retention)


def test_a_page_that_loses_its_prose_is_a_warning_with_file_and_line(tmp_path: Path) -> None:
    """The reference count notices text that never reaches the index: here a `<video>` never
    closed swallows the rest of the page (a media element's content is not prose)."""
    lines = ["## Start", "", "Kept prose sentence here.", "", '<video src="/a.mp4" controls>', ""]
    lines += [f"Paragraph {n} has several ordinary words in it." for n in range(20)]
    (tmp_path / "page.mdx").write_text("\n".join(lines), encoding="utf-8")
    result = load_site(tmp_path)
    (report,) = result.files
    assert isinstance(report, FileReport)
    assert report.retention < 0.6
    warning = report.warning()
    assert isinstance(warning, IngestError)
    assert warning.path == "page.mdx" and warning.line == 7
    assert [str(w) for w in result.warnings] == [str(warning)]
