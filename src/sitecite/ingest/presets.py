"""Route presets: which generator built the folder (read from its configuration and layout,
in the folder or in a first-level subfolder such as `website/`), and the rules, heading-id
rule, time zone and base URL that follow from it.

Each detector reads what is general about its generator: Jekyll's `permalink` and
collections, Hugo's `[permalinks]`, an Astro content config's collections (the base each
loads, whether its ids are built from the entry's date), Docusaurus's docs base path, the
`pages/` file routing of Nuxt, Vite SSG, unplugin-vue-router and VitePress. Nothing is keyed to
one site's file names.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sitecite.ingest.astro import astro_preset
from sitecite.ingest.docusaurus import docusaurus_presets
from sitecite.ingest.eleventy import eleventy_preset
from sitecite.ingest.generators import hexo_preset, mkdocs_preset, quarto_preset, zola_preset
from sitecite.ingest.hakyll import hakyll_preset
from sitecite.ingest.layout import (
    SKIP,
    config_file,
    dependencies,
    glob_first,
    js_value,
    package_json,
    read,
    rules_under,
)
from sitecite.ingest.pelican import pelican_preset
from sitecite.ingest.routes import DATE_TOKENS, JEKYLL_STYLES, Preset, Router, Rule


def _nextjs_app(base: Path, prefix: str) -> Preset | None:
    """Next.js (nextjs.org, "Routing"): the app router's `app/x/page.mdx` at `/x` (route
    groups such as `(blog)` left out), the pages router's `pages/x.mdx` at `/x` and an `index`
    at its folder; no trailing slash. Known from a page file or a package.json naming `next`."""
    evidence = glob_first(base, "app/page.md*", "app/**/page.md*")
    packages = dependencies(base)
    if not evidence and "next" not in packages:
        return None
    rules = rules_under(
        prefix,
        "app => /",
        "app/(?P<path>.+) => /{path|nogroups}",
        "pages/(?:(?P<dir>.+)/)?index => /{dir}",
        "pages/(?P<path>.+) => /{path}",
    )
    what = (
        f"{evidence} is a Next.js app-router page"
        if evidence
        else (f"{packages['next']} depends on next")
    )
    return Preset("nextjs-app" if evidence else "nextjs", what, rules, trailing_slash=False)


def _tailwind_blog(base: Path, prefix: str) -> Preset | None:
    evidence = glob_first(base, "data/blog/*.md*", "data/blog/**/*.md*")
    if not evidence:
        return None
    rules = rules_under(
        prefix, "data/blog/(?P<slug>.+) => /blog/{slug|nodate}", "data/authors/default => /about"
    )
    return Preset(
        "tailwind-nextjs-starter-blog",
        f"{evidence} is a post of the Tailwind Next.js starter blog",
        rules,
    )


def _hugo(base: Path, prefix: str) -> Preset | None:
    conf_name = glob_first(
        base, *(f"{n}.{e}" for n in ("hugo", "config") for e in ("toml", "yaml", "yml", "json"))
    )
    conf_name = conf_name or glob_first(base, "config/_default/hugo.*", "config/_default/config.*")
    evidence = glob_first(base, "content/*.md", "content/**/*.md")
    if not evidence or not (conf_name or (base / "archetypes").is_dir()):
        return None
    config = config_file(base / conf_name) if conf_name else {}
    if "base_url" in config and not {"baseURL", "baseurl"} & set(config):
        return None  # Zola's (zola_preset)
    texts = []
    permalinks = config.get("permalinks") or {}
    for section, pattern in permalinks.items() if isinstance(permalinks, dict) else ():
        if isinstance(pattern, str) and (base / "content" / str(section)).is_dir():
            template = _hugo_template(pattern, str(section))
            texts.append(f"content/{re.escape(str(section))}/(?P<name>.+?) => {template}")
    texts += [
        "layouts => /",
        "content(?:/_index)? => /",
        "content/(?P<path>.+?)(?:/_index)? => /{path|lower}/",
    ]
    base_url = str(config.get("baseURL") or config.get("baseurl") or "")
    zone = str(config.get("timeZone") or config.get("timezone") or "UTC")
    return Preset(
        "hugo",
        f"{evidence} is Hugo content ({conf_name or 'archetypes/'})",
        rules_under(prefix, *texts),
        timezone=zone,
        path_keys=("url",),
        base_url=base_url,
        trailing_slash=not config.get("uglyURLs"),
    )


def _hugo_template(pattern: str, section: str) -> str:
    tokens = {
        "year": "{page.year}",
        "month": "{page.month}",
        "day": "{page.day}",
        "title": "{page.title|slug}",
        "slug": "{page.slug}",
        "slugorfilename": "{page.slug}",
        "filename": "{name}",
        "contentbasename": "{name}",
        "section": section,
    }
    filled = re.sub(r":(\w+)", lambda m: tokens.get(m.group(1), ""), pattern)
    return "/" + filled.strip("/") + "/"


def _jekyll(base: Path, prefix: str) -> Preset | None:
    posts = glob_first(base, "_posts/*.md*", "_posts/**/*.md*", "*/_posts/*.md*", "_posts/*.html")
    has_config = (base / "_config.yml").is_file() or (base / "_config.yaml").is_file()
    hexo = hexo_preset(base, prefix) or (base.name == "source" and hexo_preset(base.parent, ""))
    if (not posts and not has_config) or hexo:
        return None  # a Hexo site's _config.yml and source/_posts are Hexo's
    config = config_file(base / "_config.yml") or config_file(base / "_config.yaml")
    permalink = str(config.get("permalink") or "date")
    pattern = JEKYLL_STYLES.get(permalink, permalink)
    pretty = pattern.endswith("/")
    post = _jekyll_template(pattern)
    texts = [r"(?:(?P<cat>.+)/)?_posts/(?:.*/)?(?P<file>[^/]+) => " + post]
    for name, options in _collections(config).items():
        if options.get("output"):
            permalink_c = str(options.get("permalink") or "/:collection/:path/")
            template = _jekyll_template(permalink_c.replace(":collection", name))
            texts.append(f"_{re.escape(name)}/(?P<path>.+) => {template}")
    texts += [
        r"(?:(?P<dir>.+)/)?index => /{dir}/",
        r"(?P<path>.+) => /{path}" + ("/" if pretty else ".html"),
    ]
    url = str(config.get("url") or "").rstrip("/") + str(config.get("baseurl") or "")
    evidence = f"{posts} is a Jekyll post" if posts else "_config.yml is Jekyll's"
    return Preset(
        "jekyll",
        f"{evidence}; permalink {permalink}",
        rules_under(prefix, *texts),
        anchors="kramdown",
        timezone=str(config.get("timezone") or "UTC"),
        base_url=url,
    )


def _collections(config: dict[str, object]) -> dict[str, dict[str, object]]:
    """Jekyll's `collections:` as name -> options (a list of names has no options)."""
    raw = config.get("collections")
    if isinstance(raw, list):
        return {str(name): {} for name in raw}
    if isinstance(raw, dict):
        return {str(k): (v if isinstance(v, dict) else {}) for k, v in raw.items()}
    return {}


