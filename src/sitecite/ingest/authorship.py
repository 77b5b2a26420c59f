"""Who a site generator's configuration says the site is by, read from the keys each generator
documents for it, in the site's folder or a first-level folder (`site/`, `website/`):

- Jekyll and Hexo: `_config.yml` `author` (or `author.name`);
- Hugo and Zola: `hugo.toml`, `config.toml` (or YAML, or `config/_default/`) `author`,
  `params.author`, `extra.author`;
- Pelican: `pelicanconf.py` `AUTHOR`;
- Eleventy: `_data/metadata.*` or `_data/site.*` (JSON, YAML or JS) `author` (`author.name`);
- Quarto: `_quarto.yml` `author`, `author-meta`, `book.author`;
- MkDocs: `mkdocs.yml` `site_author`;
- Hakyll: `site.hs` `feedAuthorName`, or a `constField "author"`;
- Gatsby, Docusaurus, Astro themes, the Next.js starter blog: `author: '...'` in their JS or
  TS configuration;
- npm: `package.json` `author`.

When none names a person, the configuration's copyright line ("Copyright © 2025 - Oleg
Nenashev") or a byline in the site's description ("... — by Kenneth S. Reyes") does.

Configuration written as Python or Haskell is never run: `pelicanconf.py` is read with `ast`
(literal assignments only), `site.hs` and JavaScript by pattern.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Any

import yaml

_JS_AUTHOR = re.compile(
    r"\bauthor\s*:\s*(?:\{[^{}]*?\bname\s*:\s*)?[\"'`]([^\"'`]{3,60})[\"'`]", re.DOTALL
)
_HAKYLL = re.compile(
    r"\bfeedAuthorName\s*=\s*\"([^\"]{3,60})\"|\bconstField\s+\"author\"\s+\"([^\"]{3,60})\""
)
_BYLINE = re.compile(r"\b[Bb]y\s+([A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){1,3})\s*[.!]?\s*$")
# "© 2021 Noor Haddad", "Copyright (c) 2020 Alan Hardman", "Copyright © 2025 - Oleg Nenashev":
# the name is capitalised (only the word "copyright" may be in any case)
COPYRIGHT = re.compile(
    r"(?:©|\((?i:c)\)|\b(?i:copyright)\b)\s*(?:©\s*|\(?(?i:c)\)\s*)?"
    r"(?:\d{4}(?:\s*[-–]\s*\d{4})?,?\s*(?:[-–—]\s+)?)?"
    r"([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){1,2})"
)
YAML_NAMES = ("_config.yml", "_config.yaml", "mkdocs.yml", "mkdocs.yaml", "_quarto.yml")
HUGO_NAMES = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml", "config.yaml")
JS_NAMES = (
    "gatsby-config.js",
    "gatsby-config.ts",
    "gatsby-config.mjs",
    "docusaurus.config.js",
    "docusaurus.config.ts",
    "data/siteMetadata.js",
    "src/config.ts",
    "src/config.js",
    "src/consts.ts",
    "src/site.config.ts",
)
ELEVENTY_DATA = ("metadata", "site", "meta", "author")
DATA_SUFFIXES = (".json", ".yaml", ".yml", ".js", ".cjs", ".mjs")


@dataclass(frozen=True)
class Named:
    """A name a configuration gives, and where: "pelicanconf.py AUTHOR"."""

    name: str
    where: str


def looks_like_a_name(text: str) -> bool:
    """Two to four capitalised words ("Andrey Petrov", "Kenneth S. Reyes"), not a handle, a
    sentence or an address."""
    words = text.strip().split()
    return 2 <= len(words) <= 4 and all(
        w[:1].isupper() and re.fullmatch(r"[\w'’.-]+", w) for w in words
    )


def person(value: Any) -> str:
    """A person's name from a configuration value: a string, `{name: ...}` (Quarto's
    `{given, family}` too), or the first of a list of them."""
    if isinstance(value, list):
        return person(value[0]) if value else ""
    if isinstance(value, dict):
        name = value.get("name", value.get("literal"))
        if isinstance(name, dict):
            return " ".join(str(name.get(k, "")) for k in ("given", "family")).strip()
        if name is None and ("given" in value or "family" in value):
            return " ".join(str(value.get(k, "")) for k in ("given", "family")).strip()
        return person(name) if name is not None else ""
    if isinstance(value, str):
        return re.sub(r"\s*[<(].*$", "", value).strip()  # npm: "Name <mail> (url)"
    return ""


class _Tolerant(yaml.SafeLoader):
    """YAML whose application tags (MkDocs' `!!python/name:`, `!ENV`) read as nothing."""


_Tolerant.add_multi_constructor("!", lambda loader, suffix, node: None)
_Tolerant.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def read_config(path: Path) -> dict[str, Any]:
    """A YAML, TOML or JSON configuration file as a mapping ({} if unreadable)."""
    import tomllib

    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".toml":
            data: Any = tomllib.loads(text)
        elif path.suffix == ".json":
            data = json.loads(text)
        else:
            data = yaml.load(text, Loader=_Tolerant)  # noqa: S506 - a safe loader
    except (OSError, ValueError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def _dig(data: dict[str, Any], *path: str) -> Any:
    value: Any = data
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _structured(folder: Path, base: Path) -> Iterator[Named]:
    """Names the YAML, TOML and JSON configurations give (see the module docstring)."""
    hugo = [*HUGO_NAMES, *(f"config/_default/{n}" for n in (*HUGO_NAMES, "params.toml"))]
    keys: dict[str, list[tuple[str, ...]]] = {
        **dict.fromkeys(("_config.yml", "_config.yaml"), [("author",)]),
        **dict.fromkeys(("mkdocs.yml", "mkdocs.yaml"), [("site_author",)]),
        "_quarto.yml": [("author",), ("author-meta",), ("book", "author")],
        **dict.fromkeys(hugo, [("author",), ("params", "author"), ("extra", "author")]),
        "config/_default/params.toml": [("author",)],
        "package.json": [("author",)],
    }
    for name, paths in keys.items():
        path = folder / name
        data = read_config(path) if path.is_file() else {}
        for key in paths:
            found = person(_dig(data, *key))
            if looks_like_a_name(found):
                yield Named(found, f"{path.relative_to(base).as_posix()} {'.'.join(key)}")


def _code(folder: Path, base: Path) -> Iterator[Named]:
    """Names in configuration written as code: Pelican's, Hakyll's, JavaScript's."""
    pelican = folder / "pelicanconf.py"
    if pelican.is_file():
        found = _python_string(pelican, "AUTHOR")
        if looks_like_a_name(found):
            yield Named(found, f"{pelican.relative_to(base).as_posix()} AUTHOR")
    hakyll = folder / "site.hs"
    if hakyll.is_file():
        match = _HAKYLL.search(_read(hakyll))
        found = (match.group(1) or match.group(2)) if match else ""
        if looks_like_a_name(found):
            yield Named(found, f"{hakyll.relative_to(base).as_posix()} feedAuthorName")
    for name in JS_NAMES:
        match = _JS_AUTHOR.search(_read(folder / name)) if (folder / name).is_file() else None
        if match and looks_like_a_name(match.group(1)):
            yield Named(match.group(1).strip(), f"{name} author")


def _eleventy(folder: Path, base: Path) -> Iterator[Named]:
    """Eleventy's global data files (`_data/metadata.json`, `src/_data/site.js`...)."""
    for data in (folder / "_data", *sorted(folder.glob("*/_data"))):
        for stem in ELEVENTY_DATA:
            for suffix in DATA_SUFFIXES:
                path = data / f"{stem}{suffix}"
                if not path.is_file():
                    continue
                if suffix in (".js", ".cjs", ".mjs"):
                    match = _JS_AUTHOR.search(_read(path))
                    found = match.group(1).strip() if match else ""
                else:
                    config = read_config(path)
                    found = person(config.get("author") or (config if stem == "author" else ""))
                if looks_like_a_name(found):
                    yield Named(found, f"{path.relative_to(base).as_posix()} author")


def _weak(folder: Path, base: Path) -> Iterator[Named]:
    """A copyright line or a byline in the configuration's text."""
    for name in (*YAML_NAMES, *HUGO_NAMES):
        path = folder / name
        data = read_config(path) if path.is_file() else {}
        for key in (
            ("copyright",),
            ("params", "copyright"),
            ("site_description",),
            ("description",),
            ("website", "description"),
            ("params", "description"),
        ):
            text = _dig(data, *key)
            if not isinstance(text, str):
                continue
            text = unescape(text)
            match = COPYRIGHT.search(text) or _BYLINE.search(text.strip())
            if match and looks_like_a_name(match.group(1)):
                yield Named(match.group(1), f"{path.relative_to(base).as_posix()} {'.'.join(key)}")


def configured_owner(root: Path) -> tuple[Named | None, Named | None]:
    """(the author a configuration names, a copyright line or byline it holds), each None
    when none does."""
    if not root.is_dir():
        return None, None
    folders = [root, *(p for p in sorted(root.iterdir()) if p.is_dir() and p.name[0] != ".")]
    strong = next(
        (n for f in folders for n in (*_structured(f, root), *_code(f, root), *_eleventy(f, root))),
        None,
    )
    weak = next((n for f in folders for n in _weak(f, root)), None)
    return strong, weak


def _python_string(path: Path, name: str) -> str:
    """A module-level `NAME = "literal"` of a Python file, never run."""
    try:
        tree = ast.parse(_read(path))
    except (SyntaxError, ValueError):
        return ""
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            value = node.value
            if name in names and isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value.strip()
    return ""


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
