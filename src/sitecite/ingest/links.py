"""Routes the site's own links show, for pages nothing else routes.

When a generator's URL rules are code that is not in the folder (a Hakyll `site.hs`, an Astro
content config, a Next.js route), the pages still link to each other at their published URLs:
`[part 1]: /maintaining-an-academic-website-part-1/`, `](/blog/X11)`. A link whose last segment
is one page's slug (its front-matter `slug`, its file or folder name with or without a date
prefix, its title slugged) and no other page's shows where that page is; the date parts in it
are the page's date. Pages of one folder (digit-only folders such as years count as one) whose
links agree give a rule, `REGEX => TEMPLATE`, for every page of that folder.

Two conventions every host keeps need no link: the root's `index` page is `/`, and a root `404`
page is `/404.html` (where GitHub Pages, Netlify and others look for it). These URLs are
inferred, not verified: `sitecite index` says so.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from sitecite.ingest.routes import FILTERS, Router, Rule, join_url, page_fields
from sitecite.types import Page

_LINKS = re.compile(
    r"\]\(\s*<?([^)\s>]+)"  # [text](url)
    r"|^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)"  # [label]: url
    r"|\bhref\s*=\s*[\"']([^\"']+)[\"']",  # href="url"
    re.M,
)
AGREEMENT = 2 / 3  # the share of a folder's linked pages that must agree on a template


@dataclass(frozen=True)
class Learned:
    """A rule the site's links show, and how many links show it."""

    rule: Rule
    links: int

    def __str__(self) -> str:
        return f"{self.rule} ({self.links} link{'s' * (self.links != 1)})"


def site_paths(sources: Mapping[str, str], base_url: str) -> set[str]:
    """The paths on the site itself that its files link to (root-relative, or absolute on the
    base URL's host), without the base URL's own path, query or fragment."""
    base = urlsplit(base_url)
    host = (base.hostname or "").removeprefix("www.")
    prefix = base.path.rstrip("/")
    found = set()
    for text in sources.values():
        for match in _LINKS.finditer(text):
            href = next(g for g in match.groups() if g)
            parts = urlsplit(href)
            if parts.scheme in ("http", "https"):
                if not host or (parts.hostname or "").removeprefix("www.") != host:
                    continue
            elif parts.scheme or parts.netloc or not href.startswith("/"):
                continue
            path = unquote(parts.path)
            if prefix and path.startswith(prefix + "/"):
                path = path[len(prefix) :]
            if path not in ("", "/") and "." not in path.rsplit("/", 1)[-1].removesuffix(".html"):
                found.add(path)
    return found


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.lower(), flags=re.UNICODE).strip("-")


def _group(page_id: str) -> tuple[str, str]:
    """(the regex of the page's folder, its name): digit-only folders (years) generalised."""
    folder, _, name = page_id.rpartition("/")
    parts = [r"\d+" if p.isdigit() else re.escape(p) for p in folder.split("/") if p]
    return "/".join(parts), name


def _template(page: Page, path: str) -> str | None:
    """The template that gives `path` for this page, or None when its last segment is none
    of the page's slugs."""
    fields = page_fields(page.id, page.metadata)
    name = page.id.rsplit("/", 1)[-1]
    segments = [s for s in path.split("/") if s]
    last, html = re.subn(r"\.html$", "", segments[-1]) if segments else ("", 0)
    choices = (
        ("{page.slug}", fields["slug"]),
        ("{name}", name),
        ("{name|nodate}", FILTERS["nodate"](name)),
        ("{page.title|slug}", _slug(fields["title"])),
    )
    placeholder = next((p for p, value in choices if value and value == last), None)
    if placeholder is None:
        return None
    head = []
    order = [("{page.year}", fields["year"]), ("{page.month}", fields["month"])]
    order.append(("{page.day}", fields["day"]))
    for segment in segments[:-1]:  # the date parts, in their order
        if order and order[0][1] and segment == order[0][1]:
            head.append(order.pop(0)[0])
        else:
            head.append(segment)
    return "/" + "/".join([*head, placeholder + (".html" if html else "")])


def learn_routes(
    pages: Sequence[Page], links: set[str], trailing: bool | None
) -> tuple[dict[str, str], list[Learned]]:
    """Paths for `pages` (page id -> path) from the rules the links show, and those rules.
    `trailing` is the generator's trailing-slash convention (None: the links' own)."""
    by_last: dict[str, list[str]] = defaultdict(list)
    for path in links:
        last = path.rstrip("/").rsplit("/", 1)[-1].removesuffix(".html")
        by_last[last].append(path)
    claims: dict[str, list[tuple[Page, str]]] = defaultdict(list)
    for page in pages:
        for path in {p for value in _values(page) for p in by_last.get(value, [])}:
            claims[path].append((page, path))
    templates: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for claimed in claims.values():
        if len({page.id for page, _ in claimed}) != 1:
            continue  # the link's slug fits two pages: it shows neither
        page, path = claimed[0]
        template = _template(page, path.rstrip("/"))
        if template is not None:
            templates[_group(page.id)[0]].append((template, path.endswith("/")))
    rules = []
    for folder, found in templates.items():
        (template, count), *_ = Counter(t for t, _ in found).most_common(1)
        if count < AGREEMENT * len(found):
            continue
        slashes = [slash for t, slash in found if t == template]
        slash = trailing if trailing is not None else sum(slashes) * 2 >= len(slashes)
        if template.endswith(".html"):
            slash = False
        regex = f"{folder}/(?P<name>[^/]+)" if folder else "(?P<name>[^/]+)"
        rules.append(Learned(Rule.parse(f"{regex} => {template}{'/' * slash}"), count))
    paths = {}
    for page in pages:
        routed = _conventions(page.id) or next(
            (p for r in rules if (p := r.rule.apply(page.id, page_fields(page.id, page.metadata)))),
            None,
        )
        if routed is not None:
            paths[page.id] = routed
    return paths, rules


def _values(page: Page) -> set[str]:
    fields = page_fields(page.id, page.metadata)
    name = page.id.rsplit("/", 1)[-1]
    return {v for v in (fields["slug"], name, FILTERS["nodate"](name), _slug(fields["title"])) if v}


def _conventions(page_id: str) -> str | None:
    """What every host does: the root's index page at `/`, a root 404 page at `/404.html`."""
    if page_id in ("index", "_index", ""):
        return "/"
    return "/404.html" if page_id == "404" else None


def with_learned_urls(
    pages: Sequence[Page], paths: Mapping[str, str], router: Router
) -> list[Page]:
    """Pages at the paths the site's links show."""
    return [
        dataclasses.replace(page, url=join_url(router.base_url, paths[page.id]))
        if page.id in paths
        else page
        for page in pages
    ]
