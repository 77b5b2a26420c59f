"""Titles from the page, not the site: on a hand-written site every page may open with the
same `<h1>` (the site's name in its header). When all of a site's HTML pages share their title
(that first h1), each is titled by its `<title>` without the site's name, else by its next
heading.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from sitecite.types import Page

_SEPARATORS = re.compile(r"\s+[|·•:–—-]{1,2}\s+|\s*[|·•]\s*")


def _without_site(head_title: str, site: str, others: Sequence[str]) -> str:
    """The `<title>` less the site's name: the shared h1, or a part every title shares."""
    parts = [p.strip() for p in _SEPARATORS.split(head_title) if p.strip()]
    shared = {p for p in parts if sum(p in o for o in others) > max(1, len(others) // 2)}
    kept = [p for p in parts if p.lower() != site.lower() and p not in shared]
    return " — ".join(kept)


def own_titles(pages: list[Page]) -> list[Page]:
    """The pages, each HTML page retitled when its first h1 is one every HTML page shares."""
    html = [p for p in pages if p.source.lower().endswith((".html", ".htm"))]
    firsts = {p.title for p in html}
    if len(html) < 2 or len(firsts) != 1 or not next(iter(firsts)):
        return pages
    site = next(iter(firsts))
    heads = [str(p.metadata.get("head_title") or "") for p in html]
    out = []
    for page in pages:
        if page not in html or page.title != site:
            out.append(page)
            continue
        title = _without_site(str(page.metadata.get("head_title") or ""), site, heads)
        if not title:
            title = next((b.heading for b in page.blocks if b.level and b.heading), site)
        out.append(dataclasses.replace(page, title=title))
    return out
