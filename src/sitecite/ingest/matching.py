"""Each source page matched, one to one, to the page the site publishes it as (`ingest.sitemap`).

A pair scores what it shares: the canonical link (decisive), the title against the published
`<title>` or first `<h1>`, the first heading, the words of the text (the share of the source
page's words the published page shows), the URL's last segment against the page's slugs (its
front-matter `slug`, its file or folder name, its title slugged, the preset's guess) and the
date in the URL. The pairs are taken best first, each page and each published URL once; a pair
below `MIN_SCORE` is no match. A matched page takes the published URL, and the heading ids its
HTML gives; the others keep their routed URL and are named in the report.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

from sitecite.ingest.routes import CANONICAL_KEYS, FILTERS, Router, join_url, page_fields
from sitecite.ingest.sitemap import Published, SiteMap, normal, published_html, words_of
from sitecite.types import Page

MIN_SCORE = 3.0
CANONICAL = 100.0
_TITLE_PARTS = re.compile(r"\s+[|·•»–—:-]\s+")
_INDEX = re.compile(r"(?:^|/)(?:index|readme|_index)$", re.I)


@dataclass
class MapMatch:
    """What matching a site map did: page id -> published entry, and the pages left over."""

    source: str
    matched: dict[str, Published] = field(default_factory=dict)
    unmatched: list[str] = field(default_factory=list)  # source pages not in the map
    entries: int = 0

    def describe(self) -> str:
        """One line for `sitecite index`: how many pages matched, and which did not."""
        total = len(self.matched) + len(self.unmatched)
        line = f"site map ({self.source}): {len(self.matched)} of {total} page(s) matched"
        if self.unmatched:
            shown = ", ".join(self.unmatched[:5]) + (", ..." if len(self.unmatched) > 5 else "")
            line += f"; not in it, so routed as before: {shown}"
        return line


@dataclass(frozen=True)
class _Source:
    page: Page
    titles: frozenset[str]
    heading: str
    canonical: str
    slugs: frozenset[str]
    words: frozenset[str]
    date: tuple[str, str, str]
    guess: str  # the path the router gives it
    home: bool = False  # the site's shallowest index page: the map's "/" is its URL


def _segment(path: str) -> str:
    """A URL path's last segment, without `.html` or an index file name."""
    parts = [p for p in unquote(path).split("/") if p]
    while parts and re.fullmatch(r"index\.html?", parts[-1], re.I):
        parts.pop()
    return re.sub(r"\.html?$", "", parts[-1], flags=re.I) if parts else ""


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.lower(), flags=re.UNICODE).strip("-_")


def _source(page: Page, router: Router) -> _Source:
    front = page.metadata
    stem = PurePosixPath(page.source).with_suffix("").as_posix()
    name = _INDEX.sub("", stem).rsplit("/", 1)[-1] if _INDEX.search(stem) else stem.rsplit("/")[-1]
    slugs = {name, FILTERS["nodate"](name), FILTERS["nonumbers"](name), _slug(page.title)}
    if isinstance(front.get("slug"), str):
        slugs.add(str(front["slug"]).strip("/").rsplit("/", 1)[-1])
    guess = urlsplit(router.path(page.id, front, page.source)).path
    slugs.add(_segment(guess))
    canonical = next((str(front[k]) for k in CANONICAL_KEYS if front.get(k)), "")
    fields = page_fields(page.id, front)
    heading = str(front.get("first_h1") or next((b.heading for b in page.blocks if b.level), ""))
    text = " ".join(f"{b.heading} {b.text}" for b in page.blocks)
    return _Source(
        page,
        frozenset(t for t in (normal(page.title), normal(heading)) if t),
        normal(heading),
        canonical,
        frozenset(_slug(s) for s in slugs if _slug(s)),
        words_of(text),
        (fields["year"], fields["month"], fields["day"]),
        guess,
    )


def _with_home(sources: list[_Source]) -> list[_Source]:
    """Mark the home page's candidates: the index files nearest the site's root (`index.md`,
    `content/_index.md`, `src/pages/index.mdx`), or a page the router puts at `/`."""
    depth = {
        i: s.page.source.count("/")
        for i, s in enumerate(sources)
        if _INDEX.search(PurePosixPath(s.page.source).with_suffix("").as_posix())
    }
    top = min(depth.values(), default=-1)
    return [
        dataclasses.replace(s, home=True) if depth.get(i) == top or s.guess.strip("/") == "" else s
        for i, s in enumerate(sources)
    ]


def _titles(entry: Published) -> set[str]:
    """The published title and its parts ("Post | Site" -> "post", "site"), and the h1."""
    found = {normal(entry.heading)} if entry.heading else set()
    if entry.title:
        found.add(normal(entry.title))
        found.update(normal(part) for part in _TITLE_PARTS.split(entry.title))
    return {t for t in found if t}


