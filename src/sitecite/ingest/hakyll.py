"""Hakyll (jaspervdj.be/hakyll, "Rules, routes and compilers"): its routes, read from `site.hs`.

A Hakyll site's routes are Haskell: each `match PATTERN $ do` block gives the files it matches
a `route`. The common routes are read, never run: `idRoute`, `setExtension "html"`,
`gsubRoute "REGEX" (const "TEXT")`, `constRoute "PATH"`, their `composeRoutes`, the "clean
URL" idiom (a `customRoute` that writes `<dir>/<name>/index.html`), and names the file defines
as one of these. A pattern is a glob (`"posts/*"`), `fromList [...]` or `.||.` of globs. Each
file a block matches gets its URL (an `index.html` served at its folder); a route not read
routes nothing, so the site's links or its map are used for those pages. Pandoc makes the
heading ids. Without `site.hs`, a `.cabal`, `package.yaml` or `stack.yaml` naming hakyll still
says it is Hakyll, whose routes are then unknown.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from pathlib import Path

from sitecite.ingest.layout import glob_first, read
from sitecite.ingest.routes import Preset, Rule

_MATCH = re.compile(r"^\s*match\s+(.+?)\s*\$\s*do\s*$", re.M)
_ROUTE = re.compile(r"^\s*route\s+(?:\$\s*)?(.+?)\s*$", re.M)
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
Step = Callable[[str], str | None]


def hakyll_preset(base: Path, prefix: str) -> Preset | None:
    site = glob_first(base, "site.hs", "src/site.hs", "app/site.hs", "Main.hs")
    text = read(base / site) if site else ""
    if site and "hakyll" not in text.lower():
        return None
    if not site:
        manifests = [glob_first(base, pattern) for pattern in ("*.cabal", "package.yaml")]
        manifests.append("stack.yaml" if (base / "stack.yaml").is_file() else "")
        named = next((m for m in manifests if m and "hakyll" in read(base / m).lower()), "")
        if not named:
            return None
        evidence = f"{named} names hakyll (its routes are site.hs code, not here)"
        return Preset("hakyll", evidence, (), anchors="pandoc")
    routes = hakyll_routes(text, base)
    lead = f"{prefix}/" if prefix else ""
    rules = tuple(
        Rule.parse(f"{re.escape(lead + path)} => {url}") for path, url in sorted(routes.items())
    )
    return Preset(
        "hakyll",
        f"{lead}{site} is Hakyll's ({len(rules)} file(s) routed by its match rules)",
        rules,
        anchors="pandoc",
    )


def hakyll_routes(text: str, base: Path) -> dict[str, str]:
    """Each file a `match` block of site.hs routes (its path from `base`, without the
    extension) -> its URL; the first block that matches a file wins, as in Hakyll."""
    files = sorted(
        p.relative_to(base).as_posix()
        for p in base.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(base).parts)
    )
    found: dict[str, str] = {}
    blocks = list(_MATCH.finditer(text))
    for number, block in enumerate(blocks):
        end = blocks[number + 1].start() if number + 1 < len(blocks) else len(text)
        body = text[block.end() : end]
        route = _ROUTE.search(body)
        steps = _steps(route.group(1), text) if route else None
        if not steps:
            continue
        globs = _STRING.findall(block.group(1))
        for path in files:
            if not any(_glob(path, g) for g in globs):
                continue
            stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
            if stem in found:
                continue
            output: str | None = path
            for step in steps:
                output = step(output) if output is not None else None
            if output is not None:
                found[stem] = "/" + output.removesuffix("index.html")
    return found


def _glob(path: str, pattern: str) -> bool:
    """Hakyll's globs: `*` stays within a folder, `**` crosses them."""
    regex = re.escape(pattern).replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
    return re.fullmatch(regex, path) is not None or (
        "*" not in pattern and fnmatch.fnmatchcase(path, pattern)
    )


def _steps(expression: str, text: str, depth: int = 0) -> list[Step] | None:
    """A route expression as the steps it applies in turn (None when a part is not read)."""
    steps: list[Step] = []
    for part in re.split(r"`composeRoutes`", expression):
        part = part.strip().strip("()").strip().removeprefix("$").strip()
        step = _step(part, text, depth)
        if step is None:
            return None
        steps += step
    return steps


def _step(part: str, text: str, depth: int) -> list[Step] | None:
    strings = _STRING.findall(part)
    if part == "idRoute":
        return [lambda path: path]
    if part.startswith("setExtension") and strings:
        ext = strings[0].lstrip(".")
        return [lambda path: re.sub(r"\.[^./]+$", "", path) + f".{ext}"]
    if part.startswith("gsubRoute") and len(strings) >= 2 and "const" in part:
        pattern, replacement = strings[0], strings[1]
        return [lambda path: re.sub(pattern, lambda _: replacement, path)]
    if part.startswith("constRoute") and strings:
        return [lambda path: strings[0]]
    if part.startswith("customRoute") and re.search(r'takeBaseName.*"index\.html"', part, re.S):
        return [_clean]
    if re.fullmatch(r"[a-z]\w*", part) and depth < 5:
        defined = re.search(rf"^{part}\s*=\s*(.+?)(?=^\S)", text + "\nend", re.M | re.S)
        if defined:
            body = " ".join(defined.group(1).split())
            if body.startswith("customRoute"):
                return _step(body, text, depth + 1)
            return _steps(body, text, depth + 1)
    return None


def _clean(path: str) -> str:
    """`<dir>/<name>.<ext>` -> `<dir>/<name>/index.html` (the clean-URL idiom)."""
    folder, _, name = path.rpartition("/")
    stem = name.rsplit(".", 1)[0]
    return f"{folder}/{stem}/index.html" if folder else f"{stem}/index.html"
