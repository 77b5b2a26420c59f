"""Extraction quality, two ways.

`--sites`: each real site of ../shared/data/sites (and the fixture sites of tests/data/sites)
ingested from its source folder: pages, sections, the share of indexed lines carrying generator
syntax (bench/markup_debris.py) with its kinds, retention (prose words kept, and pages of 100+
words under 60%), the SOURCE.txt URL examples that land (file -> URL and heading -> anchor,
bench/site_urls.py), the pages whose URLs are unverified (guessed, or inferred from the site's
links), files skipped, warned about and left out (drafts, templates), and ingestion time. "debris"
leaves out what the pages show as code (inline code spans, code blocks); "+code" counts it.

Default: main-content extraction compared on the example site rendered to HTML (header,
navigation and footer around each page's article): trafilatura, readability-lxml and
selectolax. For every page: recall (share of the source page's prose words the extractor
returned, counted as multisets), leak (share of returned words that are not in the page's prose:
navigation, footer), headings kept (h2-h6 in the output against the source's) and time per page.

    python -m bench.extraction [--sites [NAME,...]] [--json]
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

from bench import site_urls
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


FIXTURES = REPO / "tests" / "data" / "sites"
FIXTURE_SITES = (
    *("vue-pages", "docusaurus", "handwritten", "eleventy", "pelican", "hakyll"),
    *("gatsby-config", "astro-dated"),
)


def site_figures(name: str, root: Path, source_txt: str) -> dict[str, object]:
    """One site's extraction figures (see the module docstring); a shared site is read as its
    owner would index it (bench/site_urls.py: `--base-url`, `--route` where code held them)."""
    from bench import site_urls
    from bench.markup_debris import code_shown, debris_share
    from sitecite.ingest import load_site

    started = time.perf_counter()
    result = site_urls.ingest(name, root) if source_txt else load_site(root)
    seconds = time.perf_counter() - started
    share, kinds, lines = debris_share(result.sections, code_shown(root))
    raw_share = debris_share(result.sections)[0]
    read = sum(f.words_read for f in result.files)
    kept = sum(f.words_kept for f in result.files)
    low = [f.source for f in result.files if f.words_read >= 100 and f.retention < 0.6]
    examples = site_urls.url_results(name, result, source_txt) if source_txt else []
    anchors = site_urls.anchor_results(result, source_txt) if source_txt else []
    urls = result.url_report()
    return {
        "site": name,
        "presets": [p.name for p in result.router.presets],
        "pages": len(result.pages),
        "sections": len(result.sections),
        "debris": share,
        "debris_with_code": raw_share,
        "debris_kinds": dict(kinds),
        "debris_lines": lines[:5],
        "retention": kept / read if read else 1.0,
        "pages_under_60": low,
        "examples": f"{sum(e.lands for e in examples)}/{len(examples)}",
        "anchors": f"{sum(e.lands for e in anchors)}/{len(anchors)}",
        "unverified": len(urls["guessed"]) + len(urls["inferred"]),  # type: ignore[arg-type]
        "skipped": len(result.problems),
        "warned": len(result.warnings),
        "left_out": len(result.skipped),
        "seconds": seconds,
    }


def measure_sites(names: list[str]) -> list[dict[str, object]]:
    from bench._common import SITES, site_copy

    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            if (FIXTURES / name).is_dir():
                rows.append(site_figures(name, FIXTURES / name, ""))
                continue
            root = site_copy(name, Path(scratch) / name)
            source = SITES / name / "SOURCE.txt"
            text = source.read_text(encoding="utf-8") if source.exists() else ""
            rows.append(site_figures(name, root, text))
    return rows


def print_sites(rows: list[dict[str, object]]) -> None:
    print(
        f"{'site':12} {'preset':12} {'pages':>5} {'sect.':>5} {'debris':>7} {'+code':>6} "
        f"{'retained':>8} "
        f"{'<60%':>4} {'URL ex.':>7} {'anchors':>7} {'unsure':>6} {'skip':>4} {'warn':>4} "
        f"{'left out':>8} {'ingest s':>8}"
    )
    for r in rows:
        presets = ",".join(r["presets"]) or "-"  # type: ignore[arg-type]
        print(
            f"{r['site']:12} {presets:12} {r['pages']:>5} {r['sections']:>5} "
            f"{r['debris']:>7.2%} {r['debris_with_code']:>6.2%} "
            f"{r['retention']:>8.1%} {len(r['pages_under_60']):>4} "  # type: ignore[arg-type]
            f"{r['examples']:>7} {r['anchors']:>7} {r['unverified']:>6} {r['skipped']:>4} "
            f"{r['warned']:>4} {r['left_out']:>8} {r['seconds']:>8.1f}"
        )
    for r in rows:
        for line in r["debris_lines"]:  # type: ignore[attr-defined]
            print(f"  {r['site']}: {line[:110]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--sites",
        nargs="?",
        const=",".join([*site_urls.ALL, *FIXTURE_SITES]),
        help="the per-site figures instead (comma-separated names; default all)",
    )
    args = parser.parse_args()
    if args.sites:
        print(f"load average {os.getloadavg()[0]:.2f}")
        rows = measure_sites(args.sites.split(","))
        print_sites(rows)
        if args.json:
            print(json.dumps(rows))
        return
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