def _jekyll_template(pattern: str) -> str:
    tokens = {
        **DATE_TOKENS,
        "title": "{page.slug}",
        "slug": "{page.slug|slug}",
        "categories": "{cat|lower}/{page.categories}",
        "output_ext": ".html",
        "path": "{path}",
        "name": "{page.slug}",
    }
    return re.sub(r":([a-z_]+)", lambda m: tokens.get(m.group(1), ""), pattern)


def _gatsby(base: Path, prefix: str) -> Preset | None:
    """Gatsby, from `gatsby-config.*` or a `package.json` that depends on gatsby. Pages in
    `src/pages` are served at their path; content files at their front-matter `slug` (what
    Gatsby's blog themes route by). Headings have ids only with an autolink or slug plugin."""
    conf_name = glob_first(base, "gatsby-config.*")
    packages = dependencies(base)
    if not conf_name and "gatsby" not in packages:
        return None
    config = read(base / conf_name) if conf_name else ""
    plugins = " ".join([config, *packages])
    ids = re.search(r"autolink-headers|rehype-slug|remark-slug|rehype-autolink", plugins)
    themes = sorted(name for name in packages if name.startswith("gatsby-theme-"))
    evidence = (
        f"{conf_name} is Gatsby's"
        if conf_name
        else f"{packages['gatsby']} depends on gatsby"
        + (f" and {', '.join(themes[:3])}" if themes else "")
    )
    texts = ["src/pages => /", "src/pages/(?P<path>.+) => /{path}/"]
    return Preset(
        "gatsby",
        f"{evidence}; a front-matter slug is the page's path"
        + ("" if ids else "; its headings have no ids"),
        rules_under(prefix, *texts),
        anchors="github" if ids else "none",
        slug="path",
        path_keys=("permalink", "slug_path"),
        base_url=js_value(config, "siteUrl"),
        trailing_slash=True,  # every page is written as <path>/index.html
        front_for=_gatsby_slug,
    )


