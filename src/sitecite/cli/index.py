"""`sitecite index`: arguments, progress and the printed report; `sitecite.refresh` does the
work and `sitecite.refresh.watch` re-runs it when the folder changes."""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import nullcontext
from typing import Any

from sitecite.config import Settings


def add_index_parser(sub: Any) -> None:
    index = sub.add_parser(
        "index",
        help="ingest a content folder, a built site or a live URL into an index",
        description="Ingest Markdown/MDX/HTML/JSON/YAML content, a built site's folder (out/, "
        "public/, _site/, dist/) or a live site (https://...: robots.txt, sitemaps, links) into "
        "an index directory; unchanged sections are not embedded again, unchanged pages of a "
        "live site are not fetched again (conditional GET).",
    )
    index.add_argument("source", metavar="CONTENT_DIR_OR_URL")
    index.add_argument("--index", required=True, help="index directory to create or update")
    index.add_argument("--base-url", help="site address used to build citation URLs")
    index.add_argument(
        "--route",
        action="append",
        metavar="RULE",
        help="a URL rule 'REGEX => TEMPLATE' on the page id, e.g. "
        "'notes/(?P<slug>.+) => /posts/{slug}' (repeatable, first match wins); a bare template "
        "such as '/blog/{page_id}' routes every page",
    )
    index.add_argument(
        "--no-presets", action="store_true", help="do not apply the detected route presets"
    )
    index.add_argument(
        "--sitemap",
        metavar="FILE|URL",
        help="the site's own map, matched page by page for citation URLs: a sitemap.xml file "
        "or URL, or a built site's folder (default: a built folder next to the sources, else "
        "the live /sitemap.xml under --base-url; 'none' turns it off)",
    )
    index.add_argument(
        "--anchors",
        choices=[
            *("auto", "github", "kramdown", "vitepress", "markdown-it-anchor", "pandoc"),
            *("python-markdown", "none"),
        ],
        help="how the site's generator makes heading ids (default auto: the detected "
        "generator's rule; e.g. vitepress for @mdit-vue's slugify, pandoc for Quarto and Hakyll, "
        "python-markdown for MkDocs and Pelican, none for no ids)",
    )
    index.add_argument(
        "--rebuild", action="store_true", help="re-embed everything (e.g. new embedder)"
    )
    index.add_argument(
        "--strict", action="store_true", help="exit non-zero if any file was skipped"
    )
    index.add_argument("--threads", type=int, help="threads for embedding (default: all cores)")
    index.add_argument("--json", action="store_true", help="print the build report as JSON")
    index.add_argument("--quiet", action="store_true", help="no progress; print only problems")
    index.add_argument(
        "--watch",
        action="store_true",
        help="keep running and re-index the folder whenever it changes (a running "
        "`sitecite serve` swaps the new index in)",
    )


def run_index(args: argparse.Namespace, settings: Settings) -> int:
    from sitecite.embed import embedder_for
    from sitecite.ingest.routes import Rule
    from sitecite.refresh import index_source, is_url

    for rule in [*settings.index.routes, settings.index.route]:
        Rule.parse(rule)  # a bad rule fails now, naming it, not after the model has loaded
    # Batch embedding uses every core (measured 1.7x faster than one thread on 2 idle cores).
    embedder = embedder_for(settings, args.threads or os.cpu_count() or 1)

    def once(rebuild: bool) -> int:
        from sitecite.cli.progress import reporter

        progress = reporter(args.quiet)
        with progress or nullcontext():
            run = index_source(
                args.source, args.index, embedder, settings, rebuild=rebuild, progress=progress
            )
        return _report(run, args)

    code = once(args.rebuild)
    if not args.watch:
        return code
    if is_url(args.source):
        print("sitecite: --watch follows a folder; for a live site use cron", file=sys.stderr)
        return 2
    from sitecite.refresh.watch import watch_folder

    watch_folder(
        args.source,
        args.index,
        settings.index.watch_debounce_ms,
        lambda changed: once(False),
        out=sys.stderr,
    )
    return code


def _report(run: Any, args: argparse.Namespace) -> int:
    for problem in run.problems:
        print(f"skipped {problem}", file=sys.stderr)
    for warning in run.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    talk = not (args.quiet or args.json)
    for line in run.routes:
        if talk or line.startswith("warning"):
            print(line, file=sys.stderr)
    if talk:
        for item in run.skipped:
            print(f"left out {item}", file=sys.stderr)
    if args.json:
        print(json.dumps(run.to_json(), ensure_ascii=False), flush=True)
    elif not args.quiet:
        print(run.summary(args.index), flush=True)
    return 1 if run.problems and args.strict else 0
