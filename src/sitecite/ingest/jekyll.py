"""Jekyll read as Jekyll reads itself: Liquid rendered over the site and the page, so a page
whose body is a template over its front matter, `site.data` or a collection (a resume looping
over `site.resume_positions`, a press page over `site.data.clips`) is indexed as the prose it
renders; and what Jekyll does not publish (files under `_` folders, collections without
`output: true`, `_drafts`, `exclude:`, files without front matter, `published: false`) is left
out as a page and listed, while still feeding the pages that render it.

python-liquid renders in lax mode; tags it does not know (plugins, `include`: the theme is
rarely in the repository) render nothing, filters it does not know pass their input through.
A template that still fails is stripped of its syntax instead, with a warning.
"""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path, PurePosixPath
from typing import Any

from sitecite.errors import IngestError
from sitecite.ingest.frontmatter import Warn, load_yaml, split_frontmatter
from sitecite.ingest.routes import FILTERS
from sitecite.ingest.templates import strip_templates

_TAG_NAME = re.compile(r"(\{%-?\s*raw\s*-?%\}.*?\{%-?\s*endraw\s*-?%\})|\{%-?\s*(\w+).*?%\}", re.S)
_FILTER_NAME = re.compile(r"\|\s*(\w+)")
_HIGHLIGHT = re.compile(r"\{%-?\s*highlight\s+(\w+)[^%]*%\}(.*?)\{%-?\s*endhighlight\s*-?%\}", re.S)
_BLOCK_WORDS = {"else", "elsif", "when", "endraw", "raw", "break", "continue"}
DATA_SUFFIXES = (".yml", ".yaml", ".json")
_BLOCK_TAGS = "div|ul|ol|dl|section|article|aside|table|figure|blockquote|details|header|main"
_OPEN = re.compile(rf"<({_BLOCK_TAGS})\b", re.I)
_CLOSE = re.compile(rf"</({_BLOCK_TAGS})\s*>", re.I)


def kramdown_html_blocks(text: str) -> str:
    """kramdown reads a block-level HTML element up to its closing tag, blank lines and
    indentation inside it included (CommonMark stops at a blank line and reads an indented
    line as code): inside such an element, lines are dedented and blank lines move to after
    it, so the line count holds."""
    result: list[str] = []
    pending = depth = 0
    for line in text.split("\n"):
        stripped = line.lstrip()
        if depth == 0:
            if _OPEN.match(stripped) and len(line) - len(stripped) <= 3:
                depth = max(0, len(_OPEN.findall(line)) - len(_CLOSE.findall(line)))
            result.append(line)
            continue
        if not stripped:
            pending += 1
            continue
        depth = max(0, depth + len(_OPEN.findall(line)) - len(_CLOSE.findall(line)))
        result.append(stripped)
        if depth == 0 and pending:
            result += [""] * pending
            pending = 0
    return "\n".join(result + [""] * pending)


def _ignore(warn: IngestError) -> None:
    """A warning nobody reads (collection documents are warned about when they are read)."""


