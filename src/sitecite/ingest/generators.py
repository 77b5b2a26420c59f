"""Route presets for documentation and academic generators, each from its documented rules and
its configuration file: Quarto, MkDocs, Pelican, Hakyll, Hexo, Zola and Eleventy.

Each detector takes the folder the generator may be in (`base`, the site's root or a
first-level subfolder, `prefix`) and returns its Preset, or None.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from sitecite.ingest.layout import config_file, dependencies, glob_first, rules_under
from sitecite.ingest.routes import DATE_TOKENS, Preset, Rule

QUARTO_SOURCES = (".qmd", ".md", ".rmd", ".ipynb", ".markdown")


def _table(config: dict[str, object], key: str) -> dict[str, object]:
    value = config.get(key)
    return value if isinstance(value, dict) else {}


def _site_path(url: str) -> tuple[str, str]:
    """A site address split into its origin and its path ("https://x.io/docs/" ->
    ("https://x.io", "/docs"))."""
    parts = urlsplit(url.strip())
    if not parts.scheme or not parts.netloc:
        return "", ""
    return f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")


def quarto_preset(base: Path, prefix: str) -> Preset | None:
    """Quarto websites (quarto.org, "Project Basics", "Websites"): every `.qmd`, `.md`,
    `.ipynb` or `.Rmd` file renders to the same path with `.html`, an `index` to its folder;
    files and folders starting with `_` or `.`, and README files, are not rendered; `render:`
    in `_quarto.yml` narrows the files; `website: site-url` is the address."""
    name = glob_first(base, "_quarto.yml", "_quarto.yaml")
    if not name:
        return None
    config = config_file(base / name)
    project, website, book = (_table(config, key) for key in ("project", "website", "book"))
    site_url = str(website.get("site-url") or book.get("site-url") or "")
    origin, path = _site_path(site_url)
    texts = [
        f"(?:(?P<dir>.+)/)?index => {path}/{{dir}}/",
        f"(?P<path>.+) => {path}/{{path}}.html",
    ]
    render = project.get("render")
    kind = project.get("type", "default")
    return Preset(
        "quarto",
        f"{'/'.join(p for p in (prefix, name) if p)} is Quarto's ({kind} project)",
        rules_under(prefix, *texts),
        anchors="pandoc",
        base_url=origin,
        excludes=tuple(str(p) for p in render) if isinstance(render, list) else (),
    )


def quarto_renders(relative: str, patterns: tuple[str, ...]) -> bool:
    """Whether Quarto renders this file (a path inside the project): not `_`/`.`-prefixed,
    not a README, and, when `render:` is given, named by its patterns (a pattern without
    `/` matches at any depth; `!` excludes)."""
    path = PurePosixPath(relative)
    if any(part.startswith(("_", ".")) for part in path.parts) or path.stem.upper() == "README":
        return False
    if path.suffix.lower() not in QUARTO_SOURCES:
        return True  # data, HTML: not Quarto's to render
    positive = [p for p in patterns if not p.startswith("!")]
    negative = [p[1:] for p in patterns if p.startswith("!")]
    if any(_glob(relative, p) for p in negative):
        return False
    return not positive or any(_glob(relative, p) for p in positive)


def _glob(relative: str, pattern: str) -> bool:
    pattern = pattern.removeprefix("./")
    if pattern.endswith("/"):
        return relative.startswith(pattern) or f"/{pattern}" in f"/{relative}"
    if "/" not in pattern:
        return fnmatch.fnmatch(PurePosixPath(relative).name, pattern)
    return fnmatch.fnmatch(relative, pattern)


def mkdocs_preset(base: Path, prefix: str) -> Preset | None:
    """MkDocs (mkdocs.org, "Writing your docs"): pages in `docs_dir` (default `docs`);
    `use_directory_urls` (default true) serves `a/b.md` at `a/b/` and `a/index.md` or, without
    one, `a/README.md` at `a/`; else at `a/b.html` and `a/index.html`. The path of `site_url`
    is where the site lives; Python-Markdown's toc extension makes the heading ids."""
    name = glob_first(base, "mkdocs.yml", "mkdocs.yaml")
    if not name:
        return None
    config = config_file(base / name)
    docs = str(config.get("docs_dir") or "docs").strip("/").removeprefix("./")
    docs = "" if docs in (".", "") or not (base / docs).is_dir() else docs  # a missing one:
    # MkDocs would stop; its pages are then taken to be where the config is
    origin, path = _site_path(str(config.get("site_url") or ""))
    folder = "/".join(part for part in (prefix, docs) if part)
    lead = re.escape(folder + "/") if folder else ""
    directories = config.get("use_directory_urls", True) is not False
    if not directories:
        texts = [
            f"{lead}(?:(?P<dir>.+)/)?(?:index|README) => {path}/{{dir}}/index.html",
            f"{lead}(?P<path>.+) => {path}/{{path}}.html",
        ]
    else:
        texts = [
            f"{lead}(?:(?P<dir>.+)/)?(?:index|README) => {path}/{{dir}}/",
            f"{lead}(?P<path>.+) => {path}/{{path}}/",
        ]
    if folder:
        texts.insert(0, f"{re.escape(folder)} => {path}/{'' if directories else 'index.html'}")
    return Preset(
        "mkdocs",
        f"{'/'.join(p for p in (prefix, name) if p)} is MkDocs' (pages in "
        f"{docs or 'the root'}/, at {path or ''}/)",
        tuple(Rule.parse(t) for t in texts),
        anchors="python-markdown",
        base_url=origin,
        excludes=(folder + "/",) if folder else (),
        trailing_slash=directories,
    )


