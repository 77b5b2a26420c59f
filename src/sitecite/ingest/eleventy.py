"""Eleventy (11ty.dev, "Permalinks", "Data cascade", "Configuration"): where its pages are.

- the input directory from the config (`dir: { input: "src" }` in `.eleventy.js` or
  `eleventy.config.*`) or the build script (`eleventy --input=src`), else the project's root;
  `_includes/`, `_layouts/` and `_data/` in it (or the folders the config names) hold no pages;
- a page without a permalink is written to `<path>/index.html`, served at `/<path>/`; an
  `index` at its folder;
- `permalink` from the data cascade: the page's front matter, else its template data file
  (`x.11tydata.json` beside `x.md`), else the directory data files of its folders, deepest
  first (`posts/posts.json`, `posts/posts.11tydata.json`); `eleventyComputed.permalink` wins.
  A permalink is a template: `{{ page.fileSlug }}` (the file name, a date prefix removed; an
  index's folder), `{{ page.filePathStem }}`, `{{ title | slugify }}` and other values are
  filled in; `permalink: false` writes no page; `.../index.html` is served at `.../`.
- heading ids only with markdown-it-anchor (Eleventy's markdown-it makes none by itself).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

from sitecite.ingest.layout import dependencies, glob_first, package_json, read, rules_under
from sitecite.ingest.routes import FILTERS, Preset, page_fields

CONFIGS = (".eleventy.js", "eleventy.config.js", "eleventy.config.mjs", "eleventy.config.cjs")
_VALUE = re.compile(r"\{\{-?\s*(.+?)\s*-?\}\}")
_SLUGIFY = re.compile(r"[^\w\s-]")


def eleventy_preset(base: Path, prefix: str) -> Preset | None:
    conf_name = glob_first(base, *CONFIGS)
    packages = dependencies(base)
    if not conf_name and "@11ty/eleventy" not in packages:
        return None
    config = read(base / conf_name) if conf_name else ""
    scripts = str(package_json(base).get("scripts") or "")
    named = re.search(r"""\binput\s*:\s*["'`]([^"'`]+)""", config) or re.search(
        r"eleventy[^\n\"]*--input[= ]([\w./-]+)", scripts
    )
    source = named.group(1).strip("/").removeprefix("./") if named else ""
    source = "" if source == "." else source
    special = [
        _dir_option(config, key, default) for key, default in _SPECIAL_DIRS
    ]  # relative to the input
    folder = "/".join(p for p in (prefix, source) if p)
    lead = re.escape(folder + "/") if folder else ""
    texts = [f"{lead}(?:(?P<dir>.+)/)?index => /{{dir}}/", f"{lead}(?P<path>.+) => /{{path}}/"]
    if folder:
        texts.insert(0, f"{re.escape(folder)} => /")
    root = base.parent if prefix else base
    anchors = "markdown-it-anchor" if "markdown-it-anchor" in packages else "none"
    evidence = conf_name or f"{packages['@11ty/eleventy']} depends on @11ty/eleventy"
    return Preset(
        "eleventy",
        f"{evidence} is Eleventy's (input {folder or 'the root'}/)",
        rules_under("", *texts),
        anchors=anchors,
        # the input folder (inside the generator's folder), then those that hold no pages
        excludes=(
            f"{source}/" if source else "",
            *(f"{'/'.join(p for p in (source, d) if p)}/" for d in special),
        ),
        trailing_slash=True,
        front_for=_cascade(root, folder),
    )


_SPECIAL_DIRS = (("includes", "_includes"), ("layouts", "_layouts"), ("data", "_data"))


def _dir_option(config: str, key: str, default: str) -> str:
    found = re.search(rf"""\b{key}\s*:\s*["'`]([^"'`]+)""", config)
    return found.group(1).strip("/").removeprefix("./") if found else default


def _cascade(root: Path, folder: str) -> Callable[[str, Mapping[str, Any]], Mapping[str, Any]]:
    """The page's metadata as Eleventy's data cascade gives it, its permalink filled in."""

    def front_for(source: str, front: Mapping[str, Any]) -> Mapping[str, Any]:
        if folder and not source.startswith(folder + "/"):
            return front
        merged: dict[str, Any] = {}
        for data in _data_files(root, source):
            merged.update(data)
        merged.update(front)
        computed = merged.get("eleventyComputed")
        if isinstance(computed, dict) and "permalink" in computed:
            merged["permalink"] = computed["permalink"]
        permalink = merged.get("permalink")
        if permalink is False or (isinstance(permalink, str) and permalink.strip() == "false"):
            return {**merged, "permalink": "", "eleventy_no_page": True}
        if isinstance(permalink, str):
            merged["permalink"] = _served(_fill(permalink, source, folder, merged))
        return merged

    return front_for


def _data_files(root: Path, source: str) -> list[dict[str, Any]]:
    """The JSON data files that apply to a template, outermost first: each folder's directory
    data file, then the template's own."""
    path = PurePosixPath(source)
    found = []
    for depth in range(1, len(path.parts)):
        folder = PurePosixPath(*path.parts[:depth])
        for name in (f"{folder.name}.json", f"{folder.name}.11tydata.json"):
            found.append(_json(root / folder / name))
    stem = path.with_suffix("")
    found.append(_json(root / f"{stem}.11tydata.json"))
    return [data for data in found if data]


@cache
def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _fill(template: str, source: str, folder: str, data: Mapping[str, Any]) -> str:
    """A permalink template with Eleventy's values filled in (`{{ page.fileSlug }}`, `{{ title
    | slugify }}`, a front-matter value); a value it cannot fill leaves the whole template
    unused (its page is routed by the defaults)."""
    inner = source[len(folder) + 1 :] if folder else source
    stem = PurePosixPath(inner).with_suffix("")
    index = stem.name == "index"
    name = stem.parent.name if index else stem.name
    fields = page_fields(str(stem), data)
    values: dict[str, str] = {
        "page.fileSlug": "" if index and not stem.parent.name else FILTERS["nodate"](name),
        "page.filePathStem": f"/{stem.as_posix()}",
        "page.inputPath": f"./{inner}",
        "page.date": "-".join(v for v in (fields["year"], fields["month"], fields["day"]) if v),
    }
    missing = False

    def value(match: re.Match[str]) -> str:
        nonlocal missing
        name, *filters = (part.strip() for part in match.group(1).split("|"))
        found = values.get(name, data.get(name))
        if not isinstance(found, str | int | float) or isinstance(found, bool):
            missing = True
            return ""
        text = str(found)
        for used in filters:
            if used.split(":")[0].split("(")[0] in ("slugify", "slug"):
                text = re.sub(r"[\s-]+", "-", _SLUGIFY.sub("", text).strip().lower())
            elif used == "lower":
                text = text.lower()
        return text

    filled = _VALUE.sub(value, template)
    return "" if missing or "{%" in filled else filled


def _served(permalink: str) -> str:
    """Where a permalink's file is served: `.../index.html` at `.../`."""
    if not permalink:
        return ""
    path = "/" + permalink.strip().lstrip("/")
    return path.removesuffix("index.html")
