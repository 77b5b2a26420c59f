"""Citation URLs that land: a page id becomes the path the published site serves it at.

In order, first match wins: the page's own front matter (`canonical`, `permalink`, `slug`),
the owner's rules (`index.routes`, `--route`: `"REGEX => TEMPLATE"` on the page id, named
groups as `{name}`), the presets detected from the folder's layout, and the default route
(`index.route`, the page id itself). A template placeholder may take filters:
`{path|nogroups}` drops Next.js route groups such as `(blog)`, `{path|nonumbers}` drops
Docusaurus number prefixes such as `01-`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitecite.errors import ConfigError

ARROW = "=>"
CANONICAL_KEYS = ("canonical", "canonicalUrl", "canonical_url")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)((?:\|\w+)*)\}")
FILTERS: dict[str, Callable[[str], str]] = {
    "nogroups": lambda path: re.sub(r"(?:^|(?<=/))\([^/]*\)(?:/|$)", "", path).rstrip("/"),
    "nonumbers": lambda path: re.sub(r"(?:^|(?<=/))\d+[-_.]", "", path),
    "nodate": lambda path: re.sub(r"(?:^|(?<=/))\d{4}-\d{2}-\d{2}-", "", path),
    "lower": str.lower,
}


@dataclass(frozen=True)
class Rule:
    """`REGEX => TEMPLATE`, matched against the whole page id."""

    pattern: re.Pattern[str]
    template: str

    @classmethod
    def parse(cls, text: str) -> Rule:
        """A rule from its text; a bare template (no `=>`) routes every page, as `index.route`
        always has. Errors name the rule."""
        regex, arrow, template = text.partition(ARROW)
        if not arrow:
            regex, template = r"(?P<page_id>.*)", text
        regex, template = regex.strip(), template.strip()
        try:
            pattern = re.compile(regex)
        except re.error as exc:
            problem = f"bad route rule '{text}': the regex does not compile ({exc})"
            raise ConfigError(problem) from exc
        known = set(pattern.groupindex) | {"page_id"}
        for name, filters in _PLACEHOLDER.findall(template):
            if name not in known:
                raise ConfigError(
                    f"bad route rule '{text}': {{{name}}} is not a named group of the regex "
                    f"(named groups: {', '.join(sorted(known))})"
                )
            for unknown in set(filters.split("|")[1:]) - set(FILTERS):
                raise ConfigError(
                    f"bad route rule '{text}': unknown filter '{unknown}' "
                    f"(known: {', '.join(sorted(FILTERS))})"
                )
        return cls(pattern, template)

    def apply(self, page_id: str) -> str | None:
        match = self.pattern.fullmatch(page_id)
        if match is None:
            return None
        values = {k: v or "" for k, v in match.groupdict().items()} | {"page_id": page_id}

        def fill(placeholder: re.Match[str]) -> str:
            value = values[placeholder.group(1)]
            for name in placeholder.group(2).split("|")[1:]:
                value = FILTERS[name](value)
            return value

        return _PLACEHOLDER.sub(fill, self.template)

    def __str__(self) -> str:
        return f"{self.pattern.pattern} {ARROW} {self.template}"


@dataclass(frozen=True)
class Preset:
    """Rules for a site generator's convention, and why it was detected."""

    name: str
    evidence: str
    rules: tuple[Rule, ...]
    anchors: str = "github"

    def describe(self) -> str:
        rules = "; ".join(str(rule) for rule in self.rules)
        return f"{self.name} ({self.evidence}): {rules}"


@dataclass(frozen=True)
class _Convention:
    """A generator's layout: files that show it (and any that must sit beside them)."""

    name: str
    shown_by: tuple[str, ...]
    what: str
    rules: tuple[str, ...]
    requires: tuple[str, ...] = ()
    anchors: str = "github"


