"""HTML pages: the layout every page shares, the demo home page and the indexed site's own pages
(so citations resolve), with the site's name and figures taken from the index.

Every value that comes from the index, the settings or the request is escaped on the way in;
the pages carry a Content-Security-Policy that allows only the server's own scripts.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from html import escape
from urllib.parse import unquote, urlsplit

from sitecite.index.store import Index
from sitecite.types import PROFILE_SUFFIX, Section

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}

# Shown on the home page when the bundled example site is served (its profile names Noor Haddad).
EXAMPLE_SITE_NAME = "Noor Haddad"
EXAMPLE_QUESTIONS = (
    "Which city and country is she based in?",
    "How did she stop shoppers from getting charged twice when they double-clicked pay?",
    "Which of her talks did attendees vote the best?",
    "How old is Noor?",
)


NAV = (("/how", "How it works"), ("/lab", "Lab"), ("/openapi.json", "API schema"))


def layout(
    title: str,
    body: str,
    *,
    site_name: str = "",
    current: str = "",
    head: str = "",
    wide: bool = False,
) -> str:
    """A page of the demo server: the site's name, the navigation (`current` marks where the
    visitor is), `body`, and the widget. `head` adds to the <head> (e.g. a page's own styles);
    a `wide` page (the lab's tables) gets a wider column."""
    here = ' aria-current="page"'
    links = "".join(
        f'<a href="{path}"{here if path == current else ""}>{label}</a>' for path, label in NAV
    )
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{escape(title)}</title>
<link rel="stylesheet" href="/static/site.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
{head}</head>
<body>
<header class="top">
  <a class="brand" href="/">{escape(site_name or "Ask this site")}</a>
  <nav aria-label="Site">
    {links}
    <button type="button" class="ask-button" data-sitecite-open>
      Ask this site <kbd>Ctrl K</kbd></button>
  </nav>
</header>
<main id="main"{' class="wide"' if wide else ""}>
{body}
</main>
<footer class="bottom">Answers come only from this site's pages, each claim with a citation,
or the assistant says the site does not say. Served by sitecite.</footer>
<script src="/widget.js" data-endpoint="/api/ask" data-button="false" defer></script>
</body>
</html>
"""


def site_name(index: Index) -> str:
    """Who or what the site is, from the index: the owner's name (as ingestion found it, or
    the profile facts' title), else the title of the page at the site's root, else the host
    of its base URL; "" when the index says none of these."""
    owner = str((index.manifest.get("identity") or {}).get("owner") or "").strip()
    if owner:
        return owner
    for section in index.sections:
        if section.page_id == "_facts" and section.title.endswith(PROFILE_SUFFIX):
            return section.title.removesuffix(PROFILE_SUFFIX).strip()
    base = str(index.manifest.get("base_url") or "")
    root = urlsplit(base).path or "/"
    for section in index.sections:
        parts = urlsplit(section.url)
        if section.page_id != "_facts" and parts.path in (root, "") and not parts.fragment:
            return section.title
    return urlsplit(base).hostname or ""


@dataclass(frozen=True)
class SitePage:
    """One page of the index: its title, its address, and the sections it was cut into."""

    page_id: str
    title: str
    url: str
    sections: int


def site_pages(index: Index) -> list[SitePage]:
    """Every page of the index (each page id once, the profile facts included), in index order."""
    found: dict[str, SitePage] = {}
    for section in index.sections:
        known = found.get(section.page_id)
        if known is None:
            url = urlsplit(section.url)._replace(fragment="").geturl()
            found[section.page_id] = SitePage(section.page_id, section.title, url, 1)
        else:
            found[section.page_id] = replace(known, sections=known.sections + 1)
    return list(found.values())


def site_figures(index: Index) -> str:
    """ "129 sections of 22 pages": what the index holds, counted from it."""
    pages = len(site_pages(index))
    sections = len(index.sections)
    return (
        f"{sections:,} section{'s' if sections != 1 else ''} of "
        f"{pages:,} page{'s' if pages != 1 else ''}"
    )


def page_title(what: str, name: str) -> str:
    """A page's <title>: "How it works · Noor Haddad" (the site's name, never sitecite's)."""
    return f"{what} · {name}" if name else what


def home_page(index: Index, origin: str) -> str:
    name = site_name(index)
    groups: dict[str, list[SitePage]] = defaultdict(list)
    for page in site_pages(index):
        path = urlsplit(page.url).path.strip("/")
        if page.page_id == "_facts" or not path:
            continue
        groups[path.split("/")[0] if "/" in path else ""].append(page)
    listing = "".join(
        f'<section class="group"><h3>{escape(folder.replace("-", " ").title() or "Pages")}</h3><ul>'
        + "".join(
            f'<li><a href="{escape(page.url)}">{escape(page.title)}</a></li>'
            for page in sorted(items, key=lambda p: p.url)
        )
        + "</ul></section>"
        for folder, items in sorted(groups.items())
    )
    suggestions = "".join(
        f'<li><button type="button" data-sitecite-ask="{escape(q)}">{escape(q)}</button></li>'
        for q in (EXAMPLE_QUESTIONS if name == EXAMPLE_SITE_NAME else ())
    )
    try_these = f'<h2>Try</h2><ul class="suggestions">{suggestions}</ul>' if suggestions else ""
    root = _pages(index).get("/", [])  # sections cited at "/#anchor" (e.g. profile facts)
    root_html = (
        f'<section class="page"><h2>{escape(root[0].title)}</h2>{_sections_html(root, 3)}</section>'
        if root
        else ""
    )
    snippet = (
        f'<script src="{origin}/widget.js"\n        data-endpoint="{origin}/api/ask" defer>'
        "</script>"
    )
    body = f"""
<section class="hero">
  <h1>{escape(f"Ask {name}'s website" if name else "Ask this website")}</h1>
  <p>Press <kbd>Ctrl</kbd> <kbd>K</kbd> (<kbd>⌘</kbd> <kbd>K</kbd> on a Mac) and ask a question.
  The answer quotes this site's pages and links every claim to the section it comes from;
  when the site does not say, the assistant says so instead of guessing.</p>
  {try_these}
</section>
{root_html}
<section>
  <h2>The site</h2>
  <p class="figures">{site_figures(index)}, index <code>{escape(index.id)}</code>.</p>
  <div class="groups">{listing}</div>
</section>
<section>
  <h2>Put it on your site</h2>
  <p>One script tag; add your site's origin to <code>serve.cors_origins</code>.</p>
  <pre><code>{escape(snippet)}</code></pre>
</section>"""
    return layout(page_title("Ask", name) if name else "Ask this site", body, site_name=name)


def site_page(index: Index, path: str) -> str | None:
    """A page of the indexed site rebuilt from its sections, with each section at its anchor."""
    sections = _pages(index).get(unquote(path))
    if not sections:
        return None
    title = sections[0].title
    article = f'<article class="page"><h1>{escape(title)}</h1>{_sections_html(sections)}</article>'
    name = site_name(index)
    return layout(page_title(title, name), article, site_name=name)


def _sections_html(sections: list[Section], level: int = 2) -> str:
    parts = []
    for section in sections:
        anchor = unquote(urlsplit(section.url).fragment)
        heading = f"<h{level}>{escape(section.heading)}</h{level}>" if section.heading else ""
        paragraphs = "".join(
            f"<p>{escape(line)}</p>" for line in section.text.split("\n") if line.strip()
        )
        parts.append(
            f'<section id="{escape(anchor)}" class="cited">{heading}{paragraphs}</section>'
        )
    return "".join(parts)


_page_memo: list[tuple[Index, dict[str, list[Section]]]] = []


def _pages(index: Index) -> dict[str, list[Section]]:
    """Sections grouped by the path part of their URL, for relative URLs this server can serve."""
    for known, pages in _page_memo:
        if known is index:
            return pages
    grouped: dict[str, list[Section]] = defaultdict(list)
    for section in index.sections:
        parts = urlsplit(section.url)
        if parts.scheme or parts.netloc or not parts.path.startswith("/"):
            continue
        grouped[unquote(parts.path)].append(section)
    _page_memo[:] = [*_page_memo[-1:], (index, dict(grouped))]  # this index and the one before
    return _page_memo[-1][1]
