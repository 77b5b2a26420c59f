"""A question about a whole page ("Tell me about X") is answered by the page's own summary,
through the real pipeline and model; any other question is left to the ranker."""

from __future__ import annotations

import pytest
from conftest import engine_for_pages

from sitecite.config import Settings
from sitecite.embed import Embedder
from sitecite.pipeline import Engine, answer
from sitecite.question import overview_topic

GRAPHS = """---
title: Graph Anonymisation and Its Limits
summary: Why removing names from a contact graph does not make it anonymous.
---

Contact tracing apps record who met whom, and the resulting graph is valuable to researchers.

## Re-identification

A handful of known contacts is enough to pick a person out of an anonymised graph, because
the shape of their neighbourhood is nearly unique.

## References

- Ji, S. "Graph data anonymization, de-anonymization attacks." IEEE Communications Surveys, 2017.
- Narayanan, A. "De-anonymizing social networks." IEEE Symposium on Security and Privacy, 2009.
"""

KITCHEN = """---
title: Building a Kitchen Timer
---

I built a kitchen timer from a microcontroller and a seven-segment display.

## Parts

The display is driven by a shift register, and a rotary encoder sets the minutes.
"""

SEQUEL = """---
title: Building a Kitchen Timer - Part II
summary: The timer gets a buzzer and a battery.
---

The second version adds a piezo buzzer and runs from a rechargeable battery.
"""


@pytest.fixture(scope="module")
def overview_engine(
    embedder: Embedder, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Engine:
    pages = {"graphs.md": GRAPHS, "timer.md": KITCHEN, "timer-2.md": SEQUEL}
    root = tmp_path_factory.mktemp("overview-site")
    return engine_for_pages(root, pages, embedder, settings)


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("Tell me about Graph Anonymisation and Its Limits", "Graph Anonymisation and Its Limits"),
        ("Can you tell me more about the kitchen timer?", "the kitchen timer"),
        ("What is the Building a Kitchen Timer post about?", "Building a Kitchen Timer"),
        ("What's this site about?", "this site"),
        ("Give me an overview of graph anonymisation.", "graph anonymisation"),
        ("What is the kitchen timer?", ""),
        ("What parts did he use for the timer?", ""),
    ],
)
def test_what_asks_about_a_whole_thing(question: str, topic: str) -> None:
    assert overview_topic(question) == topic


def test_a_question_about_a_page_is_answered_by_its_summary(overview_engine: Engine) -> None:
    result, trace = answer(overview_engine, "Tell me about Graph Anonymisation and Its Limits")
    assert not result.refused, trace.checks
    assert result.answer.startswith(
        "On *Graph Anonymisation and Its Limits*: Why removing names from a contact graph"
    )
    assert "IEEE" not in result.answer, "never a line of its references"
    assert result.citations[0].id.split("#")[0] == "graphs"


def test_without_a_summary_the_page_opens_the_answer(overview_engine: Engine) -> None:
    result, trace = answer(overview_engine, "Give me an overview of Building a Kitchen Timer")
    assert not result.refused, trace.checks
    assert result.answer.startswith(
        'On *Building a Kitchen Timer*: "I built a kitchen timer from a microcontroller'
    ), "the page whose title is closest, not its sequel"


def test_a_topic_that_is_not_a_page_goes_to_the_ranker(overview_engine: Engine) -> None:
    question = "Tell me about the re-identification of people in anonymised graphs"
    result, trace = answer(overview_engine, question)
    judged = next(c for c in trace.checks if c.name == "answerable")
    assert "asks about a page" not in judged.detail
    assert "Why removing names" not in result.answer
