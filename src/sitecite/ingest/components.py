"""Astro (`.astro`) and Vue single-file (`.vue`) pages to HTML the page parser reads.

An `.astro` page is a `---` fence of JavaScript, then an HTML-ish template with `{expressions}`
and components; a `.vue` page keeps its template in `<template>`. Expressions become their text
when it is known (a string, a template literal over constants exported by a local module such
as `SITE_TITLE`), else nothing. A component renders, in its place, what can be read of it: its
own file's template when the site holds it, else the data it shows, found by name (`<Portfolio
/>` and `content/portfolio.js` or `portfolio.json`). A data module imported by the page and used
in its template is rendered where the page ends. Data files read this way are recorded in
`used`, so they feed this page instead of becoming pages of their own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

import yaml

from sitecite.ingest.ids import in_site
from sitecite.ingest.jsx import KEYED_STRING, MARKUP_PROPS, balanced_end

_IMPORT = re.compile(r"""import\s+(?:(\w+)|\{([^}]*)\})\s+from\s+["']([^"']+)["']""", re.S)
_CONST = re.compile(r"""export\s+const\s+(\w+)\s*(?::\s*\w+\s*)?=\s*(["'`])((?:(?!\2).)*)\2""")
_COMPONENT_TAG = re.compile(r"<([A-Z][\w.]*)\b((?:[^>\"'{]|\"[^\"]*\"|'[^']*'|\{[^}]*\})*?)(/?)>")
_VUE_TEMPLATE = re.compile(r"<template\b[^>]*>(.*)</template>", re.S)
_VUE_SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script>", re.S)
_BLOCKS = re.compile(r"<(style|script|route|i18n)\b[^>]*>.*?</\1>", re.S)
DATA_SUFFIXES = (".json", ".yaml", ".yml", ".js", ".ts", ".mjs")
LEAD_KEYS = ("title", "name", "heading", "label", "role", "position")
DETAIL_KEYS = ("description", "summary", "text", "body", "caption", "alt", "excerpt", "about")
HEAD_COMPONENT = re.compile(r"(?:Base)?(?:Head|SEO|Seo|Layout|Meta)\w*")


@dataclass
class Component:
    """What a component page renders to, the data files it read, and a title from its head."""

    html: str
    title: str = ""
    used: list[Path] = field(default_factory=list)


def _lines(text: str) -> list[str]:
    return text.split("\n")


def split_astro(source: str) -> tuple[str, str, int]:
    """(the `---` code fence, the template after it, the template's first line number)."""
    lines = _lines(source)
    if lines and lines[0].strip() == "---":
        for index in range(1, len(lines)):
            if lines[index].strip() == "---":
                return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :]), index + 2
    return "", source, 1


def split_vue(source: str) -> tuple[str, str]:
    """(the script blocks, the template's inner HTML) of a Vue single-file component."""
    template = _VUE_TEMPLATE.search(source)
    scripts = "\n".join(m.group(1) for m in _VUE_SCRIPT.finditer(source))
    return scripts, template.group(1) if template else ""


@dataclass
class _Reader:
    """Resolves a page's imports against the site's files."""

    root: Path
    data_files: dict[str, Path]  # a normalised stem -> a data file of the site
    depth: int = 0
    used: list[Path] = field(default_factory=list)

    def module(self, page: Path, spec: str) -> Path | None:
        """The site file an import names (relative, `~/`, `@/`), trying the usual suffixes."""
        if spec.startswith("."):
            base = page.parent / spec
        elif spec.startswith(("~/", "@/")):
            base = self.root / spec[2:]
            if not base.exists() and not base.with_suffix(".ts").exists():
                base = self.root / "src" / spec[2:]
        else:
            return None
        for candidate in (base, *(base.with_name(base.name + s) for s in DATA_SUFFIXES)):
            inside = in_site(self.root, candidate)
            if inside is not None and inside.is_file():
                return inside
        return None


