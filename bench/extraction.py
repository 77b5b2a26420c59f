"""Main-content extraction compared on the example site rendered to HTML (header, navigation
and footer around each page's article): trafilatura, readability-lxml and selectolax.

For every page: recall (share of the source page's prose words the extractor returned, counted
as multisets), leak (share of returned words that are not in the page's prose: navigation,
footer), headings kept (h2-h6 in the output against the source's) and time per page.

    python -m bench.extraction [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench._common import REPO
from bench.site_render import render_site
from sitecite.ingest import content_files, page_id
from sitecite.ingest.retention import reference_text, word_counts

HEADING = re.compile(r"<h[2-6][\s>]", re.I)


def trafilatura_html(page: str) -> str:
    import trafilatura

    return (
        trafilatura.extract(
            page, output_format="html", include_tables=True, include_links=False, favor_recall=True
        )
        or ""
    )


def readability_html(page: str) -> str:
    from readability import Document

    return str(Document(page).summary(html_partial=True))


def selectolax_html(page: str) -> str:
    """selectolax is a parser, not an extractor: the usual hand-written rule (the first <main>
    or <article>, else <body>, minus navigation, header, footer and asides)."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(page)
    root = tree.css_first("main") or tree.css_first("article") or tree.body
    if root is None:
        return ""
    for node in root.css("nav, header, footer, aside, script, style"):
        node.decompose()
    return str(root.html)


EXTRACTORS: dict[str, Callable[[str], str]] = {
    "trafilatura": trafilatura_html,
    "readability-lxml": readability_html,
    "selectolax (hand rule)": selectolax_html,
}


def text_of(fragment: str) -> str:
    from lxml import html as lxml_html

    if not fragment.strip():
        return ""
    tree = lxml_html.fragment_fromstring(fragment, create_parent="div")
    for element in list(tree.iter("pre", "script", "style")):
        element.drop_tree()
    return str(tree.text_content())


def measure(semantic: bool) -> dict[str, dict[str, float]]:
    source = REPO / "examples" / "site"
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as directory:
        target = Path(directory)
        render_site(source, target, semantic)
        pages = []
        for file in content_files(source):
            relative = file.relative_to(source).as_posix()
            markup = {".mdx": "mdx", ".md": "markdown", ".html": "html"}.get(file.suffix)
            if markup is None:
                continue
            prose = word_counts([reference_text(file.read_text(), markup)])
            headings = len(re.findall(r"^#{2,6} ", file.read_text(), re.M))
            headings += len(HEADING.findall(file.read_text())) if markup == "html" else 0
            rendered = (target / page_id(relative) / "index.html").read_text()
            pages.append((prose, headings, rendered))
        for name, extract in EXTRACTORS.items():
            recalls, leaks, kept_headings, times = [], [], [], []
            for prose, headings, rendered in pages:
                started = time.perf_counter()
                output = extract(rendered)
                times.append((time.perf_counter() - started) * 1000)
                words = word_counts([text_of(output)])
                shared = sum((words & prose).values())
                recalls.append(shared / max(1, sum(prose.values())))
                leaks.append(1 - shared / max(1, sum(words.values())))
                kept_headings.append(len(HEADING.findall(output)) / max(1, headings))
            results[name] = {
                "recall_mean": statistics.mean(recalls),
                "recall_min": min(recalls),
                "leak_mean": statistics.mean(leaks),
                "headings_kept": statistics.mean(kept_headings),
                "ms_per_page_p50": statistics.median(times),
            }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {}
    print(f"load average {os.getloadavg()[0]:.2f}")
    for layout, semantic in (("semantic theme", True), ("div theme with a sidebar", False)):
        results[layout] = measure(semantic)
        print(f"{layout:24} recall mean/min   leak   headings kept   ms/page p50")
        for name, row in results[layout].items():
            print(
                f"  {name:22} {row['recall_mean']:.3f}/{row['recall_min']:.3f}    "
                f"{row['leak_mean']:.3f}   {row['headings_kept']:.2f}            "
                f"{row['ms_per_page_p50']:.1f}"
            )
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
