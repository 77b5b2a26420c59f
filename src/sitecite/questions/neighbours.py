"""Neighbours of the names a site gives: for the React it names, the Vue it never does.

The candidates come from a small curated table of categories (sitecite/data/neighbours.json,
each category with its source: developer surveys, Wikipedia lists, world-city and university
rankings); which member is nearest to the one the site names is the embedding model's call
(cosine of the names' vectors), so nothing here is chosen per site. A neighbour is offered
only when the site never writes it, nor any of its spellings, in any case.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from sitecite.embed import Embedder
from sitecite.questions.site import SiteText


@dataclass(frozen=True)
class Category:
    name: str
    relation: str  # tool, network, employer, place, school: how a question relates the owner
    source: str


@dataclass(frozen=True)
class Member:
    names: tuple[str, ...]  # the usual name first, then other spellings
    category: Category

    @property
    def name(self) -> str:
        return self.names[0]


@cache
def table() -> tuple[Member, ...]:
    """Every member of the curated table, category by category."""
    raw = resources.files("sitecite").joinpath("data/neighbours.json").read_text("utf-8")
    members: list[Member] = []
    for entry in json.loads(raw)["categories"]:
        category = Category(entry["name"], entry["relation"], entry["source"])
        members.extend(Member(tuple(names), category) for names in entry["members"])
    return tuple(members)


@dataclass(frozen=True)
class Named:
    """A member the site names, how many sections name it, and its nearest absent neighbours."""

    member: Member
    sections: int
    neighbours: tuple[Member, ...]


def named_members(site: SiteText, embedder: Embedder, nearest: int = 3) -> list[Named]:
    """The members the site names (with their own capitals), most named first, each with the
    `nearest` members of its category the site never writes."""
    counts = {m: max(site.names(n) for n in m.names) for m in table()}
    named = [m for m, count in counts.items() if count]
    if not named:
        return []
    absent = [m for m in table() if not any(site.mentions(n) for n in m.names)]
    categories = {m.category for m in named}
    pool = [m for m in absent if m.category in categories]
    vectors = embedder.embed([m.name for m in named + pool])
    own, others = vectors[: len(named)], vectors[len(named) :]
    found = []
    for row, member in enumerate(named):
        same = [i for i, m in enumerate(pool) if m.category == member.category]
        if not same:
            continue
        scores = others[same] @ own[row]
        order = np.argsort(-scores, kind="stable")[:nearest]
        neighbours = tuple(pool[same[i]] for i in order)
        found.append(Named(member, counts[member], neighbours))
    found.sort(key=lambda n: (-n.sections, n.member.name))
    return found
