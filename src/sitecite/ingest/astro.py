"""Astro: pages in `src/pages`, and content collections whose entries' URLs come from the
content config (`src/content.config.*`): the folder each `glob()` loader reads, whether its
`generateId` builds ids from the entry's date, and the dynamic route that serves them."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from sitecite.ingest.layout import dependencies, glob_first, js_value, read, rules_under
from sitecite.ingest.routes import Preset


def astro_preset(base: Path, prefix: str) -> Preset | None:
    config_file = glob_first(base, "astro.config.*")
    packages = dependencies(base)
    evidence = config_file or glob_first(base, "src/content/**/*.md*")
    if evidence:
        evidence = f"{evidence} is Astro's"
    elif "astro" in packages:
        evidence = f"{packages['astro']} depends on astro"
    else:
        return None
    config = read(base / config_file) if config_file else ""
    slash = "" if re.search(r"trailingSlash\s*:\s*['\"]never", config) else "/"
    texts = []
    notes = []
    for name, folder, dated in _astro_collections(base):
        route = _astro_route(base, name)
        notes.append(
            f"collection {name} in {folder}"
            + (" ids from the entry's date" if dated else "")
            + (f" served under {route}" if route != "/" else " served at /<id>/")
        )
        entry = "{page.year}/{page.month}/{page.day}/{name}" if dated else "{path}"
        regex = f"{re.escape(folder)}/(?:(?P<path>.*?)/)?(?P<name>[^/]+)"
        if not dated:
            regex = f"{re.escape(folder)}/(?P<path>.+)"
        texts.append(f"{regex} => {route}{entry}{slash}")
    texts += [
        r"src/content/(?P<collection>[^/]+)/(?P<path>.+) => /{collection}/{path}" + slash,
        "src/pages => /",
        "src/pages/(?P<path>.+) => /{path}" + slash,
    ]
    described = "; ".join(notes) or "no content config"
    return Preset(
        "astro",
        f"{evidence} ({described})",
        rules_under(prefix, *texts),
        slug="path",
        base_url=js_value(config, "site"),
        trailing_slash=bool(slash),
    )


def _astro_collections(base: Path) -> Iterable[tuple[str, str, bool]]:
    """(collection name, folder it loads, whether its ids come from the entry's date) for each
    `glob()` loader of the content config."""
    config = glob_first(base, "src/content.config.*", "src/content/config.*")
    text = read(base / config) if config else ""
    for found in re.finditer(r"(?:const|let)\s+(\w+)\s*=\s*defineCollection\s*\(", text):
        body = text[found.end() : _next_define(text, found.end())]
        folder = js_value(body, "base")
        if not folder:
            continue
        folder = folder.removeprefix("./").strip("/")
        id_code = body[body.find("generateId") :] if "generateId" in body else ""
        dated = bool(re.search(r"\bdate\b", id_code) or "date" in _helpers(text, id_code))
        yield found.group(1), folder, dated and bool(id_code)


def _next_define(text: str, start: int) -> int:
    following = text.find("defineCollection", start)
    return len(text) if following < 0 else following


def _helpers(text: str, code: str) -> str:
    """The bodies of the file's functions that `code` calls (a date-slug helper)."""
    called = set(re.findall(r"(\w+)\s*\(", code))
    bodies = []
    for name in called:
        found = re.search(rf"(?:const|function)\s+{re.escape(name)}\b(.{{0,400}})", text, re.S)
        if found and re.search(r"get(?:UTC)?(?:FullYear|Month|Date)", found.group(1)):
            bodies.append("date")
    return " ".join(bodies)


def _astro_route(base: Path, collection: str) -> str:
    """Where `src/pages` serves a collection's entries: the folder of a dynamic route that
    reads it (`src/pages/blog/[...slug].astro` -> /blog/); the site root when none is found."""
    pages = base / "src" / "pages"
    for route in sorted(pages.glob("**/[[]*[]].astro")) if pages.is_dir() else []:
        if re.search(rf"getCollection\(\s*['\"]{re.escape(collection)}['\"]", read(route)):
            folder = route.parent.relative_to(pages).as_posix()
            return "/" if folder == "." else f"/{folder}/"
    return "/"
