"""Pelican (docs.getpelican.com, "Settings: URL settings", "Writing content"): its URLs.

`pelicanconf.py` is Python; only its plain assignments are read, as literals (never run):
`PATH` (default `content`), `PAGE_PATHS` (`["pages"]`), `ARTICLE_URL` (`{slug}.html`),
`PAGE_URL` (`pages/{slug}.html`), `SLUGIFY_SOURCE` (`title`, or `basename`), `SITEURL`,
`USE_FOLDER_AS_CATEGORY`, `DEFAULT_CATEGORY`. A page's metadata comes from its header lines
(`Title:`, `Date:`, `Slug:`, `Category:`, `Save_as:`, `URL:` before the first blank line), its
reStructuredText fields (`:slug:`), or YAML front matter: a `save_as` or `url` is where it is
(`save_as: index.html` is the home page); otherwise its slug (given, or its title or file name
slugified) fills the URL pattern with its date and category.
"""

from __future__ import annotations

import ast
import datetime as dt
import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

from sitecite.ingest.ids import python_markdown_slug
from sitecite.ingest.layout import glob_first, read
from sitecite.ingest.routes import Preset, Rule

DEFAULTS: dict[str, Any] = {
    "PATH": "content",
    "PAGE_PATHS": ["pages"],
    "ARTICLE_URL": "{slug}.html",
    "PAGE_URL": "pages/{slug}.html",
    "SLUGIFY_SOURCE": "title",
    "SITEURL": "",
    "USE_FOLDER_AS_CATEGORY": True,
    "DEFAULT_CATEGORY": "misc",
}
_HEADER = re.compile(r"^([A-Za-z_][\w-]*):\s*(.*)$")
_RST_FIELD = re.compile(r"^:([\w-]+):\s*(.*)$")


def settings(text: str) -> dict[str, Any]:
    """The upper-case assignments of a settings module whose values are literals, or names of
    settings assigned before them; nothing is executed."""
    found = dict(DEFAULTS)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return found
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id.isupper():
                if isinstance(node.value, ast.Name) and node.value.id in found:
                    found[target.id] = found[node.value.id]
                    continue
                try:
                    found[target.id] = ast.literal_eval(node.value)
                except (ValueError, SyntaxError):
                    continue
    return found


def metadata_headers(text: str) -> dict[str, str]:
    """Pelican's Markdown metadata (`Key: value` lines before the first blank line) or
    reStructuredText fields (`:key: value`), keys lower-cased."""
    found: dict[str, str] = {}
    for line in text.lstrip("\ufeff").splitlines():
        if not line.strip():
            if found:
                break
            continue
        match = _HEADER.match(line) or _RST_FIELD.match(line)
        if match is None:
            if line.startswith(("=", "#", "-", "*")) and not found:
                continue  # an rst title or its underline comes first
            break
        found[match.group(1).lower()] = match.group(2).strip()
    return found


def pelican_preset(base: Path, prefix: str) -> Preset | None:
    conf_name = glob_first(base, "pelicanconf.py")
    if not conf_name:
        return None
    conf = settings(read(base / conf_name))
    content = str(conf["PATH"]).strip("/").removeprefix("./")
    content = "" if content == "." else content
    folder = "/".join(p for p in (prefix, content) if p)
    lead = re.escape(folder + "/") if folder else ""
    root = base.parent if prefix else base
    page_paths = [str(p).strip("/") for p in conf.get("PAGE_PATHS") or []]
    pages = "|".join(re.escape(p) for p in page_paths) or "(?!)"
    texts = [f"{lead}(?:{pages})/(?P<path>.+) => /{{path}}", f"{lead}(?P<path>.+) => /{{path}}"]
    return Preset(
        "pelican",
        f"{conf_name} is Pelican's (content in {folder or 'the root'}/; articles at "
        f"{conf['ARTICLE_URL']}, pages at {conf['PAGE_URL']})",
        tuple(Rule.parse(t) for t in texts),
        anchors="python-markdown",
        path_keys=("url", "save_as", "permalink"),
        base_url=str(conf.get("SITEURL") or ""),
        front_for=_reader(root, folder, conf, tuple(page_paths)),
    )


def _reader(
    root: Path, folder: str, conf: Mapping[str, Any], page_paths: tuple[str, ...]
) -> Callable[[str, Mapping[str, Any]], Mapping[str, Any]]:
    """The page's metadata as Pelican reads it, its `url` filled in from the URL settings."""

    def front_for(source: str, front: Mapping[str, Any]) -> Mapping[str, Any]:
        if folder and not source.startswith(folder + "/"):
            return front
        merged = {**_headers(root / source), **{str(k).lower(): v for k, v in front.items()}}
        inner = source[len(folder) + 1 :] if folder else source
        return {**merged, "url": _url(inner, merged, conf, page_paths)}

    return front_for


@cache
def _headers(path: Path) -> dict[str, str]:
    return metadata_headers(read(path)[:4000])


def _url(
    inner: str, meta: Mapping[str, Any], conf: Mapping[str, Any], pages: tuple[str, ...]
) -> str:
    """A page's path: its `url` or `save_as`, else its URL setting filled in."""
    for key in ("url", "save_as"):
        given = str(meta.get(key) or "").strip()
        if given:
            return "/" + given.lstrip("/").removesuffix("index.html")
    path = PurePosixPath(inner)
    is_page = any(inner.startswith(p + "/") for p in pages if p)
    slug = str(meta.get("slug") or "")
    if not slug:
        named = (
            path.stem if conf.get("SLUGIFY_SOURCE") == "basename" else str(meta.get("title") or "")
        )
        slug = python_markdown_slug(named or path.stem)
    category = str(meta.get("category") or "")
    if not category and conf.get("USE_FOLDER_AS_CATEGORY") and len(path.parts) > 1 and not is_page:
        category = path.parts[-2]
    fields = {
        "slug": slug,
        "category": python_markdown_slug(category or str(conf.get("DEFAULT_CATEGORY") or "misc")),
        "author": python_markdown_slug(str(meta.get("author") or "")),
        "lang": str(meta.get("lang") or "en"),
        "date": _date(meta.get("date")),
    }
    pattern = str(conf["PAGE_URL"] if is_page else conf["ARTICLE_URL"])
    try:
        filled = pattern.format(**fields)
    except (KeyError, ValueError, IndexError, AttributeError):
        return ""
    return "/" + filled.lstrip("/").removesuffix("index.html")


def _date(value: Any) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    text = str(value or "").strip().replace("/", "-")
    for size in (19, 16, 10):
        try:
            return dt.datetime.fromisoformat(text[:size].replace(" ", "T"))
        except ValueError:
            continue
    return dt.datetime(1970, 1, 1)