def hexo_preset(base: Path, prefix: str) -> Preset | None:
    """Hexo (hexo.io, "Permalinks", "Writing"): posts in `source/_posts/` at `_config.yml`'s
    `permalink` (default `:year/:month/:day/:title/`; `:title` is the post's path under
    `_posts/` without its extension); other pages in `source/` at their path (`x/index.md` at
    `x/`, `x.md` at `x.html`); `root` is the site's path, `url` its address."""
    packages = dependencies(base)
    if "hexo" not in packages and not (base / "source" / "_posts").is_dir():
        return None
    config = config_file(base / "_config.yml")
    if "hexo" not in packages and not {"new_post_name", "source_dir"} & set(config):
        return None
    source = str(config.get("source_dir") or "source").strip("/")
    permalink = str(config.get("permalink") or ":year/:month/:day/:title/")
    root = "/" + str(config.get("root") or "/").strip("/")
    root = "" if root == "/" else root
    tokens = {
        **DATE_TOKENS,
        "title": "{title}",
        "name": "{name}",
        "post_title": "{page.title|slug}",
        "category": "{page.categories}",
    }
    post = re.sub(r":(\w+)", lambda m: tokens.get(m.group(1), ""), permalink)
    texts = [
        rf"{re.escape(source)}/_posts/(?P<title>(?:.+/)?(?P<name>[^/]+)) => {root}/{post}",
        f"{re.escape(source)}/(?:(?P<dir>.+)/)?index => {root}/{{dir}}/",
        f"{re.escape(source)}/(?P<path>.+) => {root}/{{path}}.html",
    ]
    origin, _ = _site_path(str(config.get("url") or ""))
    return Preset(
        "hexo",
        f"{'_config.yml' if config else 'source/_posts/'} is Hexo's (posts at {permalink})",
        rules_under(prefix, *texts),
        base_url=origin,
    )


def zola_preset(base: Path, prefix: str) -> Preset | None:
    """Zola (getzola.org, "Content overview", "Page"): `content/x.md` and `content/x/index.md`
    at `/x/`, a section's `_index.md` at its folder; a file name's `YYYY-MM-DD-` or
    `YYYY-MM-DD_` prefix is the date, not the slug; front-matter `slug` replaces the last
    segment, `path` the whole path; `base_url` (Hugo's is `baseURL`) is the address."""
    name = glob_first(base, "zola.toml", "config.toml")
    config = config_file(base / name) if name else {}
    if not name or "base_url" not in config or not (base / "content").is_dir():
        return None
    texts = [
        "content(?:/_index)? => /",
        "content/(?P<dir>.+)/_index => /{dir}/",
        r"content/(?:(?P<dir>.+)/)?(?:\d{4}-\d\d-\d\d[-_])?(?P<name>[^/]+) => /{dir}/{name}/",
    ]
    return Preset(
        "zola",
        f"{name} is Zola's (base_url)",
        rules_under(prefix, *texts),
        path_keys=("path",),
        base_url=str(config.get("base_url") or ""),
        trailing_slash=True,
        front_for=_zola_path,
    )


def _zola_path(source: str, front: Mapping[str, Any]) -> Mapping[str, Any]:
    """Zola's `path` is the page's whole path from the site's root, written without slashes."""
    given = front.get("path")
    if isinstance(given, str) and given.strip("/"):
        return {**front, "path": f"/{given.strip('/')}/"}
    return front