def _score(source: _Source, entry: Published, titles: set[str], common: set[str]) -> float:
    if source.canonical and _same(source.canonical, entry.url):
        return CANONICAL
    score = 0.0
    segment = _slug(_segment(entry.path))
    if not segment and source.home or segment and segment in source.slugs:
        score += 3.0
    elif segment:
        tokens = set(segment.split("-"))
        best = max((_overlap(tokens, set(s.split("-"))) for s in source.slugs), default=0.0)
        score += 2.0 * best if best >= 0.5 else 0.0
    if source.guess.rstrip("/") == entry.path.rstrip("/") and source.guess:
        score += 1.0
    if source.titles & titles - common:
        score += 3.0
    if source.words and entry.words and len(source.words) >= 5:
        score += 4.0 * len(source.words & entry.words) / len(source.words)
    year, month, day = source.date
    parts = entry.path.split("/")
    if year and year in parts:
        score += 0.5 + 0.25 * (month in parts) + 0.25 * (day in parts)
    return score


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _same(url: str, other: str) -> bool:
    a, b = urlsplit(url), urlsplit(other)
    same_host = not a.netloc or not b.netloc or a.netloc == b.netloc
    return same_host and a.path.rstrip("/") == b.path.rstrip("/")


def _candidates(sources: list[_Source], entries: list[Published]) -> dict[int, set[int]]:
    """For each source page, the entries worth scoring: those sharing a rare token (of a slug,
    a title, the URL) with it; every entry when the map is small."""
    if len(entries) <= 400:
        return {i: set(range(len(entries))) for i in range(len(sources))}
    by_token: dict[str, set[int]] = defaultdict(set)
    for j, entry in enumerate(entries):
        for token in re.findall(r"[^\W_]{3,}", f"{entry.path} {entry.title} {entry.heading}"):
            by_token[token.lower()].add(j)
    rare = {t for t, js in by_token.items() if len(js) <= 50}
    found: dict[int, set[int]] = {}
    for i, source in enumerate(sources):
        tokens = {t for s in (*source.slugs, *source.titles) for t in re.split(r"[\W_]+", s)}
        found[i] = set().union(*(by_token[t] for t in tokens & rare)) if tokens & rare else set()
    return found


def match_pages(pages: Sequence[Page], site_map: SiteMap, router: Router) -> MapMatch:
    """Source pages (not profile facts) matched one to one to the map's entries."""
    entries = site_map.entries
    sources = _with_home([_source(p, router) for p in pages if p.kind in ("page", "data")])
    title_counts = Counter(t for e in entries for t in _titles(e))
    common = {t for t, n in title_counts.items() if n > max(2, len(entries) // 4)}  # site name
    entry_titles = [_titles(e) for e in entries]
    pairs = []
    for i, candidates in _candidates(sources, entries).items():
        for j in candidates:
            score = _score(sources[i], entries[j], entry_titles[j], common)
            if score >= MIN_SCORE:
                pairs.append((score, i, j))
    pairs.sort(key=lambda pair: (-pair[0], pair[1], pair[2]))
    result = MapMatch(site_map.source, entries=len(entries))
    taken: set[int] = set()
    for _, i, j in pairs:
        pid = sources[i].page.id
        if pid in result.matched or j in taken:
            continue
        result.matched[pid] = entries[j]
        taken.add(j)
    result.unmatched = [s.page.id for s in sources if s.page.id not in result.matched]
    return result


def match_site_map(
    pages: Sequence[Page], site_map: SiteMap, router: Router, most: int = 300
) -> MapMatch:
    """`match_pages`, then, for a live map, again with the HTML of the URLs left over (at most
    `most` fetched) when its URLs alone left pages unmatched."""
    match = match_pages(pages, site_map, router)
    if not match.unmatched or site_map.fetch_pages is None:
        return match
    taken = {e.url for e in match.matched.values()}
    left = [e.url for e in site_map.entries if e.url not in taken and not e.words][:most]
    fetched = site_map.fetch_pages(left) if left else {}
    if not fetched:
        return match
    entries = [
        published_html(fetched[e.url], e.url) if e.url in fetched else e for e in site_map.entries
    ]
    return match_pages(pages, dataclasses.replace(site_map, entries=entries), router)


def with_published_urls(pages: Sequence[Page], match: MapMatch, base_url: str) -> list[Page]:
    """Matched pages at their published URL, their headings at the ids its HTML gives them
    (none, when it shows headings without ids); the others as they were."""
    out = []
    for page in pages:
        entry = match.matched.get(page.id)
        if entry is None:
            out.append(page)
            continue
        url = entry.url if "://" in entry.url else join_url(base_url, entry.path)
        metadata = {**page.metadata, "published_url": url}
        blocks = page.blocks
        if entry.words:  # the page's HTML was read: its heading ids are known
            ids = dict(entry.heading_ids)
            if ids:
                blocks = tuple(
                    dataclasses.replace(b, anchor=ids.get(normal(b.heading), b.anchor))
                    if b.level
                    else b
                    for b in page.blocks
                )
            elif entry.headings:
                metadata["heading_ids"] = "none"
        out.append(dataclasses.replace(page, url=url, blocks=blocks, metadata=metadata))
    return out
