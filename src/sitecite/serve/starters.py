"""Starter questions for the empty palette: the owner's (`serve.starter_questions`), or made
from the site itself.

Made ones are "Who is <the owner>?", then come from the profile facts' headings ("What is
Noor Haddad's availability?") and the titles of the pages with the most sections ("Tell me
about Lumen, a design system for Kestrel Bank"), and each is asked through the pipeline
first: only those it answers are offered, so a starter never leads to "the site doesn't say".
"""

from __future__ import annotations

from itertools import zip_longest

from sitecite.pipeline import Engine, answer
from sitecite.types import PROFILE_SUFFIX

MAX_STARTERS = 4
FACT_CANDIDATES = 2
PAGE_CANDIDATES = 6
MAX_TITLE_CHARS = 60  # a long title makes a question nobody would type


def candidate_questions(engine: Engine) -> list[str]:
    """Questions a visitor might start with, from the site's facts and largest pages."""
    index = engine.index
    facts = [s for s in index.sections if s.page_id == "_facts" and s.heading]
    name = next((s.title.removesuffix(PROFILE_SUFFIX) for s in facts), "")
    owner = f"{name}'s" if name and not name.endswith("s") else f"{name}'" if name else "the"
    # "Who is Noor Haddad?" first: what a visitor asks first, answered by the profile
    # (sitecite.generate.owner) when the site has one
    who = [f"Who is {index.subject}?"] if index.subject else []
    questions = (
        who
        + [
            f"What is {owner} {s.heading.lower()}?"
            for s in facts
            if s.heading.lower() not in ("profile", name.lower())
        ][:FACT_CANDIDATES]
    )
    sizes: dict[str, int] = {}
    titles: dict[str, str] = {}
    for section in index.sections:
        if section.page_id.startswith("_") or not section.title:
            continue
        sizes[section.page_id] = sizes.get(section.page_id, 0) + len(section.sentences)
        titles.setdefault(section.page_id, section.title)
    readable = [page for page in sizes if len(titles[page]) <= MAX_TITLE_CHARS]
    largest = sorted(readable, key=lambda page: (-sizes[page], page))[:PAGE_CANDIDATES]
    pages = [f"Tell me about {_about(titles[page])}" for page in largest]
    mixed = [q for pair in zip_longest(questions, pages) for q in pair if q]  # facts and pages
    return mixed


def make_starters(engine: Engine, configured: list[str], limit: int = MAX_STARTERS) -> list[str]:
    """The owner's starter questions, or made ones that the pipeline answers."""
    if configured:
        return list(configured)
    chosen: list[str] = []
    for question in candidate_questions(engine):
        if len(chosen) >= limit:
            break
        if not answer(engine, question)[0].refused:
            chosen.append(question)
    return chosen


def _about(title: str) -> str:
    """ "About Noor Haddad" -> "Noor Haddad": the title of an about page already says it."""
    return title[6:] if title.lower().startswith("about ") else title
