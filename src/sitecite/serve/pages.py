"""HTML pages: the demo home page, the indexed site's own pages (so citations resolve), and the
lab placeholder.

Every value that comes from the index, the settings or the request is escaped on the way in;
the pages carry a Content-Security-Policy that allows only the server's own scripts.
"""

from __future__ import annotations

from collections import defaultdict
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


def layout(title: str, body: str, *, site_name: str = "sitecite") -> str:
    """A page of the demo server with its navigation and the widget."""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{escape(title)}</title>
<link rel="stylesheet" href="/static/site.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
</head>
<body>
<header class="top">
  <a class="brand" href="/">{escape(site_name or "sitecite")}</a>
  <nav aria-label="sitecite">
    <a href="/how">How it works</a>
    <a href="/lab">Evaluation lab</a>
    <a href="/openapi.json">API schema</a>
    <button type="button" class="ask-button" data-sitecite-open>
      Ask this site <kbd>Ctrl K</kbd></button>
  </nav>
</header>
<main id="main">
{body}
</main>
<footer class="bottom">Answers come only from this site's pages, each claim with a citation,
or the assistant says the site does not say. Served by sitecite.</footer>
<script src="/widget.js" data-endpoint="/api/ask" data-button="false" defer></script>
</body>
</html>
"""


def site_name(index: Index) -> str:
    """The person or organisation the site is about, from its profile facts if it has them."""
    for section in index.sections:
        if section.page_id == "_facts" and section.title.endswith(PROFILE_SUFFIX):
            return section.title.removesuffix(PROFILE_SUFFIX)
    return ""


def home_page(index: Index, origin: str) -> str:
    name = site_name(index)
    pages = _pages(index)
    groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for path, sections in pages.items():
        if path == "/" or path.startswith("/_"):
            continue
        folder = path.strip("/").split("/")[0] if "/" in path.strip("/") else ""
        groups[folder].append((path, sections[0].title))
    listing = "".join(
        f'<section class="group"><h3>{escape(folder.replace("-", " ").title() or "Pages")}</h3><ul>'
        + "".join(
            f'<li><a href="{escape(path)}">{escape(title)}</a></li>'
            for path, title in sorted(items)
        )
        + "</ul></section>"
        for folder, items in sorted(groups.items())
    )
    suggestions = "".join(
        f'<li><button type="button" data-sitecite-ask="{escape(q)}">{escape(q)}</button></li>'
        for q in (EXAMPLE_QUESTIONS if name == EXAMPLE_SITE_NAME else ())
    )
    try_these = f'<h2>Try</h2><ul class="suggestions">{suggestions}</ul>' if suggestions else ""
    root = pages.get("/", [])  # sections cited at "/#anchor" (e.g. profile facts) live here
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
  <p>{len(index.sections)} sections of {len(pages)} pages,
  index <code>{escape(index.id)}</code>.</p>
  <div class="groups">{listing}</div>
</section>
<section>
  <h2>Put it on your site</h2>
  <p>One script tag; add your site's origin to <code>serve.cors_origins</code>.</p>
  <pre><code>{escape(snippet)}</code></pre>
</section>"""
    return layout(f"{name} · sitecite demo" if name else "sitecite demo", body, site_name=name)


def site_page(index: Index, path: str) -> str | None:
    """A page of the indexed site rebuilt from its sections, with each section at its anchor."""
    sections = _pages(index).get(unquote(path))
    if not sections:
        return None
    title = sections[0].title
    article = f'<article class="page"><h1>{escape(title)}</h1>{_sections_html(sections)}</article>'
    name = site_name(index)
    return layout(f"{title} · {name or 'sitecite'}", article, site_name=name)


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


def lab_placeholder(reason: str = "") -> str:
    detail = f'<p class="note">{escape(reason)}</p>' if reason else ""
    body = f"""
<section class="hero">
  <h1>Evaluation lab</h1>
  <p>No evaluation run yet. Run one, and the lab page of the latest run appears here:</p>
  <pre><code>sitecite eval examples/questions.json --index DIR</code></pre>
  {detail}
</section>"""
    return layout("Evaluation lab · sitecite", body)


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
