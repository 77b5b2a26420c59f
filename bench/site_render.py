"""Render a content folder (the example site) to a static HTML site, as a generator would.

Every Markdown/MDX page becomes `/<page id>/index.html` with the chrome a real site has
(header, navigation, footer) around `<main><article>`: an `<h1>` title, the summary, the
body rendered by markdown-it with GitHub-style heading ids. HTML pages keep their body.
The home page, `robots.txt` (with a disallowed `/drafts/`) and `sitemap.xml` complete it.
Used by the live-site tests and by `bench/extraction.py`; the library never imports it.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from markdown_it import MarkdownIt

from sitecite.ingest import content_files, page_id
from sitecite.ingest.frontmatter import split_frontmatter
from sitecite.ingest.ids import Slugger
from sitecite.ingest.mdx import mdx_to_markdown

OWNER = "Noor Haddad"
_BODY = re.compile(r"<body[^>]*>(.*)</body>", re.S | re.I)
_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.S | re.I)


def _render_markdown(body: str, title: str) -> str:
    parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    tokens = parser.parse(body)
    slugger = Slugger()
    slugger.slug(title)
    for position, token in enumerate(tokens):
        if token.type == "heading_open":
            inline = tokens[position + 1]
            text = "".join(c.content for c in inline.children or [] if c.type != "html_inline")
            token.attrSet("id", slugger.slug(text.strip()))
    return parser.renderer.render(tokens, parser.options, {})


def _page(title: str, canonical: str, nav: str, article: str, semantic: bool = True) -> str:
    if not semantic:  # an older theme: the same chrome in plain <div>s, plus a sidebar
        return (
            "<!doctype html>\n<html><head><meta charset='utf-8'>"
            f"<title>{html.escape(title)} · {OWNER}</title></head>\n<body>"
            f"<div class='top'><a href='/'>{OWNER}</a><div class='menu'>{nav}</div></div>\n"
            f"<div class='wrap'><div class='post'>\n{article}\n</div>"
            f"<div class='sidebar'><h3>Elsewhere</h3><p>Subscribe to the newsletter for notes on "
            f"performance every month.</p><div class='menu'>{nav}</div></div></div>\n"
            f"<div class='bottom'><p>© 2026 {OWNER}. Made in Lisbon with care.</p></div>"
            "</body></html>\n"
        )
    return (
        "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)} · {OWNER}</title>"
        f"<link rel='canonical' href='{canonical}'>"
        "<meta name='viewport' content='width=device-width'></head>\n<body>"
        f"<header><a href='/'>{OWNER}</a><nav>{nav}</nav></header>\n"
        f"<main><article>\n{article}\n</article></main>\n"
        f"<footer><p>© 2026 {OWNER}. Made in Lisbon with care.</p>"
        "<p><a href='/'>Home</a> · <a href='/sitemap.xml'>Sitemap</a></p></footer>"
        "</body></html>\n"
    )


def render_site(source: Path, target: Path, semantic: bool = True) -> list[str]:
    """Write the HTML site into `target`; returns the page paths (`/about/`, ...).

    `semantic=False` renders an older theme: <div>s instead of <main>, <nav> and <footer>."""
    pages: list[tuple[str, str, str]] = []  # (path, title, article html)
    for file in content_files(source):
        relative = file.relative_to(source).as_posix()
        text = file.read_text(encoding="utf-8")
        path = f"/{page_id(relative)}/"
        if file.suffix in (".md", ".mdx"):
            matter = split_frontmatter(text, relative, lambda problem: None)
            front, body = matter.data, matter.body
            body = mdx_to_markdown(body, relative) if file.suffix == ".mdx" else body
            title = str(front.get("title") or page_id(relative))
            summary = front.get("summary") or front.get("description") or ""
            lead = f"<p>{html.escape(str(summary))}</p>\n" if summary else ""
            article = f"<h1>{html.escape(title)}</h1>\n{lead}{_render_markdown(body, title)}"
        elif file.suffix == ".html":
            body_match = _BODY.search(text)
            article = body_match.group(1) if body_match else text
            h1 = _H1.search(article)
            title = re.sub(r"<[^>]+>", "", h1.group(1)) if h1 else page_id(relative)
        else:
            continue  # data files are facts, not pages
        pages.append((path, title, article))
    nav = "".join(f"<a href='{p}'>{html.escape(t)}</a> " for p, t, _ in pages)
    for path, title, article in pages:
        out = target / path.strip("/") / "index.html"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(_page(title, path, nav, article, semantic), encoding="utf-8")
    (target / "index.html").write_text(_page(OWNER, "/", nav, f"<h1>{OWNER}</h1>"), "utf-8")
    drafts = target / "drafts" / "index.html"
    drafts.parent.mkdir(parents=True, exist_ok=True)
    drafts.write_text(_page("Draft", "/drafts/", nav, "<h1>Draft</h1><p>Not for robots.</p>"))
    urls = "".join(f"<url><loc>{{origin}}{p}</loc></url>" for p, _, _ in pages)
    (target / "sitemap.template.xml").write_text(
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        f"<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>{urls}</urlset>\n"
    )
    return [p for p, _, _ in pages]


def write_sitemap(target: Path, origin: str) -> None:
    """Sitemaps hold absolute URLs: fill in the server's origin once it is known."""
    template = (target / "sitemap.template.xml").read_text()
    (target / "sitemap.xml").write_text(template.replace("{origin}", origin))
    (target / "robots.txt").write_text(
        f"User-agent: *\nDisallow: /drafts/\n\nSitemap: {origin}/sitemap.xml\n"
    )
