"""Where a site's pages are published, beyond their generator's rules: the site's own map (a
built folder next to the sources, then the live one), the routes its links show for pages
nothing else routes, the data files its generator gives no page, and the record of where each
page's URL came from (the index manifest's `urls`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from sitecite.ingest.links import learn_routes, site_paths, with_learned_urls
from sitecite.ingest.matching import MapMatch
from sitecite.ingest.routes import Preset, Router
from sitecite.ingest.sitemap import OUTPUT_DIRS, SiteMap, built_map, find_built_folder
from sitecite.types import Page


def url_report(
    pages: Sequence[Page],
    router: Router,
    map_match: MapMatch | None,
    unrouted_ids: Sequence[str],
    learned: dict[str, str],
    built_site: bool,
) -> dict[str, object]:
    """Where each page's URL came from (see `IngestResult.url_report`)."""
    mapped = map_match.matched if map_match else {}
    unrouted = set(unrouted_ids)
    origins: Counter[str] = Counter()
    guessed: list[str] = []
    inferred: list[str] = []
    for page in (p for p in pages if p.kind != "facts"):
        if built_site:
            origin = "built site"
        elif page.id in mapped:
            origin = "site map"
        elif page.id in unrouted:
            origin = "links" if page.id in learned else "guess"
            (inferred if origin == "links" else guessed).append(page.id)
        else:
            by = router.routed_by(page.id, page.metadata, page.source)
            origin = by if by in ("front matter", "rule") else "preset"
        origins[origin] += 1
    return {
        "unverified": bool(guessed or inferred),
        "pages": sum(origins.values()),
        "from": dict(origins),
        "presets": [p.name for p in router.presets],
        "site_map": map_match.describe() if map_match else "",
        "guessed": guessed[:50],
        "inferred": inferred[:50],
    }


def learned_urls(
    pages: list[Page], match: MapMatch | None, router: Router, sources: dict[str, str]
) -> tuple[list[Page], dict[str, str]]:
    """The pages nothing routed (no map, rule, preset or front matter) at the URLs the site's
    own links show (ingest/links.py), and the rule that placed each."""
    mapped = match.matched if match else {}
    unrouted = [
        p
        for p in pages
        if p.kind != "facts"
        and p.id not in mapped
        and not router.routed_by(p.id, p.metadata, p.source)
    ]
    if not unrouted:
        return pages, {}
    trailing = next(
        (p.trailing_slash for p in router.presets if p.trailing_slash is not None), None
    )
    links = site_paths(sources, router.base_url)
    paths, rules = learn_routes(unrouted, links, trailing)
    by_page = {}
    for page in unrouted:
        rule = next((r for r in rules if r.rule.match(page.id)), None)
        if page.id in paths:
            by_page[page.id] = str(rule) if rule else "the host's convention"
    return with_learned_urls(pages, paths, router), by_page


def find_site_map(
    root: Path,
    router: Router,
    given: SiteMap | None,
    find: bool,
    live_map: Callable[[], tuple[SiteMap | None, str]] | None,
) -> tuple[SiteMap | None, list[str], Path | None]:
    """The site's map (the one given; else, when `find`, a built folder next to the sources,
    then the live one), what was tried without finding one, and the built folder (never read
    as content, even when the map is not used)."""
    folders = ("", *(p.folder for p in router.presets if p.folder))
    output = find_built_folder(root, folders) if router.searched else None
    tried: list[str] = []
    if given is not None or not find:
        return given, tried, output
    if output is not None:
        return built_map(output, output.relative_to(root).as_posix()), tried, output
    tried.append(f"no built folder ({', '.join(f'{d}/' for d in OUTPUT_DIRS)})")
    if live_map is not None:
        found, note = live_map()
        return found, tried + ([] if found else [note]), output
    return None, tried, output


def shown_by_templates(page: Page, router: Router) -> Preset | None:
    """The detected generator, when a data file (a list of records) is one it only shows
    through templates or components: no generator publishes a JSON or YAML file as a page,
    so without an owner's rule it has no URL of its own. A hand-written site has no
    templates: its data files stay pages, at their paths."""
    generators = [p for p in router.presets if p.name != "static-html"]
    if not generators or router.routed_by(page.id, {}, page.source) == "rule":
        return None
    return generators[0]
