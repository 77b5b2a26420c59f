"""What a site's generator would not publish as a page: drafts, unpublished files, templates.

Each is left out of the index and listed, with its reason, in `sitecite index`'s output:
front matter that says so (`draft: true`, `published: false`, `publish: false`), a file the
generator does not route (Jekyll's `_` folders and files without front matter, a Docusaurus
`_`-prefixed partial, a Hugo layout other than the home page, a Hugo archetype, a dynamic route
such as `[slug].astro`, a Gatsby content file without the `slug` its siblings route by), and a
page template: a file whose title or links hold placeholder tokens (`POST_TITLE`,
`{{title}}`, `%SLUG%`), or whose name says it is a template.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import PurePosixPath

from sitecite.ingest.generators import quarto_renders
from sitecite.ingest.jekyll import JekyllSite
from sitecite.ingest.routes import Preset
from sitecite.types import Page

_PLACEHOLDER = re.compile(r"\b[A-Z]{2,}(?:_[A-Z]{2,})+\b|\{\{\s*\w+\s*\}\}|%[A-Z_]{3,}%")
_TEMPLATE_NAME = re.compile(r"(?:^|[-_.])(template|boilerplate|skeleton)(?:$|[-_.])", re.I)


def front_matter_reason(front: dict[str, object]) -> str:
    """Why the front matter keeps the page unpublished ("" when it does not)."""
    if front.get("draft") is True:
        return "a draft (front matter draft: true)"
    for key in ("published", "publish"):
        if front.get(key) is False:
            return f"not published (front matter {key}: false)"
    return ""


def placeholder_reason(page: Page, raw: str) -> str:
    """A page template: placeholder tokens in its title, or in two places among its links and
    headings; or a file named as a template."""
    if _TEMPLATE_NAME.search(PurePosixPath(page.source).stem):
        return "a template (its file name says so)"
    spots = [page.title, *re.findall(r"""(?:href|src)\s*=\s*["']([^"']*)["']""", raw)]
    spots += [b.heading for b in page.blocks if b.heading]
    tokens = {t for spot in spots for t in _PLACEHOLDER.findall(spot)}
    if _PLACEHOLDER.search(page.title) or len(tokens) >= 2:
        return f"a template (placeholders {', '.join(sorted(tokens)[:3])})"
    return ""


def _within(source: str, prefix: str) -> str | None:
    """The source's path inside the generator's folder, or None when it is outside."""
    if not prefix:
        return source
    return source[len(prefix) + 1 :] if source.startswith(prefix + "/") else None


def generator_reason(
    source: str, preset: Preset, has_front: bool, jekyll: JekyllSite | None
) -> str:
    """Why the generator of `preset` would not publish this file as a page."""
    inner = _within(source, preset.folder)
    if inner is None:
        return ""
    parts = PurePosixPath(inner).parts
    if any("[" in part and "]" in part for part in parts):
        return "a dynamic route template (its URL comes from data)"
    if preset.name == "jekyll" and jekyll is not None:
        return jekyll.not_published(inner, has_front)
    if preset.name == "astro" and any(part.startswith("_") for part in parts):
        return "_-prefixed: Astro builds no page from it"
    if preset.name == "docusaurus" and any(part.startswith("_") for part in parts):
        return "a Docusaurus partial (_-prefixed): imported by pages, not a page"
    if preset.name == "quarto" and not quarto_renders(inner, preset.excludes):
        return "not rendered by Quarto (_-prefixed, a README, or not in _quarto.yml's render:)"
    if preset.name == "mkdocs" and preset.excludes and not inner.startswith(preset.excludes):
        return f"outside MkDocs' docs_dir ({preset.excludes[0]})"
    if preset.name == "eleventy":
        return _eleventy_reason(inner, preset)
    if (
        preset.name == "hakyll"
        and preset.rules
        and not any(r.match("", source) for r in preset.rules)
    ):
        return "no match rule of site.hs covers it: Hakyll builds no page from it"
    if preset.name == "hugo":
        if parts[0] not in ("content", "layouts") and PurePosixPath(inner).suffix in (
            ".md",
            ".markdown",
        ):
            return "outside Hugo's content folder: Hugo renders no page from it (a README)"
        if parts[0] == "archetypes":
            return "a Hugo archetype (the template of new content)"
        if parts[0] == "layouts" and inner not in ("layouts/index.html",):
            return "a Hugo layout template"
    return ""


def _eleventy_reason(inner: str, preset: Preset) -> str:
    """Eleventy's `excludes`: its input folder ("" the root), then the folders of includes,
    layouts and global data."""
    input_dir, *special = preset.excludes or ("",)
    if input_dir and not inner.startswith(input_dir):
        return "outside Eleventy's input folder"
    if any(inner.startswith(folder) for folder in special):
        return "Eleventy's includes, layouts or global data: they feed pages, not pages"
    path = PurePosixPath(inner)
    if path.suffix == ".json" and (
        path.name.endswith(".11tydata.json") or path.stem == path.parent.name
    ):
        return "an Eleventy data file (the data cascade of its folder or template)"
    return ""


def slugless(pages: Sequence[Page], presets: Sequence[Preset]) -> dict[str, str]:
    """Gatsby content files without a `slug` in a folder whose other files route by theirs."""
    gatsby = next((p for p in presets if p.name == "gatsby"), None)
    if gatsby is None:
        return {}
    content = [p for p in pages if p.kind == "page" and "/pages/" not in f"/{p.source}"]
    top = Counter(p.source.split("/", 1)[0] for p in content if p.metadata.get("slug"))
    reasons = {}
    for page in content:
        folder = page.source.split("/", 1)[0]
        if not page.metadata.get("slug") and top[folder] >= 2:
            reasons[page.source] = (
                "no front-matter slug, which its folder's pages are routed by: not a page"
            )
    return reasons
