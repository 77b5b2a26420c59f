"""Reading a site's layout and configuration files, for the route presets."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import yaml

from sitecite.ingest.routes import Rule

SKIP = {"node_modules", ".git", "dist", "build", "public", "out", "_site", "static"}
_JS_STRING = r"""\s*[:=]\s*["'`]([^"'`]*)["'`]"""


def glob_first(base: Path, *patterns: str) -> str:
    """The first file under base matching a pattern (relative to base), or ""."""
    for pattern in patterns:
        for found in sorted(base.glob(pattern)):
            if not SKIP.intersection(found.relative_to(base).parts):
                return found.relative_to(base).as_posix()
    return ""


def read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def js_value(text: str, key: str) -> str:
    found = re.search(rf"\b{key}{_JS_STRING}", text)
    return found.group(1).strip() if found else ""


def rules_under(prefix: str, *texts: str) -> tuple[Rule, ...]:
    """Rules whose regexes match under `prefix` (the generator's folder, "" at the root)."""
    lead = re.escape(prefix + "/") if prefix else ""
    rules = []
    for text in texts:
        regex, _, template = text.partition(" => ")
        rules.append(Rule.parse(f"{lead}{regex} => {template}"))
    return tuple(rules)


class _ConfigLoader(yaml.SafeLoader):
    """YAML with application tags (MkDocs' `!ENV [NAME, default]`, `!!python/name:...`) read
    as their plain value: a configuration file is data even where it names code."""


def _untagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> object:
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    return loader.construct_scalar(node)  # type: ignore[arg-type]


_ConfigLoader.add_multi_constructor("!", _untagged)
_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/", _untagged)


def config_file(path: Path) -> dict[str, object]:
    """A TOML, YAML or JSON configuration file as a mapping ({} if unreadable)."""
    text = read(path)
    try:
        if path.suffix == ".toml":
            data = tomllib.loads(text)
        else:
            data = yaml.load(text, Loader=_ConfigLoader)  # noqa: S506 - a safe loader
    except (tomllib.TOMLDecodeError, yaml.YAMLError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def package_json(base: Path) -> dict[str, object]:
    """`package.json` of base as a mapping ({} when missing or unreadable)."""
    try:
        data = json.loads(read(base / "package.json") or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def dependencies(base: Path) -> dict[str, str]:
    """The npm packages base's `package.json` and its workspaces' depend on (name -> the
    package.json that names it): which generator and plugins build the site, read from data
    (a monorepo keeps them in a workspace: `blog/package.json`)."""
    found: dict[str, str] = {}
    manifests = [Path("package.json")]
    workspaces = package_json(base).get("workspaces")
    if isinstance(workspaces, dict):  # yarn's {"packages": [...]}
        workspaces = workspaces.get("packages")
    for pattern in workspaces if isinstance(workspaces, list) else []:
        for folder in sorted(base.glob(str(pattern))) if isinstance(pattern, str) else []:
            if (folder / "package.json").is_file():
                manifests.append(folder.relative_to(base) / "package.json")
    for manifest in manifests:
        data = package_json(base / manifest.parent)
        for key in ("dependencies", "devDependencies", "peerDependencies"):
            names = data.get(key)
            for name in names if isinstance(names, dict) else ():
                found.setdefault(str(name), manifest.as_posix())
    return found