def _gatsby_slug(source: str, front: Mapping[str, Any]) -> Mapping[str, Any]:
    """A Gatsby content file is a page where the code that creates it puts it, which is not in
    the folder: its front-matter `slug` says where (`/<slug>/`); without one its URL is not
    known (the site's links, or a guess, say where)."""
    slug = front.get("slug")
    if isinstance(slug, str) and slug.strip("/"):
        return {**front, "slug_path": f"/{slug.strip('/')}/"}
    return front


def _vitepress(base: Path, prefix: str) -> Preset | None:
    """VitePress (vitepress.dev, "Routing"): pages from the folder holding `.vitepress/` (or
    the one `vitepress build DIR` names), `index` at its folder, `.html` unless `cleanUrls`."""
    conf_name = glob_first(base, ".vitepress/config.*", "*/.vitepress/config.*")
    conf_name = conf_name or glob_first(base, ".vitepress", "*/.vitepress")
    packages = dependencies(base)
    if not conf_name and "vitepress" not in packages:
        return None
    if conf_name:
        dot = Path(conf_name) if Path(conf_name).name == ".vitepress" else Path(conf_name).parent
        source = dot.parent.as_posix()
    else:
        scripts = str(package_json(base).get("scripts") or "")
        named = re.search(r"vitepress\s+(?:build|dev)\s+([\w./-]+)", scripts)
        source = named.group(1).strip("./") if named else "."
    folder = "/".join(p for p in (prefix, "" if source in (".", "") else source) if p)
    config = read(base / conf_name) if conf_name and (base / conf_name).is_file() else ""
    ext = "" if re.search(r"cleanUrls\s*:\s*true", config) else ".html"
    lead = re.escape(folder + "/") if folder else ""
    texts = [
        f"{lead}(?:(?P<dir>.+)/)?index => /{{dir}}/",
        f"{lead}(?P<path>.+) => /{{path}}{ext}",
    ]
    if folder:
        texts.insert(0, f"{re.escape(folder)} => /")
    evidence = conf_name or f"{packages['vitepress']} depends on vitepress"
    return Preset(
        "vitepress",
        f"{evidence} is VitePress's (pages from {folder or 'the root'})",
        tuple(Rule.parse(t) for t in texts),
        anchors="vitepress",
        base_url=js_value(config, "hostname"),
    )


VUE_ROUTERS = ("nuxt", "vite-ssg", "vite-plugin-pages", "unplugin-vue-router", "nuxt3")


