"""`multi` questions, offline: a name two page titles share ("Does Cloudflare's 1.1.1.1 DNS
Block Archive.is?" and "Adding Security Headers Using Cloudflare Workers") and few other pages
mention asks what the owner has written about it, with both pages as expected sources.

A name is a run of title words the site's own sentences capitalise ("Cloudflare", "Steam
Deck", "GitHub"); a word it writes lower-case ("open", "source") is a topic too broad to pin
to two pages.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

from sitecite.questions.grammar import finish
from sitecite.questions.model import Candidate
from sitecite.questions.site import Owner, SiteText
from sitecite.questions.titles import site_pages
from sitecite.tokens import tokenize

TEMPLATES = (
    "What has {first} written about {name}?",
    "What do {possessive} posts say about {name}?",
    "Which of {possessive} posts are about {name}, and what do they say?",
)
MAX_PAGES = 4  # pages whose text names it: beyond two more, the question has no two answers


def multi_questions(site: SiteText, owner: Owner) -> Iterator[Candidate]:
    pages = site_pages(site)
    titled: dict[str, list[str]] = defaultdict(list)
    spelling: dict[str, str] = {}
    for page in pages:
        for name in set(_title_names(page.title, site)):
            titled[name.lower()].append(page.id)
            spelling.setdefault(name.lower(), name)
    ids = {page.id for page in pages}
    longest: dict[tuple[str, ...], str] = {}  # of the names two pages share, the longest
    for key, found in titled.items():
        pair = tuple(sorted(found))
        if len(found) == 2 and len(key) > len(longest.get(pair, "")):
            longest[pair] = key
    for number, (key, found) in enumerate(sorted(titled.items())):
        if (
            len(found) != 2
            or longest[tuple(sorted(found))] != key
            or owner.words & set(key.split())
        ):
            continue
        name = spelling[key]
        named_by = {site.sections[row].page_id for row in site.mentions(name)} & ids
        if len(named_by) > MAX_PAGES or not set(found) <= named_by:
            continue
        if any(_body_mentions(site, page, name) < 1 for page in found):
            continue  # the page must say something of it beyond its title
        template = TEMPLATES[number % len(TEMPLATES)]
        question = template.format(first=owner.first, possessive=owner.possessive, name=name)
        yield Candidate(
            finish(question),
            "multi",
            "shared topic",
            expected_sources=tuple(found),
            notes=f"{name} is in the titles of {found[0]} and {found[1]}",
        )


def _title_names(title: str, site: SiteText) -> list[str]:
    """Runs of title words the site's sentences write capitalised (or that carry capitals
    inside, digits or dots): the names a title is about."""
    runs: list[list[str]] = [[]]
    for token in tokenize(re.sub(r"['’]s\b", "", title)):
        named = token.name_shaped or (
            token.capitalised and site.casing[token.lower] < 0 and len(token.lower) > 2
        )
        if named:
            runs[-1].append(token.text)
        elif runs[-1]:
            runs.append([])
    return [  # every stretch of a run: "Steam Deck" of "Steam Deck Silliness"
        " ".join(run[start:end])
        for run in runs
        for start in range(len(run))
        for end in range(start + 1, len(run) + 1)
        if end - start > 1 or len(run[start]) > 2
    ]


def _body_mentions(site: SiteText, page: str, name: str) -> int:
    pattern = re.compile(rf"(?<![\w.+#-]){re.escape(name)}(?![\w+#])", re.IGNORECASE)
    return sum(
        1
        for row in site.mentions(name)
        if site.sections[row].page_id == page
        for sentence, kind in zip(
            site.sections[row].sentences, site.sections[row].sentence_kinds, strict=False
        )
        if kind in ("prose", "item", "row") and pattern.search(sentence)
    )