CONVENTIONS = (
    _Convention(
        "nextjs-app",
        ("app/page.md*", "app/**/page.md*"),
        "a Next.js app-router page",
        ("app => /", "app/(?P<path>.+) => /{path|nogroups}"),
    ),
    _Convention(
        "tailwind-nextjs-starter-blog",
        ("data/blog/*.md*", "data/blog/**/*.md*"),
        "a post of the Tailwind Next.js starter blog",
        ("data/blog/(?P<slug>.+) => /blog/{slug|nodate}", "data/authors/default => /about"),
    ),
    _Convention(
        "hugo",
        ("content/*.md", "content/**/*.md"),
        "Hugo content",
        ("content(?:/_index)? => /", "content/(?P<path>.+?)(?:/_index)? => /{path}/"),
        requires=("hugo.toml", "hugo.yaml", "hugo.json", "config.toml", "archetypes"),
    ),
    _Convention(
        "jekyll",
        ("_posts/*.md*", "_posts/**/*.md*"),
        "a Jekyll post",
        (
            r"(?:.*/)?_posts/(?:.*/)?(?P<y>\d{4})-(?P<m>\d\d)-(?P<d>\d\d)-(?P<title>[^/]+)"
            " => /{y}/{m}/{d}/{title}.html",
        ),
        anchors="kramdown",
    ),
    _Convention(
        "astro",
        ("src/content/**/*.md*", "src/pages/**/*.md*"),
        "Astro content",
        (
            "src/content/(?P<path>.+) => /{path}",
            "src/pages => /",
            "src/pages/(?P<path>.+) => /{path}",
        ),
    ),
    _Convention(
        "docusaurus",
        ("docusaurus.config.*", "sidebars.js", "sidebars.ts"),
        "Docusaurus configuration",
        (
            "docs/(?P<path>.+) => /docs/{path|nonumbers}",
            r"blog/(?P<y>\d{4})-(?P<m>\d\d)-(?P<d>\d\d)-(?P<slug>[^/]+)"
            " => /blog/{y}/{m}/{d}/{slug}",
        ),
    ),
)


def _has(root: Path, patterns: tuple[str, ...]) -> str:
    """The first file (relative path) matching any glob pattern, or ""."""
    for pattern in patterns:
        for found in sorted(root.glob(pattern)):
            if "node_modules" not in found.parts:
                return found.relative_to(root).as_posix()
    return ""


def detect_presets(root: Path) -> list[Preset]:
    """Every convention the folder's layout shows, each with the file that showed it."""
    found = []
    for convention in CONVENTIONS:
        evidence = _has(root, convention.shown_by)
        if evidence and (not convention.requires or _has(root, convention.requires)):
            rules = tuple(Rule.parse(rule) for rule in convention.rules)
            what = f"{evidence} is {convention.what}"
            found.append(Preset(convention.name, what, rules, convention.anchors))
    return found


@dataclass
class Router:
    """Turns a page id (and its front matter) into the page's URL."""

    base_url: str = ""
    rules: Sequence[Rule] = ()
    presets: Sequence[Preset] = ()
    default: Rule = field(default_factory=lambda: Rule.parse("{page_id}"))

    @classmethod
    def from_settings(
        cls, base_url: str, routes: Sequence[str], route: str, root: Path | None, presets: bool
    ) -> Router:
        detected = detect_presets(root) if presets and root is not None else []
        return cls(base_url, [Rule.parse(r) for r in routes], detected, Rule.parse(route))

    @property
    def anchor_style(self) -> str:
        return next((p.anchors for p in self.presets if p.anchors != "github"), "github")

    def path(self, page_id: str) -> str:
        """The routed path of a page id, by the first rule that matches."""
        for rule in [*self.rules, *(r for p in self.presets for r in p.rules)]:
            routed = rule.apply(page_id)
            if routed is not None:
                return routed
        return self.default.apply(page_id) or page_id

    def url(self, page_id: str, front: Mapping[str, Any] | None = None) -> str:
        """Front matter `canonical`, `permalink` or `slug` first, then the rules."""
        front = front or {}
        canonical = _text(next((front[k] for k in CANONICAL_KEYS if front.get(k)), ""))
        if canonical.startswith(("http://", "https://")):
            return canonical
        path = canonical or _text(front.get("permalink"))
        if not path or ":" in path:  # Jekyll permalink patterns (`/:year/:title`) are not paths
            path = self.path(page_id)
            slug = _text(front.get("slug"))
            if slug.startswith("/"):
                path = slug
            elif slug:
                head, _, last = path.rstrip("/").rpartition("/")
                path = f"{head}/{slug}" + ("/" if path.endswith("/") and last else "")
        return join_url(self.base_url, path)

    def describe(self) -> list[str]:
        """One line per source of rules, for `sitecite index` to print."""
        lines = [f"route rule: {rule}" for rule in self.rules]
        lines += [f"route preset {preset.describe()}" for preset in self.presets]
        return lines


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def join_url(base_url: str, path: str) -> str:
    return f"{base_url.rstrip('/')}/{path.lstrip('/')}"