def _vue_pages(base: Path, prefix: str) -> Preset | None:
    """File routing from `pages/` (Nuxt, vite-plugin-pages, Vite SSG, unplugin-vue-router):
    `pages/index` at `/`, `pages/a/index` at `/a`, `pages/a/b` at `/a/b`. Known from their
    config file or a package.json naming one of them."""
    conf_name = glob_first(base, "nuxt.config.*", "vite.config.*")
    packages = dependencies(base)
    router = next((name for name in VUE_ROUTERS if name in packages), "")
    if not conf_name and not router:
        return None
    for folder in ("pages", "src/pages"):
        evidence = glob_first(base, f"{folder}/*.md", f"{folder}/*.vue", f"{folder}/**/*.md")
        if evidence:
            break
    else:
        return None
    texts = [
        f"{re.escape(folder)}/(?:(?P<dir>.+)/)?index => /{{dir}}",
        f"{re.escape(folder)}/(?P<path>.+) => /{{path}}",
    ]
    return Preset(
        "vue-pages",
        f"{evidence} is routed by its path in {folder}/ "
        f"({conf_name or packages[router] + ' depends on ' + router})",
        rules_under(prefix, *texts),
        trailing_slash=False,
    )


DETECTORS: tuple[Callable[[Path, str], Preset | tuple[Preset, ...] | None], ...] = (
    quarto_preset,
    mkdocs_preset,
    eleventy_preset,
    pelican_preset,
    hakyll_preset,
    _nextjs_app,
    _tailwind_blog,
    docusaurus_presets,
    _vitepress,
    _vue_pages,
    _gatsby,
    hexo_preset,
    zola_preset,
    _hugo,
    _jekyll,
    astro_preset,
)


def _bases(root: Path) -> list[tuple[Path, str]]:
    """The folder itself, then its first-level subfolders (a site kept in `website/`)."""
    found = [(root, "")]
    for child in sorted(root.iterdir()) if root.is_dir() else []:
        if child.is_dir() and not child.name.startswith((".", "_")) and child.name not in SKIP:
            found.append((child, child.name))
    return found


def _static_html(root: Path) -> Preset | None:
    """Hand-written HTML: each page is served at its file's path (`index.html` at its folder)."""
    evidence = glob_first(root, "index.html", "*.html")
    if not evidence or glob_first(root, "*.md", "**/*.md", "**/*.mdx"):
        return None
    rules = (
        Rule.parse("(?:(?P<dir>.+)/)?index => /{dir}/"),
        Rule.parse("(?P<path>.+) => /{path}.html"),
    )
    return Preset("static-html", f"{evidence}: hand-written HTML, served at its file paths", rules)


def detect_presets(root: Path) -> list[Preset]:
    """Every generator convention the folder (or a first-level subfolder) shows; a folder of
    HTML and nothing else is a hand-written site."""
    found: list[Preset] = []
    names: set[str] = set()
    for detector in DETECTORS:
        for base, prefix in _bases(root):
            detected = detector(base, prefix)
            if detected is None:
                continue
            for preset in detected if isinstance(detected, tuple) else (detected,):
                if preset.name not in names:
                    names.add(preset.name)
                    found.append(dataclasses.replace(preset, folder=prefix))
            break
    if not found and (static := _static_html(root)) is not None:
        found.append(static)
    return found


def router_for(
    base_url: str,
    routes: Sequence[str],
    route: str,
    root: Path | None,
    presets: bool,
    anchors: str = "auto",
) -> Router:
    """The router of a site: the owner's rules, then the presets detected in `root` (when
    `presets` is on), then the catch-all `route`; the base URL falls back to the generator's
    config."""
    detected = detect_presets(root) if presets and root is not None else []
    if not base_url:
        base_url = next((p.base_url for p in detected if p.base_url), "")
    return Router(base_url, [Rule.parse(r) for r in routes], detected, Rule.parse(route), anchors)