class JekyllSite:
    """A Jekyll site's configuration, data and collections, and Liquid to render its pages."""

    def __init__(self, folder: Path, config: dict[str, Any]) -> None:
        self.folder = folder
        self.config = config
        raw = config.get("collections")
        if isinstance(raw, list):
            self.collections: dict[str, dict[str, Any]] = {str(n): {} for n in raw}
        elif isinstance(raw, dict):
            self.collections = {str(k): v if isinstance(v, dict) else {} for k, v in raw.items()}
        else:
            self.collections = {}
        self.exclude = [str(e) for e in config.get("exclude") or [] if isinstance(e, str)]
        self._context: dict[str, Any] | None = None
        self._environment: Any = None

    def site(self) -> dict[str, Any]:
        """`site` as Liquid sees it: the configuration, `data`, and each collection's
        documents (their front matter, `content` and `output`)."""
        if self._context is None:
            site = dict(self.config)
            site["data"] = self._data()
            for name in self.collections:
                site[name] = self._documents(name)
            site.setdefault("posts", [])
            site.setdefault("pages", [])
            self._context = site
        return self._context

    def _data(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        folder = self.folder / "_data"
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if path.suffix not in DATA_SUFFIXES or not path.is_file():
                continue
            keys = path.relative_to(folder).with_suffix("").parts
            target = data
            for key in keys[:-1]:
                target = target.setdefault(key, {})
            try:
                text = path.read_text(encoding="utf-8")
                value = (
                    json.loads(text)
                    if path.suffix == ".json"
                    else load_yaml(text, str(path), _ignore)
                )
            except (OSError, ValueError, UnicodeDecodeError, Exception):  # noqa: BLE001
                continue  # the file itself is reported when it is read as content
            target[keys[-1]] = value
        return data

    def _documents(self, name: str) -> list[dict[str, Any]]:
        docs = []
        folder = self.folder / f"_{name}"
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if path.suffix.lower() not in (".md", ".markdown", ".html") or not path.is_file():
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            front = split_frontmatter(text, str(path), _ignore)
            body = strip_templates(front.body)
            relative = path.relative_to(self.folder).as_posix()
            doc = {**front.data, "content": body, "output": body, "relative_path": relative}
            doc.setdefault("slug", path.stem)
            docs.append(doc)
        return docs

    def not_published(self, relative: str, has_front: bool) -> str:
        """Why Jekyll would not publish this file as a page ("" when it would)."""
        parts = PurePosixPath(relative).parts
        for part in parts[:-1]:
            if part == "_drafts":
                return "a Jekyll draft (_drafts/)"
            if part.startswith("_") and part != "_posts":
                name = part[1:]
                if name in self.collections and self.collections[name].get("output"):
                    continue
                if name in self.collections:
                    return (
                        f"a document of the Jekyll collection '{name}' (no `output: true`): "
                        f"it feeds the pages that render site.{name}"
                    )
                if name == "data":
                    return "Jekyll data (_data/): it feeds the pages that render site.data"
                return f"Jekyll does not publish {part}/"
        if (
            any(
                fnmatch.fnmatch(relative, e) or relative.startswith(e.rstrip("/") + "/")
                for e in self.exclude
            )
            or relative in self.exclude
        ):
            return "excluded in _config.yml"
        page = PurePosixPath(relative).suffix.lower() in (".md", ".markdown", ".html", ".htm")
        if page and not has_front:
            return "no front matter: Jekyll copies it as a file, not a rendered page"
        return ""

    def render(self, body: str, front: dict[str, Any], relative: str, warn: Warn) -> str:
        """The page's body with its Liquid rendered (or stripped, with a warning, if the
        template cannot be read)."""
        if "{%" not in body and "{{" not in body:
            return body
        source = _HIGHLIGHT.sub(lambda m: f"```{m.group(1)}{m.group(2)}```", body)
        environment = self._env()
        source = _TAG_NAME.sub(lambda m: self._known_tag(m, environment), source)
        for name in set(_FILTER_NAME.findall(source)) - set(environment.filters):
            environment.add_filter(name, lambda value, *args, **kwargs: value)
        try:
            page = {**front, "url": "", "path": relative}
            rendered = environment.from_string(source).render(site=self.site(), page=page)
            return kramdown_html_blocks(str(rendered))
        except Exception as exc:  # noqa: BLE001 - python-liquid's errors, even in lax mode
            line = getattr(exc, "linenum", None)
            warn(
                IngestError(
                    f"Liquid template not rendered ({exc}); its tags were stripped", relative, line
                )
            )
            return strip_templates(body)

    @staticmethod
    def _known_tag(match: re.Match[str], environment: Any) -> str:
        """A tag python-liquid renders stays (and a `raw` block as it is); any other (plugins,
        `include`: the theme is rarely in the repository) renders nothing."""
        if match.group(1) is not None:
            return match.group(0)
        name = match.group(2)
        base = name[3:] if name.startswith("end") else name
        if name in _BLOCK_WORDS or (base in environment.tags and base != "include"):
            return match.group(0)
        return ""

    def _env(self) -> Any:
        if self._environment is None:
            from liquid import Environment, Mode

            environment = Environment(tolerance=Mode.LAX)
            base = str(self.config.get("baseurl") or "")
            site_url = str(self.config.get("url") or "").rstrip("/") + base
            environment.add_filter("relative_url", lambda v, *a: f"{base}{v}")
            environment.add_filter("absolute_url", lambda v, *a: f"{site_url}{v}")
            environment.add_filter("slugify", lambda v, *a: FILTERS["slug"](str(v)))
            environment.add_filter("jsonify", lambda v, *a: json.dumps(v, default=str))
            environment.add_filter("number_of_words", lambda v, *a: len(str(v).split()))
            environment.add_filter(
                "array_to_sentence_string",
                lambda v, *a: (
                    ", ".join(map(str, v[:-1])) + f" and {v[-1]}"
                    if isinstance(v, list) and len(v) > 1
                    else "".join(map(str, v or []))
                ),
            )
            self._environment = environment
        return self._environment
