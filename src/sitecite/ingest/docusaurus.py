"""Docusaurus (docusaurus.io, "Docs", "Blog", "Pages"): two presets from one
`docusaurus.config.*`, since a slug means a different thing in each.

- docs in the docs plugin's `path` (default `docs/`) at its `routeBasePath` (default `/docs`),
  number prefixes (`01-`) dropped, `README` and `x/x` at their folder; a front-matter `slug` is
  relative to the doc's folder, or, starting with `/`, to the docs' root;
- blog posts in the blog plugin's `path` (default `blog/`) at its `routeBasePath` (default
  `/blog`): a `YYYY-MM-DD-` file or folder name gives `/blog/YYYY/MM/DD/<name>`; a front-matter
  `slug` is the post's whole path under the blog's base;
- `src/pages/x` at `/x`.

`trailingSlash: true` adds a `/` to every URL; `url` + `baseUrl` is the site's address.
"""

from __future__ import annotations

import re
from pathlib import Path

from sitecite.ingest.layout import glob_first, js_value, read, rules_under
from sitecite.ingest.routes import Preset, Rule


def js_object(text: str, key: str) -> str:
    """The object literal a key holds (`blog: { ... }`), braces matched; "" when the key is
    absent or holds something else (`blog: false`)."""
    found = re.search(rf"\b{re.escape(key)}\s*:\s*\{{", text)
    if found is None:
        return ""
    depth, start = 0, found.end() - 1
    for index in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start : index + 1]
    return text[start:]


def _base(route: str, default: str) -> str:
    if not route:
        return default
    return "" if route.strip("/") == "" else "/" + route.strip("/")


def _folder(prefix: str, path: str) -> str:
    folder = (Path(prefix) / path).as_posix() if prefix else path
    return re.sub(r"(^|/)[^/]+/\.\./", r"\1", folder).removeprefix("./")


def docusaurus_presets(base: Path, prefix: str) -> tuple[Preset, ...] | None:
    conf_name = glob_first(base, "docusaurus.config.*")
    if not conf_name:
        return None
    config = read(base / conf_name)
    docs_options, blog_options = js_object(config, "docs"), js_object(config, "blog")
    slash = "/" if re.search(r"trailingSlash\s*:\s*true", config) else ""
    site = js_value(config, "url").rstrip("/")
    address = site + js_value(config, "baseUrl").rstrip("/") if site else ""
    docs_base = _base(js_value(docs_options, "routeBasePath"), "/docs")
    docs = _folder(prefix, js_value(docs_options, "path") or "docs")
    lead = f"{prefix}/" if prefix else ""
    texts = [
        rf"{re.escape(docs)}/(?:(?P<dir>.+)/)?(?P<name>[^/]+)/(?P=name) => "
        f"{docs_base}/{{dir|nonumbers}}/{{name|nonumbers}}{slash}",
        rf"{re.escape(docs)}/(?:(?P<dir>.+)/)?README => {docs_base}/{{dir|nonumbers}}{slash}",
        rf"{re.escape(docs)}/(?P<path>.+) => {docs_base}/{{path|nonumbers}}{slash}",
        rf"{re.escape(docs)} => {docs_base or '/'}",
    ]
    pages = rules_under(prefix, "src/pages => /", f"src/pages/(?P<path>.+) => /{{path}}{slash}")
    found = [
        Preset(
            "docusaurus",
            f"{lead}{conf_name} is Docusaurus's (docs in {docs}/ at {docs_base or '/'})",
            tuple(Rule.parse(t) for t in texts) + pages,
            base_url=address,
            slug_root=docs_base,
            trailing_slash=bool(slash),
        )
    ]
    blog_path = js_value(blog_options, "path") or "blog"
    if not re.search(r"\bblog\s*:\s*false", config) and (base / blog_path).is_dir():
        blog_base = _base(js_value(blog_options, "routeBasePath"), "/blog")
        blog = _folder(prefix, blog_path)
        dated = r"(?P<y>\d{4})-(?P<m>\d\d)-(?P<d>\d\d)-(?P<name>[^/]+)"
        blog_texts = [
            rf"{re.escape(blog)}/(?:(?P<dir>.+)/)?{dated} => "
            f"{blog_base}/{{dir}}/{{y}}/{{m}}/{{d}}/{{name}}{slash}",
            rf"{re.escape(blog)}/(?P<path>.+) => {blog_base}/{{path}}{slash}",
        ]
        found.append(
            Preset(
                "docusaurus-blog",
                f"{lead}{conf_name} is Docusaurus's (blog in {blog}/ at {blog_base or '/'}; "
                "a post's slug is its whole path there)",
                tuple(Rule.parse(t) for t in blog_texts),
                base_url=address,
                slug="path",
                slug_root=blog_base,
                trailing_slash=bool(slash),
            )
        )
    return tuple(found)
