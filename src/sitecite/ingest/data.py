"""JSON and YAML data files to prose: a mapping is profile facts, a list is a collection."""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

import yaml

from sitecite.errors import IngestError
from sitecite.ingest.frontmatter import Warn, load_yaml, yaml_problem
from sitecite.types import PROFILE_SUFFIX, Block

FACTS_PAGE_ID = "_facts"
# Data files that configure tools rather than describe a person.
NOT_CONTENT = {
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "jsconfig.json",
    "vercel.json",
    "netlify.json",
    "manifest.json",
    "composer.json",
    ".eslintrc.json",
    ".prettierrc.json",
    # a site generator's own configuration (Jekyll, Hugo, Docusaurus's sidebars): the site's
    # settings, not what it says about its owner
    "_config.yml",
    "_config.yaml",
    "hugo.yaml",
    "hugo.yml",
    "hugo.json",
    "config.yaml",
    "config.yml",
    "sidebars.json",
    # Quarto's project options, folder metadata and variables (ingest/quarto.py reads them
    # into the pages they apply to), MkDocs' configuration
    "_quarto.yml",
    "_quarto.yaml",
    "_metadata.yml",
    "_metadata.yaml",
    "_variables.yml",
    "_variables.yaml",
    "mkdocs.yml",
    "mkdocs.yaml",
}
_ITEM_TITLE_KEYS = ("title", "name", "heading", "label")


def _nowhere(problem: IngestError) -> None:
    """Warnings of a caller that does not collect them."""


def load_data(source: str, path: str, warn: Warn = _nowhere) -> Any:
    """Parse JSON or YAML, reporting the line of a syntax error (an impossible date is
    dropped, with a warning)."""
    if path.endswith(".json"):
        try:
            return json.loads(source)
        except json.JSONDecodeError as exc:
            raise IngestError(f"invalid JSON: {exc.msg}", path, exc.lineno) from exc
    try:
        return load_yaml(source, path, warn)
    except yaml.YAMLError as exc:
        problem, line = yaml_problem(exc, 1)
        raise IngestError(f"invalid YAML: {problem}", path, line) from exc


def humanise(key: str) -> str:
    return key.replace("_", " ").replace("-", " ").strip()


def render_value(value: Any) -> str:
    if isinstance(value, list):
        rendered = [render_value(v) for v in value if v not in (None, "")]
        if len(rendered) > 1:
            return "; ".join(rendered) if any("," in r for r in rendered) else ", ".join(rendered)
        return rendered[0] if rendered else ""
    if isinstance(value, dict):
        values = [render_value(v) for v in value.values() if v not in (None, "")]
        return f"{values[0]} ({', '.join(values[1:])})" if len(values) > 1 else "".join(values)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return " ".join(str(value).split())


def _sentence(text: str) -> str:
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _fact_sentences(group: str, mapping: dict[str, Any]) -> list[str]:
    """Short values of a group share one sentence ("Location: city Lisbon; country Portugal."),
    longer ones get a sentence each, so an extractive answer can quote exactly one fact."""
    prefix = f"{group.capitalize()} — " if group else ""
    short, sentences = [], []
    for key, value in mapping.items():
        rendered = render_value(value)
        if not rendered:
            continue
        if len(rendered.split()) <= 4 and not isinstance(value, list):
            short.append(f"{humanise(key)}: {rendered}")
        else:
            sentences.append(_sentence(f"{prefix}{humanise(key)}: {rendered}"))
    if short:
        sentences.insert(0, _sentence(prefix + "; ".join(short)))
    return sentences


def facts_blocks(data: dict[str, Any], path: str) -> tuple[str, list[Block]]:
    """Profile facts: scalar keys form one block named after the file, each group its own block."""
    subject = str(data.get("name", "")).strip()
    stem = PurePosixPath(path).stem
    scalars = {k: v for k, v in data.items() if not isinstance(v, dict)}
    blocks = [Block(2, humanise(stem).capitalize(), "\n".join(_fact_sentences("", scalars)), 1)]
    for key, value in data.items():
        if isinstance(value, dict):
            text = "\n".join(_fact_sentences(humanise(key), value))
            blocks.append(Block(2, humanise(key).capitalize(), text, 1))
    title = f"{subject}{PROFILE_SUFFIX}" if subject else "Profile"
    return title, [b for b in blocks if b.text]


def collection_blocks(items: list[Any], path: str) -> list[Block]:
    """A list of records (projects, talks): one block per record."""
    blocks = []
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise IngestError(f"item {number} of the list is not a mapping of fields", path)
        heading = next((str(item[k]) for k in _ITEM_TITLE_KEYS if item.get(k)), f"Item {number}")
        rest = {k: v for k, v in item.items() if str(item.get(k)) != heading}
        sentences = [
            f"{heading} {humanise(k)}: {render_value(v)}."
            for k, v in rest.items()
            if render_value(v)
        ]
        blocks.append(Block(2, heading, "\n".join(sentences), 1))
    return blocks