def _normal(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def data_records(path: Path) -> list[dict[str, str]]:
    """The records a data file holds: a JSON/YAML list of mappings, or the object literals of
    a JavaScript module; each as its string fields."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    if path.suffix in (".json", ".yaml", ".yml"):
        try:
            data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        except (ValueError, yaml.YAMLError):
            return []
        items = (
            data
            if isinstance(data, list)
            else next((v for v in data.values() if isinstance(v, list)), [])
            if isinstance(data, dict)
            else []
        )
        return [
            {str(k): str(v) for k, v in item.items() if isinstance(v, str | int | float)}
            for item in items
            if isinstance(item, dict)
        ]
    return _js_records(text)


def _js_records(text: str) -> list[dict[str, str]]:
    """Object literals inside array literals of a module, each as its own string fields."""
    records = []
    for array in re.finditer(r"=\s*\[", text):
        end = balanced_end(text, array.end() - 1, "[", "]") or len(text)
        body = text[array.end() : end - 1]
        position = 0
        while (start := body.find("{", position)) >= 0:
            close = balanced_end(body, start) or len(body)
            record = _flat_strings(body[start + 1 : close - 1])
            if record:
                records.append(record)
            position = close
    return records


def _flat_strings(body: str) -> dict[str, str]:
    """`key: "value"` pairs of an object literal, not those of objects nested in it."""
    depth, out = 0, []
    for char in body:
        depth += char in "{["
        depth -= char in "}]"
        out.append(char if depth == 0 or char in "{}[]" else " ")
    flat: str = "".join(out)
    return {
        m.group(1): " ".join(next(g for g in m.groups()[1:] if g is not None).split())
        for m in KEYED_STRING.finditer(flat)
        if m.group(1) and m.group(1).lower() not in MARKUP_PROPS
    }


def records_html(records: list[dict[str, str]]) -> str:
    """Records as paragraphs: "Lead: details." (lead a title or name, details the prose)."""
    paragraphs = []
    for record in records:
        lead = next((record[k] for k in LEAD_KEYS if record.get(k)), "")
        details = [record[k] for k in DETAIL_KEYS if record.get(k) and record[k] != lead]
        if not details:
            details = [v for k, v in record.items() if v != lead and " " in v]
        text = f"{lead}: {' '.join(details)}" if lead and details else lead or " ".join(details)
        if text.strip():
            paragraphs.append(f"<p>{escape(text)}</p>")
    return "\n".join(paragraphs)


def render_component_page(
    source: str, path: Path, root: Path, data_files: dict[str, Path], vue: bool = False
) -> Component:
    """An .astro or .vue page as HTML of its readable parts (see the module's docstring)."""
    reader = _Reader(root, data_files)
    html, title = _render(source, path, reader, vue)
    return Component(html, title, reader.used)


def _render(source: str, path: Path, reader: _Reader, vue: bool) -> tuple[str, str]:
    if vue:
        code, template = split_vue(source)
        offset = 0
    else:
        code, template, first = split_astro(source)
        offset = first - 1
    imports = _imports(code, path, reader)
    constants = {k: v for module in imports.values() if module for k, v in _consts(module).items()}
    template = _BLOCKS.sub(lambda m: "\n" * m.group(0).count("\n"), template)
    title = ""
    out: list[str] = []
    position = 0
    for tag in _COMPONENT_TAG.finditer(template):
        out.append(template[position : tag.start()])
        position = tag.end()
        name, props = tag.group(1), tag.group(2)
        if not title and HEAD_COMPONENT.fullmatch(name):
            title = _prop(props, "title", constants)
        out.append(_component(name, imports.get(name), reader) + "\n" * tag.group(0).count("\n"))
    out.append(template[position:])
    html = _expressions("".join(out), constants)
    used_data = [
        module
        for binding, module in imports.items()
        if module is not None
        and module.suffix in DATA_SUFFIXES
        and not binding[:1].isupper()
        and re.search(rf"\b{re.escape(binding)}\b", template)
    ]
    for module in used_data:
        reader.used.append(module)
        html += "\n" + records_html(data_records(module))
    return "\n" * offset + html, title


def _imports(code: str, path: Path, reader: _Reader) -> dict[str, Path | None]:
    found: dict[str, Path | None] = {}
    for match in _IMPORT.finditer(code):
        module = reader.module(path, match.group(3))
        names = (
            [match.group(1)]
            if match.group(1)
            else [n.split(" as ")[-1].strip() for n in (match.group(2) or "").split(",")]
        )
        for name in names:
            if name:
                found[name] = module
    return found


def _consts(module: Path) -> dict[str, str]:
    if module.suffix not in (".js", ".ts", ".mjs"):
        return {}
    try:
        text = module.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    return {m.group(1): m.group(3) for m in _CONST.finditer(text) if "${" not in m.group(3)}


def _component(name: str, module: Path | None, reader: _Reader) -> str:
    """What a component renders that can be read: its own template, or its data by name."""
    if module is not None and module.suffix in (".astro", ".vue") and reader.depth < 3:
        try:
            text = module.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return " "
        child = _Reader(reader.root, reader.data_files, reader.depth + 1, reader.used)
        return _render(text, module, child, module.suffix == ".vue")[0]
    data = reader.data_files.get(_normal(name.split(".")[-1]))
    if data is not None and (module is None or module.suffix in (".astro", ".vue")):
        reader.used.append(data)
        return f"\n<section>\n{records_html(data_records(data))}\n</section>\n"
    return " "


def _prop(props: str, key: str, constants: dict[str, str]) -> str:
    found = re.search(rf"\b{key}\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|(\{{[^}}]*\}}))", props)
    if not found:
        return ""
    if found.group(3):
        return " ".join(_expression_text(found.group(3)[1:-1], constants).split())
    return found.group(1) if found.group(1) is not None else found.group(2) or ""


def _expression_text(expression: str, constants: dict[str, str]) -> str:
    """A string or template literal's text (`${CONST}` filled from local modules), else ""."""
    literal = re.fullmatch(r"""\s*(["'`])(.*)\1\s*""", expression, re.S)
    if literal is None:
        return constants.get(expression.strip(), "")
    if literal.group(1) != "`":
        return literal.group(2)
    return re.sub(r"\$\{\s*(\w+)\s*\}", lambda m: constants.get(m.group(1), ""), literal.group(2))


def _expressions(template: str, constants: dict[str, str]) -> str:
    """`{expression}` replaced by its known text (quoted when it is an attribute's value);
    Vue's `{{ ... }}` by nothing."""
    template = re.sub(r"\{\{.*?\}\}", lambda m: "\n" * m.group(0).count("\n"), template, flags=re.S)
    out: list[str] = []
    position = 0
    while (start := template.find("{", position)) >= 0:
        end = balanced_end(template, start) or start + 1
        out.append(template[position:start])
        expression = template[start + 1 : end - 1]
        text = escape(_expression_text(expression, constants), quote=True)
        attribute = template[:start].rstrip().endswith("=")
        out.append((f'"{text}"' if attribute else text) + "\n" * expression.count("\n"))
        position = end
    out.append(template[position:])
    return "".join(out)


def data_index(files: list[Path]) -> dict[str, Path]:
    """The site's data files by normalised stem, for components that show them."""
    index: dict[str, Path] = {}
    for path in files:
        if path.suffix in DATA_SUFFIXES:
            index.setdefault(_normal(path.stem), path)
    return index
