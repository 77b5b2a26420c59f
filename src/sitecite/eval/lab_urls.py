"""The lab's section on citation URLs: where the index's URLs came from (the manifest's `urls`,
docs/index-directory.md), and, when some are a guess or were inferred from the site's links,
which pages and how the owner makes them land."""

from __future__ import annotations

from html import escape
from typing import Any

from sitecite.eval.html import el

ORIGINS = (
    ("site map", "the site's own map"),
    ("built site", "the built site's files"),
    ("live site", "the live site"),
    ("rule", "your --route rules"),
    ("front matter", "the pages' front matter"),
    ("preset", "the generator's rules"),
    ("links", "the site's own links (inferred)"),
    ("guess", "their page ids (a guess)"),
)
FIX = (
    "Make them land: name the site's map, <code>sitecite index DIR --sitemap FILE|URL</code> "
    "(its <code>sitemap.xml</code>, or the built site's folder), or say where they are with "
    "<code>--route 'REGEX =&gt; TEMPLATE'</code> (docs/ingestion.md)."
)


def urls_section(urls: dict[str, Any] | None) -> str:
    """The section, or "" for an index that does not record where its URLs came from."""
    if not isinstance(urls, dict) or not urls.get("pages"):
        return ""
    counts = urls.get("from") or {}
    parts = [
        f"{el('b', str(counts[key]))} from {label}" for key, label in ORIGINS if counts.get(key)
    ]
    presets = ", ".join(escape(str(p)) for p in urls.get("presets") or [])
    if presets and counts.get("preset"):
        parts.append(f"generator: {el('code', presets)}")
    html = el("h2", "Citation URLs", id="urls") + el(
        "p", f"{urls['pages']} pages: " + "; ".join(parts) + "."
    )
    if urls.get("site_map"):
        html += el("p", escape(str(urls["site_map"])), class_="meta")
    if urls.get("unverified"):
        guessed, inferred = urls.get("guessed") or [], urls.get("inferred") or []
        warning = "⚠ Citations to these pages may not land: their URLs are unverified. "
        html += el("p", warning + FIX, class_="warn")
        for label, pages in (("Guessed", guessed), ("Inferred from links", inferred)):
            if pages:
                shown = ", ".join(el("code", escape(str(p))) for p in pages[:12])
                more = f" and {len(pages) - 12} more" if len(pages) > 12 else ""
                html += el("p", f"{label}: {shown}{more}")
    return el("section", html, id="citation-urls")


def urls_warning(urls: dict[str, Any] | None) -> str:
    """One line for the top of the lab when some URLs are unverified ("" otherwise)."""
    if not isinstance(urls, dict) or not urls.get("unverified"):
        return ""
    counts = urls.get("from") or {}
    unsure = int(counts.get("guess", 0)) + int(counts.get("links", 0))
    return (
        f"{unsure} of {urls.get('pages')} pages' citation URLs are unverified "
        "(see Citation URLs below)"
    )
