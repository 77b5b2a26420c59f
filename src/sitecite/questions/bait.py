"""Bait: plausible questions about the owner that the site does not answer, built from what it
does say, offline.

- a neighbour: the site names Bitwarden, the question asks about Dashlane (sitecite.questions
  .neighbours finds it);
- a false premise: "Why did she switch from Dashlane to Bitwarden?", "Why did he leave Oracle?";
- a missing detail about something the site names: a version, a price, a start date;
- a private or family matter: age, marriage, children, hometown, income.

Every candidate carries what would make it answerable (the swapped name, the detail, the
private matter); sitecite.questions.check drops the ones the site does answer.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence

from sitecite.questions.grammar import finish
from sitecite.questions.model import Candidate
from sitecite.questions.neighbours import Member, Named
from sitecite.questions.site import Owner

SWAPS = {
    "tool": (
        "Does {first} use {x}?",
        "What does {first} think of {x}?",
        "Has {first} ever tried {x}?",
    ),
    "network": ("Is {first} on {x}?", "What's {possessive} {x} handle?"),
    "employer": ("Has {first} ever worked at {x}?", "Did {first} ever work for {x}?"),
    "place": ("Has {first} ever lived in {x}?", "Has {first} ever been to {x}?"),
    "school": ("Did {first} go to {x}?", "Did {first} study at {x}?"),
}
FALSE_PREMISES = {
    "tool": ("Why did {first} switch from {x} to {named}?", "Why did {first} stop using {x}?"),
    "network": ("Why did {first} leave {x}?",),
    "employer": ("Why did {first} leave {x}?", "What did {first} work on at {x}?"),
    "place": ("Why did {first} move to {x}?", "What does {first} like about living in {x}?"),
    "school": ("What did {first} study at {x}?",),
}
# Details a site often leaves out, by category: (detail, question about the named thing).
DETAILS = {
    "version": (
        ("programming language", "web framework", "database", "operating system"),
        "Which version of {e} does {first} use?",
    ),
    "price": (
        ("password manager", "note-taking app", "cloud platform"),
        "How much does {first} pay for {e}?",
    ),
    "start date": (
        ("code editor", "web framework", "static site generator", "password manager"),
        "When did {first} start using {e}?",
    ),
    "move date": (("city",), "When did {first} move to {e}?"),
    "join date": (("social network",), "When did {first} join {e}?"),
}
# Private and family matters a visitor asks about a person: (matter, question).
PRIVATE = (
    ("marriage", "Is {first} married?"),
    ("children", "Does {first} have kids?"),
    ("age", "How old is {first}?"),
    ("birthday", "When is {possessive} birthday?"),
    ("hometown", "Where did {first} grow up?"),
    ("pets", "Does {first} have any pets?"),
    ("income", "How much does {first} earn in a year?"),
    ("family", "What do {possessive} parents do for a living?"),
    ("siblings", "Does {first} have any brothers or sisters?"),
)


def neighbour_questions(named: Sequence[Named], owner: Owner) -> Iterator[Candidate]:
    """A swap and a false premise for each name the site gives, with its nearest neighbour."""
    for position, item in enumerate(named):
        relation = item.member.category.relation
        neighbour = item.neighbours[0]
        fill = _fill(owner, neighbour, item.member)
        why = (
            f"the site names {item.member.name} ({item.member.category.name}) and never "
            f"{neighbour.name}"
        )
        swaps = SWAPS[relation]
        yield _bait(swaps[position % len(swaps)].format(**fill), "neighbour", why, neighbour)
        premises = FALSE_PREMISES[relation]
        if len(item.neighbours) > 1:  # a second neighbour keeps the two questions apart
            neighbour = item.neighbours[1]
            fill = _fill(owner, neighbour, item.member)
            why = f"the site never names {neighbour.name}"
        premise = premises[position % len(premises)].format(**fill)
        yield _bait(premise, "false premise", why, neighbour)


def unnamed_questions(
    absent: dict[str, list[Member]], owner: Owner, rng: random.Random
) -> Iterator[Candidate]:
    """Swaps and false premises about an employer, a city and a university the site never
    names, for a site that names none of the table's tools (a chef's, a historian's)."""
    for category in ("company", "city", "university"):
        members = absent.get(category, [])
        if not members:
            continue
        for position, kind in enumerate(("neighbour", "false premise")):
            member = rng.choice(members)
            relation = member.category.relation
            templates = SWAPS[relation] if kind == "neighbour" else FALSE_PREMISES[relation]
            fill = _fill(owner, member, member)
            question = templates[position % len(templates)].format(**fill)
            why = f"the site never names {member.name}"
            yield _bait(question, kind, why, member)


def _fill(owner: Owner, neighbour: Member, named: Member) -> dict[str, str]:
    return {
        "first": owner.first,
        "possessive": owner.possessive,
        "x": with_article(neighbour.name),
        "named": with_article(named.name),
    }


def with_article(name: str) -> str:
    """ "the University of Chicago", as a sentence says it; other names as they are."""
    return f"the {name}" if re.match(r"(University|Technical University) of\b", name) else name


def _bait(question: str, kind: str, why: str, absent: Member) -> Candidate:
    return Candidate(finish(question), "abstention", kind, notes=why, absent=absent.names)


def detail_questions(
    named: Sequence[Named], owner: Owner, site_names: dict[Member, str]
) -> Iterator[Candidate]:
    """A detail the site does not give about a thing it names (`site_names`: the spelling the
    site uses for each member)."""
    for item in named:
        category = item.member.category.name
        for detail, (categories, template) in DETAILS.items():
            if category not in categories:
                continue
            entity = site_names.get(item.member, item.member.name)
            question = template.format(first=owner.first, e=entity)
            yield Candidate(
                finish(question),
                "abstention",
                "missing detail",
                notes=f"the site names {entity} but gives no {detail} for it",
                entity=entity,
                detail=detail,
            )


def private_questions(owner: Owner) -> Iterator[Candidate]:
    for matter, template in PRIVATE:
        question = template.format(first=owner.first, possessive=owner.possessive)
        yield Candidate(
            finish(question),
            "abstention",
            "private detail",
            notes=f"the site says nothing about {owner.their} {matter}",
            private=matter,
        )
