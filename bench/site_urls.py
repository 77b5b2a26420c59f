"""Citation URLs against each shared site's live scheme: the file -> URL and heading -> anchor
examples of its SOURCE.txt (bench/_source_txt.py), with presets alone.

A site whose address lived only in code (a config written as JavaScript or Haskell, removed
from the copies) is given it as its owner would, with `--base-url` (OWNER_BASE); alanaktion's
dated URLs were code too, and it is given the `--route` rule its owner would write.

    python -m bench.site_urls [NAME,...] [--misses]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from bench._common import SITES
from bench._source_txt import anchor_examples, heading_text, url_examples
from sitecite.ingest import IngestResult, load_site, page_id

OWNER_BASE = {
    "jarvis": "https://jarv.is",
    "timlrx": "https://www.timlrx.com",
    "lengstorf": "https://lengstorf.com",
    "alanaktion": "https://blog.phpizza.com",
    "brianbuccola": "https://brianbuccola.com",
    "maxleiter": "https://maxleiter.com",
    "roobie": "https://bjro.dev",
    "rpsychologist": "https://rpsychologist.com",
}
OWNER_ROUTES = {
    "alanaktion": [
        r"content/blog/\d{4}/(?P<name>[^/]+) => /{page.year}/{page.month}/{page.day}/{name}/"
    ],
}
ALL = (
    *("jarvis", "timlrx", "shazow", "benbalter", "lengstorf", "alanaktion", "kaeruct"),
    *("pmichaillat", "bldavies", "mpilia", "derekkedziora", "maxleiter", "roobie"),
    *("rpsychologist", "olegnenashev", "brianbuccola", "andrewheiss", "ksreyes"),
)


@dataclass(frozen=True)
class Example:
    """One example: the file (or heading), the URL (or anchor) the live site has, ours.

    `folder_pages`: the generator writes each page as `<path>/index.html`, which a static host
    serves at `<path>/` (and redirects `<path>` to): there `<path>/` lands where SOURCE.txt
    writes `<path>` (rpsychologist's Gatsby theme creates its posts at `/<slug>`, the official
    blog theme at `/<slug>/`; the theme is code, not in the copy)."""

    source: str
    expected: str
    got: str
    folder_pages: bool = False

    @property
    def lands(self) -> bool:
        if self.expected.startswith(("http://", "https://")):
            got, expected = self.got, self.expected
        else:
            parts = urlsplit(self.got)
            got = parts.path + (f"#{parts.fragment}" if parts.fragment else "")
            expected = self.expected
        if self.folder_pages and "#" not in expected and not expected.endswith("/"):
            return got in (expected, expected + "/")
        return got == expected


def ingest(site: str, root: Path | None = None) -> IngestResult:
    """The site read as its owner would index it (`--base-url`, `--route` where needed)."""
    return load_site(
        root or SITES / site, OWNER_BASE.get(site, ""), routes=OWNER_ROUTES.get(site, ())
    )


def url_results(site: str, result: IngestResult, text: str) -> list[Example]:
    """Each file -> URL example with the URL our index gives that file's page."""
    by_source = {p.source: p.url for p in result.pages}
    folder_pages = any(p.name == "gatsby" for p in result.router.presets)
    examples = []
    for source, url in url_examples(text, SITES / site):
        got = by_source.get(source)
        if got is None:  # not a page here (a format not read yet): the URL its route gives
            got = "(no page) " + result.router.url(page_id(source), {}, source)
        examples.append(Example(source, url, got, folder_pages))
    return examples


def anchor_results(result: IngestResult, text: str) -> list[Example]:
    """Each heading -> anchor example whose heading is in the index (a copy may lack it),
    with the anchor of the section that has it (any, for a repeated heading)."""
    examples = []
    for heading, anchor in anchor_examples(text):
        found = [s for s in result.sections if heading_text(s.heading) == heading]
        if not found:
            continue
        # SOURCE.txt's text drops the invisible U+FE0F of an emoji that github-slugger keeps
        anchors = [s.url.replace("\ufe0f", "").partition("#")[2] for s in found]
        got = anchor if anchor in anchors else anchors[0]
        examples.append(Example(heading, f"#{anchor}", f"#{got}"))
    return examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sites", nargs="?", default=",".join(ALL))
    parser.add_argument("--misses", action="store_true", help="print the examples that miss")
    args = parser.parse_args()
    total = [0, 0, 0, 0]
    for site in args.sites.split(","):
        text = (SITES / site / "SOURCE.txt").read_text(encoding="utf-8")
        result = ingest(site)
        urls, anchors = url_results(site, result, text), anchor_results(result, text)
        presets = ",".join(p.name for p in result.router.presets) or "-"
        landed = sum(e.lands for e in urls)
        anchored = sum(e.lands for e in anchors)
        print(
            f"{site:14} {presets:22} URLs {landed}/{len(urls)}  anchors {anchored}/{len(anchors)}"
        )
        total = [
            total[0] + landed,
            total[1] + len(urls),
            total[2] + anchored,
            total[3] + len(anchors),
        ]
        for example in (e for e in urls + anchors if args.misses and not e.lands):
            print(f"    {example.source} -> {example.expected}  got {example.got}")
    print(f"{'all':14} {'':22} URLs {total[0]}/{total[1]}  anchors {total[2]}/{total[3]}")


if __name__ == "__main__":
    main()
