"""The URL examples of a shared site's SOURCE.txt: file -> live URL, heading -> anchor.

Each SOURCE.txt gives its site's live URL scheme with examples, written by hand in a few
styles: "`path` → https://...", "path   -> /url/  (note)", several to a line separated by
";", an arrow at the end of a line and the URL on the next, a file named relative to the one
before it ("site/src/pages/about.md -> /about/ ; uses.md -> /uses/"). An example counts only
when its file is in the copy (lines marked "(not in this copy)" name files that are not).
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

_EXTENSIONS = "md|markdown|mdx|qmd|rmd|Rmd|html|htm|astro|rst|adoc|yml|yaml|json"
_PATH = re.compile(rf"[\w.][^\s`'\"(),;:→]*(?: \w[^\s`'\"(),;:→/]*)*?\.(?:{_EXTENSIONS})(?![\w.])")
_ARROW = re.compile(r"\s*(?:->|→)\s*")
_URL = re.compile(r"(?:https?://|/)[^\s`'\"(),;]*")
_ANCHOR = re.compile(
    r"\"(#{1,6}) ([^\"]+)\"(?: on a page)?\s*(?:->|→)\s*(?:#|id=\"|<section id=\")([^\s\"`>]+)"
)
# the old style quotes a heading in backticks and may hold backticks inside it
_OLD_ANCHOR = re.compile(r"`(#{1,6}) ([^`]+)` →\s*`#([^`]+)`")


def _joined(text: str) -> str:
    """Lines that continue the one before (an arrow ends it, or begins the next) joined."""
    text = re.sub(r"(?:->|→)[ \t]*\n[ \t]+", "-> ", text)
    return re.sub(r"\n[ \t]+(?=(?:->|→))", " ", text)


def url_examples(text: str, root: Path) -> list[tuple[str, str]]:
    """(file, URL) examples whose file is in the site's folder `root`; a URL is absolute or a
    path from the site's root."""
    found: list[tuple[str, str]] = []
    for line in _joined(text).splitlines():
        if "(not in this copy)" in line:
            continue
        previous = ""
        for segment in line.split(";"):
            parts = _ARROW.split(segment.replace("`", ""), maxsplit=1)
            if len(parts) != 2:
                continue
            left, right = parts
            paths = _PATH.findall(left)
            url = _URL.match(right.strip())
            if not paths or url is None:
                continue
            path, address = paths[0].strip(), url.group(0).rstrip(".,")
            if "<" in right.split()[0] or "{" in address:
                continue
            if not (root / path).is_file() and previous:
                path = (PurePosixPath(previous).parent / path).as_posix()
            if (root / path).is_file():
                found.append((path, address))
                previous = path
    return list(dict.fromkeys(found))


def heading_text(text: str) -> str:
    """A heading compared loosely: Markdown links, code and emphasis marks gone, spaces
    collapsed."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return " ".join(re.sub(r"`|\*\*?", "", text).split())


def anchor_examples(text: str) -> list[tuple[str, str]]:
    """(heading text, anchor) examples."""
    flat = re.sub(r"\n[ \t]+", " ", text)
    # "second "## X" on a page -> #x_1" states the rule for repeats, not one heading's id
    pairs = [
        (m.group(2), m.group(3))
        for m in _ANCHOR.finditer(flat)
        if not flat[: m.start()].endswith("second ")
    ]
    pairs += [(h, a) for _, h, a in _OLD_ANCHOR.findall(text)]
    return list(dict.fromkeys((heading_text(h), a.rstrip(".,;)")) for h, a in pairs))
