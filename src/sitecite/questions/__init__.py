"""`sitecite questions`: write the question set that tries to break a site.

generate.py     generate_questions: ask the writers, check, de-duplicate, pick by seed
answerable.py   fact questions from profiles, setup pages and publication dates (offline)
statements.py   fact questions from the owner's own sentences: counts, names, versions, years
titles.py       questions from what page titles (or summaries) and question headings say
multi.py        `multi` questions on a name two page titles share
bait.py         bait the site does not answer: neighbours, false premises, missing
                details, private matters (offline)
neighbours.py   the curated categories table and the embedding model's nearest neighbour
adversarial.py  attacks about the owner, of the kinds in public injection sets
check.py        is a bait question answered after all; do two questions ask the same
llm.py          the LLM writer (`--llm`), checked the same way
site.py         the owner and the site's text as the writers read them
model.py        Candidate, Dropped and GeneratedSet (question-set JSON, printed report)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sitecite.questions.model import Candidate, Dropped, GeneratedSet

if TYPE_CHECKING:
    from sitecite.questions.generate import OfflineWriter, Plan, generate_questions

__all__ = ["Candidate", "Dropped", "GeneratedSet", "OfflineWriter", "Plan", "generate_questions"]


def __getattr__(name: str) -> Any:
    """The generator loads numpy and the pipeline: imported when first asked for, so the CLI's
    parser (which reads only the default counts) stays instant."""
    if name in ("OfflineWriter", "Plan", "generate_questions"):
        from sitecite.questions import generate

        return getattr(generate, name)
    raise AttributeError(f"module 'sitecite.questions' has no attribute {name!r}")
