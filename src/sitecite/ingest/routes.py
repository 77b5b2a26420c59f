"""Citation URLs that land: a page becomes the path the published site serves it at.

In order, first match wins: the page's own front matter (`canonical`, `permalink`, and the keys
its generator reads, such as Hugo's `url`), the owner's rules (`index.routes`, `--route`:
`"REGEX => TEMPLATE"`), the presets detected from the folder's layout (`ingest.presets`), and
the default route (`index.route`, the page id itself). A rule's regex is tried, whole, on the
page id (`notes/dark-mode`), then on the file's path without its extension
(`notes/dark-mode/index`), then with it (`notes/dark-mode/index.md`). A template fills in the
regex's named groups, `{page_id}`, and the page's own fields: `{page.year}`, `{page.month}`,
`{page.day}` (its front-matter date, else a `YYYY-MM-DD-` file-name prefix), `{page.slug}`
(front-matter `slug`, else the last path segment), `{page.title}`, `{page.categories}`. A
placeholder may take filters: `{path|nogroups}` drops Next.js route groups such as `(blog)`,
`{path|nonumbers}` Docusaurus number prefixes such as `01-`, `{path|nodate}` a date prefix,
`{path|lower}` capitals, `{page.title|slug}` makes a slug. Empty placeholders leave no `//`.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from sitecite.errors import ConfigError

ARROW = "=>"
NO_PRESET = "warning: no route preset matched"
CANONICAL_KEYS = ("canonical", "canonicalUrl", "canonical_url")
PAGE_FIELDS = ("year", "month", "day", "slug", "title", "categories")
# Jekyll's permalink date tokens, which Hexo's permalinks share, as route placeholders
DATE_TOKENS = {
    "year": "{page.year}",
    "month": "{page.month}",
    "day": "{page.day}",
    "i_month": "{page.month}",
    "i_day": "{page.day}",
}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?)((?:\|\w+)*)\}")
_FILE_DATE = re.compile(r"(?:^|/)(\d{4})-(\d\d)-(\d\d)[-_]")


def _slug(text: str) -> str:
    words = re.sub(r"[^\w\s-]", "", text.lower(), flags=re.UNICODE)
    return re.sub(r"[\s_-]+", "-", words).strip("-")


FILTERS: dict[str, Callable[[str], str]] = {
    "nogroups": lambda path: re.sub(r"(?:^|(?<=/))\([^/]*\)(?:/|$)", "", path).rstrip("/"),
    "nonumbers": lambda path: re.sub(r"(?:^|(?<=/))\d+[-_.]", "", path),
    "nodate": lambda path: re.sub(r"(?:^|(?<=/))\d{4}-\d{2}-\d{2}-", "", path),
    "lower": str.lower,
    "slug": _slug,
}


def page_fields(page_id: str, front: Mapping[str, Any], timezone: str = "UTC") -> dict[str, str]:
    """The page's own template fields. A date with a UTC offset is read in `timezone` (the
    generator's); one without is taken as written, as Jekyll and Astro's YAML reader do."""
    fields = {name: "" for name in PAGE_FIELDS}
    day = _date(front.get("date"), timezone)
    if day is None:
        found = _FILE_DATE.search(page_id)
        day = dt.date(*map(int, found.groups())) if found and _valid(found.groups()) else None
    if day is not None:
        fields.update(year=f"{day.year:04d}", month=f"{day.month:02d}", day=f"{day.day:02d}")
    last = page_id.rstrip("/").rsplit("/", 1)[-1]
    slug = front.get("slug")
    fields["slug"] = (
        slug.strip("/") if isinstance(slug, str) and slug.strip("/") else (FILTERS["nodate"](last))
    )
    title = front.get("title")
    fields["title"] = title if isinstance(title, str) else ""
    categories = front.get("categories", front.get("category"))
    if isinstance(categories, str):
        categories = categories.split()
    if isinstance(categories, list):
        fields["categories"] = "/".join(str(c).lower() for c in categories if str(c).strip())
    return fields


def _valid(parts: Sequence[str]) -> bool:
    try:
        dt.date(*map(int, parts))
    except ValueError:
        return False
    return True


def _date(value: Any, timezone: str) -> dt.date | None:
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace(" ", "T", 1)
    text = re.sub(r"\s+", "", text).replace("Z", "+00:00")
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        try:
            return dt.date.fromisoformat(text[:10])
        except ValueError:
            return None
    if moment.tzinfo is not None:
        try:
            moment = moment.astimezone(zoneinfo.ZoneInfo(timezone))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            moment = moment.astimezone(dt.UTC)
    return moment.date()


@dataclass(frozen=True)
class Rule:
    """`REGEX => TEMPLATE`, matched against the whole page id (or the file's path)."""

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
        known = set(pattern.groupindex) | {"page_id"} | {f"page.{f}" for f in PAGE_FIELDS}
        for name, filters in _PLACEHOLDER.findall(template):
            if name not in known:
                raise ConfigError(
                    f"bad route rule '{text}': {{{name}}} is not a named group of the regex "
                    f"or a page field (known: {', '.join(sorted(known))})"
                )
            for unknown in set(filters.split("|")[1:]) - set(FILTERS):
                raise ConfigError(
                    f"bad route rule '{text}': unknown filter '{unknown}' "
                    f"(known: {', '.join(sorted(FILTERS))})"
                )
        return cls(pattern, template)

    def match(self, page_id: str, source: str = "") -> re.Match[str] | None:
        """The regex's match on the page id, else on the file's path without, then with, its
        extension."""
        candidates = [page_id]
        if source:
            candidates += [str(PurePosixPath(source).with_suffix("")), source]
        for candidate in candidates:
            found = self.pattern.fullmatch(candidate)
            if found is not None:
                return found
        return None

    def apply(
        self, page_id: str, fields: Mapping[str, str] | None = None, source: str = ""
    ) -> str | None:
        match = self.match(page_id, source)
        if match is None:
            return None
        values = {f"page.{k}": v for k, v in (fields or {}).items()}
        values |= {k: v or "" for k, v in match.groupdict().items()} | {"page_id": page_id}

        def fill(placeholder: re.Match[str]) -> str:
            value = values.get(placeholder.group(1), "")
            for name in placeholder.group(2).split("|")[1:]:
                value = FILTERS[name](value)
            return value

        filled = _PLACEHOLDER.sub(fill, self.template)
        return re.sub(r"(?<!:)/{2,}", "/", filled)

    def __str__(self) -> str:
        return f"{self.pattern.pattern} {ARROW} {self.template}"


@dataclass(frozen=True)
class Preset:
    """A site generator's convention: its rules, and what the detection saw.

    `slug` says how a front-matter slug applies: "segment" replaces the last path segment
    (Hugo, Docusaurus docs), "path" is the whole path (Gatsby themes, Astro collections).
    `path_keys` are front-matter keys that hold the page's whole path (Jekyll `permalink`,
    Hugo `url`). `anchors` is the generator's heading-id rule (ingest/ids.py)."""

    name: str
    evidence: str
    rules: tuple[Rule, ...]
    anchors: str = "github"
    timezone: str = "UTC"
    slug: str = "segment"
    path_keys: tuple[str, ...] = ("permalink",)
    base_url: str = ""
    slug_root: str = ""  # the URL an absolute slug is under (Docusaurus docs: /docs)
    folder: str = ""  # where the generator's site is ("" the root, or a subfolder: website)
    # the generator's own file selection, for ingest/published.py: Quarto's `render:` globs,
    # MkDocs' docs folder ("docs/": the only pages)
    excludes: tuple[str, ...] = ()
    trailing_slash: bool | None = None  # whether its page URLs end in "/" (None: it varies)
    # the generator's own reading of a page's metadata (a file path from the site's root and
    # its front matter -> the metadata that routes it): Eleventy's data cascade and permalink
    # templates, Pelican's metadata headers
    front_for: Callable[[str, Mapping[str, Any]], Mapping[str, Any]] | None = None

    def describe(self) -> str:
        rules = "; ".join(str(rule) for rule in self.rules)
        return f"{self.name} ({self.evidence}): {rules}"


@dataclass
class Router:
    """Turns a page id (and its front matter) into the page's URL."""

    base_url: str = ""
    rules: Sequence[Rule] = ()
    presets: Sequence[Preset] = ()
    default: Rule = field(default_factory=lambda: Rule.parse("{page_id}"))
    anchors: str = "auto"  # `index.anchors`: "auto" takes the preset's rule
    searched: bool = False  # presets were looked for (a source folder, presets on)

    @property
    def anchor_style(self) -> str:
        if self.anchors != "auto":
            return self.anchors
        return next((p.anchors for p in self.presets if p.anchors != "github"), "github")

    def _route(
        self, page_id: str, front: Mapping[str, Any], source: str
    ) -> tuple[str, Preset | str]:
        """The routed path of a page, and what routed it: the preset whose rule did, "rule"
        (an owner's rule) or "" (the default route: a guess)."""
        fields = page_fields(page_id, front)
        for rule in self.rules:
            routed = rule.apply(page_id, fields, source)
            if routed is not None:
                return routed, "rule"
        for preset in self.presets:
            zoned = page_fields(page_id, front, preset.timezone)
            for rule in preset.rules:
                routed = rule.apply(page_id, zoned, source)
                if routed is not None:
                    return routed, preset
        guess = "" if self.default.template == "{page_id}" else "rule"  # the owner's route
        return self.default.apply(page_id, fields, source) or page_id, guess

    def path(self, page_id: str, front: Mapping[str, Any] | None = None, source: str = "") -> str:
        """The routed path of a page id, by the first rule that matches."""
        return self._route(page_id, front or {}, source)[0]

    def preset_for(self, page_id: str, source: str = "") -> Preset | None:
        """The preset one of whose rules routes the page (None: an owner's rule or none)."""
        origin = self._route(page_id, {}, source)[1]
        return origin if isinstance(origin, Preset) else None

    def _path_keys(self) -> tuple[str, ...]:
        """The front-matter keys any detected generator reads as a page's whole path."""
        return tuple(dict.fromkeys(k for p in self.presets for k in p.path_keys))

    def front_of(self, front: Mapping[str, Any], source: str) -> Mapping[str, Any]:
        """The page's metadata as its generator reads it (`Preset.front_for`)."""
        for preset in self.presets:
            if preset.front_for is not None and source:
                front = preset.front_for(source, front)
        return front

    def routed_by(
        self, page_id: str, front: Mapping[str, Any] | None = None, source: str = ""
    ) -> str:
        """What gives the page its URL: "front matter", "rule" (the owner's), a preset's name,
        or "" when nothing does and the URL is the default route's guess."""
        front = self.front_of(front or {}, source)
        keys = {*CANONICAL_KEYS, "permalink", *self._path_keys()}
        if any(_text(front.get(key)) for key in keys):
            return "front matter"
        origin = self._route(page_id, front, source)[1]
        return origin.name if isinstance(origin, Preset) else origin

    def url(self, page_id: str, front: Mapping[str, Any] | None = None, source: str = "") -> str:
        """Front matter (`canonical`, `permalink`, the generator's path keys, `slug`) first,
        then the rules."""
        front = self.front_of(front or {}, source)
        path, origin = self._route(page_id, front, source)
        preset = origin if isinstance(origin, Preset) else None
        keys = preset.path_keys if preset else ("permalink", *self._path_keys())
        own = next((_text(front.get(k)) for k in keys if _text(front.get(k))), "")
        canonical = _text(next((front[k] for k in CANONICAL_KEYS if front.get(k)), ""))
        if canonical.startswith(("http://", "https://")) and not own.startswith("/"):
            return canonical  # where the page says it is, unless its generator's key says
        given = own or canonical
        if given and ":" in given:  # a Jekyll-style pattern (`/:year/:title/`)
            given = expand_permalink(given, page_id, front, preset)
        if given.startswith("/") and "{" not in given:
            return join_url(self.base_url, given)
        slug = _text(front.get("slug"))
        if slug and preset is not None and preset.slug == "path":
            end = "" if preset.trailing_slash is False else "/"
            path = f"{preset.slug_root}/{slug.strip('/')}{end}"
        elif slug.startswith("/"):
            path = (preset.slug_root if preset else "") + slug
        elif slug:
            head, _, last = path.rstrip("/").rpartition("/")
            path = f"{head}/{slug}" + ("/" if path.endswith("/") and last else "")
        return join_url(self.base_url, path)

    def describe(self) -> list[str]:
        """One line per source of rules, for `sitecite index` to print."""
        lines = [f"route rule: {rule}" for rule in self.rules]
        lines += [f"route preset {preset.describe()}" for preset in self.presets]
        if self.base_url:
            lines.append(f"base URL: {self.base_url}")
        return lines

    def unrouted_warning(
        self,
        unrouted: Sequence[str],
        maps_tried: Sequence[str] = (),
        learned: Mapping[str, str] | None = None,
    ) -> str:
        """The warning for pages no map, rule, preset or front matter routed: what was tried,
        which follow a rule the site's own links show (inferred, not verified), which are a
        guess (their page ids), and how to say where they are ("" when none)."""
        if not unrouted:
            return ""
        learned = learned or {}
        shown = ", ".join(unrouted[:3]) + (", ..." if len(unrouted) > 3 else "")
        if self.presets:
            tried = [
                "the rules of "
                + ", ".join(f"{p.name} ({p.evidence.split(';')[0]})" for p in self.presets)
            ]
        else:
            tried = ["no generator's layout was recognised (docs/ingestion.md lists them)"]
        tried += list(maps_tried)
        inferred = [page for page in unrouted if page in learned]
        guessed = len(unrouted) - len(inferred)
        said = []
        if inferred:
            rules = sorted(set(learned[page] for page in inferred))
            said.append(
                f"{len(inferred)} are at the URLs the site's own links show "
                f"({'; '.join(rules[:3])}{'; ...' if len(rules) > 3 else ''}): inferred, "
                "not verified"
            )
        if guessed:
            said.append(f"{guessed} are their page ids: a guess that may not land")
        return (
            f"{NO_PRESET} {len(unrouted)} page(s) ({shown}): tried {'; '.join(tried)}. Of "
            f"these, {', and '.join(said)}. Name the site's map with --sitemap FILE|URL (its "
            "sitemap.xml or built folder), or say where they are with --route "
            "'REGEX => TEMPLATE'"
        )


JEKYLL_STYLES = {
    "date": "/:categories/:year/:month/:day/:title:output_ext",
    "pretty": "/:categories/:year/:month/:day/:title/",
    "ordinal": "/:categories/:year/:y_day/:title:output_ext",
    "none": "/:categories/:title:output_ext",
}
_JEKYLL_TOKEN = re.compile(r":([a-z_]+)")


def expand_permalink(
    pattern: str, page_id: str, front: Mapping[str, Any], preset: Preset | None
) -> str:
    """A Jekyll permalink pattern (`/:year/:month/:day/:title/`, or a named style) filled in
    for one page; unknown tokens are left out."""
    pattern = JEKYLL_STYLES.get(pattern, pattern)
    fields = page_fields(page_id, front, preset.timezone if preset else "UTC")
    last = page_id.rsplit("/", 1)[-1]
    title = FILTERS["nodate"](last)
    values = {
        "year": fields["year"],
        "month": fields["month"],
        "day": fields["day"],
        "i_month": fields["month"].lstrip("0"),
        "i_day": fields["day"].lstrip("0"),
        "short_year": fields["year"][2:],
        "title": _jekyll_slug(_text(front.get("slug")) or title),
        "slug": _text(front.get("slug")) or _slug(title),
        "categories": fields["categories"],
        "basename": last,
        "path": page_id,
        "output_ext": ".html",
        "collection": page_id.split("/", 1)[0].lstrip("_"),
    }
    filled = _JEKYLL_TOKEN.sub(lambda m: values.get(m.group(1), ""), pattern)
    return re.sub(r"/{2,}", "/", filled)


def _jekyll_slug(text: str) -> str:
    """Jekyll's `:title`: the name slugified in its "pretty" mode, case kept (a space or
    other punctuation to '-'; `._~!$&'()+,;=@` stay)."""
    return re.sub(r"[^\w._~!$&'()+,;=@]+", "-", text, flags=re.UNICODE).strip("-")


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def join_url(base_url: str, path: str) -> str:
    return f"{base_url.rstrip('/')}/{path.lstrip('/')}"
