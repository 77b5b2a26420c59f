"""Questions about the site's owner ("who are you?", "What is Ada's job?", "how can I reach
her?") are read with the owner as "you" and answered from the owner's profile facts, through
the real pipeline and model; other questions, and questions the profile does not answer, are
left to the ranker and the answerability model."""

from __future__ import annotations

import re

import pytest
from conftest import engine_for_pages

from sitecite.addressed import addressed
from sitecite.config import Settings
from sitecite.embed import Embedder
from sitecite.pipeline import Engine, answer
from sitecite.question import CONTACT, FREE, PLACE, ROLE, SITE, WHO, owner_question

AUTHOR = """---
name: Ada Okafor
occupation: Staff Data Engineer
company: Tidewater Labs
location: Halifax, Nova Scotia
email: ada@okafor.example
github: https://github.com/adaokafor
---

Welcome to my notebook. I write about data pipelines, sailing and the odd board game.
"""

PIPELINES = """---
title: Rebuilding the Nightly Pipeline
authors: ['default']
---

Our nightly pipeline took six hours, so I rewrote it as a set of incremental jobs.

## Results

The incremental jobs finish in forty minutes, and a failed job can be retried on its own.
"""

HIRING = """---
title: What I Look For When Hiring
authors: ['default']
---

When I interview engineers, I care more about how they debug than about which job titles they
held.
"""


@pytest.fixture(scope="module")
def owner_engine(
    embedder: Embedder, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Engine:
    pages = {
        "data/authors/default.md": AUTHOR,
        "data/blog/pipeline.md": PIPELINES,
        "data/blog/hiring.md": HIRING,
    }
    root = tmp_path_factory.mktemp("owner-site")
    return engine_for_pages(root, pages, embedder, settings)


@pytest.mark.parametrize(
    ("question", "reading"),
    [
        ("who are you?", "who is Ada Okafor?"),
        ("What do you do for work?", "What does Ada Okafor do for work?"),
        ("where are you based", "where is Ada Okafor based"),
        ("what's your tech stack?", "what's Ada Okafor's tech stack?"),
        ("You're a consultant, right?", "Ada Okafor is a consultant, right?"),
        ("Tell me about yourself", "Tell me about Ada Okafor"),
        # the box asked to do something stays the box
        ("Can you tell me about your sailing?", "Can you tell me about Ada Okafor's sailing?"),
        ("What is a data pipeline?", "What is a data pipeline?"),
    ],
)
def test_the_second_person_is_the_owner(question: str, reading: str) -> None:
    assert addressed(question, "Ada Okafor") == reading


def test_a_site_without_an_owner_keeps_the_question() -> None:
    assert addressed("who are you?", "") == "who are you?"


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Who is Ada Okafor?", WHO),
        ("Tell me about Ada's background", WHO),
        ("What is Ada's job?", ROLE),
        ("what does she do for a living", ROLE),
        ("Which company is she at?", ROLE),
        ("How can I get in touch with Ada?", CONTACT),
        ("What is the best way to reach her?", CONTACT),
        ("Where is Ada Okafor based?", PLACE),
        ("Which city is Ada in?", PLACE),
        ("Is Ada available for a project next month?", FREE),
        ("When is the earliest Ada could start a new engagement?", FREE),
        ("who runs this site?", SITE),  # about the owner without naming her
        ("Whose blog is this?", SITE),
        ("Who is behind the nightly pipeline?", ""),
        ("are you open to new job offers right now", ""),  # no name: not about Ada
        # about something else than the person, or someone else
        ("Where did Ada study?", ""),
        # the profile says what is true now, not what she did then
        ("Which company was Ada working at in 2019?", ""),
        ("Where did Ada work before Tidewater Labs?", ""),
        ("What does Ada think about sailing?", ""),
        ("Who is Ada's favourite author?", ""),
        ("What did the job scheduler change?", ""),
    ],
)
def test_questions_about_the_owner_are_told_apart(question: str, kind: str) -> None:
    assert owner_question(question, lambda word: word in {"ada", "okafor"}) == kind


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("who are you?", "Staff Data Engineer"),
        ("What is Ada's job?", "Staff Data Engineer"),
        ("Where do you work?", "Tidewater Labs"),
        ("how can I contact you", "ada@okafor.example"),
        ("where are you based?", "Halifax"),
        ("Who is behind this site?", "Ada Okafor writes this site."),
    ],
)
def test_owner_questions_are_answered_from_the_profile(
    owner_engine: Engine, question: str, wanted: str
) -> None:
    result, trace = answer(owner_engine, question)
    assert not result.refused, trace.checks
    assert wanted in result.answer
    assert [c.id for c in result.citations] == ["data/authors/default#profile"]
    # the profile line alone: no sentence of a post that merely says "job" or "work"
    assert "interview" not in result.answer and "nightly" not in result.answer


def test_what_the_profile_does_not_say_is_still_refused(owner_engine: Engine) -> None:
    result, _ = answer(owner_engine, "What is your salary?")
    assert result.refused


def test_other_questions_are_left_to_the_ranker(owner_engine: Engine) -> None:
    result, _ = answer(owner_engine, "Why did you rewrite your nightly pipeline?")
    assert not result.refused
    assert {c.id.split("#")[0] for c in result.citations} == {"data/blog/pipeline"}


PROFILE = """name: Sami Rautio
role: Freelance accessibility auditor
location:
  city: Tampere
  country: Finland
availability:
  status: Booked until the end of March
  open_from: April, two days a week
contact:
  email: sami@rautio.example
timezone:
  iana: Europe/Helsinki
  working_hours: "08:00 to 16:00 Finnish time, Monday to Friday"
languages:
  - Finnish
  - English
  - Swedish
"""

AUDITS = """---
title: How I Audit a Checkout
---

I start every audit by trying the checkout with a screen reader and a keyboard only.
"""


@pytest.fixture(scope="module")
def profile_engine(
    embedder: Embedder, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Engine:
    root = tmp_path_factory.mktemp("profile-site")
    pages = {"profile.yaml": PROFILE, "writing/audits.md": AUDITS}
    return engine_for_pages(root, pages, embedder, settings)


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("are you available?", ["Booked until the end of March", "April, two days a week"]),
        ("Is Sami taking new clients?", ["Booked until the end of March"]),
        ("What do you do?", ["Freelance accessibility auditor"]),
        ("where are you based", ["Tampere"]),
    ],
)
def test_a_profile_data_file_answers_owner_questions(
    profile_engine: Engine, question: str, wanted: list[str]
) -> None:
    result, trace = answer(profile_engine, question)
    assert not result.refused, trace.checks
    assert all(w in result.answer for w in wanted), result.answer
    assert {c.id.split("#")[0] for c in result.citations} == {"_facts"}
    assert result.answer.startswith("On *Sami Rautio › ")  # the owner's name, not "(profile)"


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("What time zone should I assume when scheduling a call with him?", "Europe/Helsinki"),
        ("what are your working hours?", "08:00 to 16:00 Finnish time"),
        ("Can I work with Sami in Swedish?", "Languages: Finnish, English, Swedish"),
    ],
)
def test_a_profile_fact_answers_the_question_that_names_its_key(
    profile_engine: Engine, question: str, wanted: str
) -> None:
    """The owner names the keys of their profile; a question to or about them that names one
    ("working hours", "time zone" for "timezone") is answered by that fact, not refused as a
    near miss nor answered by a post."""
    result, trace = answer(profile_engine, question)
    assert not result.refused, trace.checks
    assert wanted in result.answer, result.answer
    assert {c.id.split("#")[0] for c in result.citations} == {"_facts"}
    assert "screen reader" not in result.answer


def test_a_profile_key_in_a_question_about_the_past_is_left_to_the_ranker(
    profile_engine: Engine,
) -> None:
    """The profile says what is true now: "which languages did he write his first audits
    in?" is not answered with the languages he speaks today."""
    result, _ = answer(profile_engine, "Which languages did Sami write his first audits in?")
    assert "Languages: Finnish" not in result.answer


@pytest.mark.parametrize(
    ("question", "visitor"),
    [
        ("what are your working hours? we're in New York", "we're in New York"),
        ("I'm hiring in Berlin. Is Sami available?", "I'm hiring in Berlin."),
        ("I'm curious about Sami's time at Google. What did he do there?", ""),
        ("I read about his time at Google. What did he do there?", ""),
        ("What did he do at Google?", ""),
    ],
)
def test_what_the_visitor_says_of_themselves_is_told_apart(question: str, visitor: str) -> None:
    from sitecite.question import about_the_visitor

    assert about_the_visitor(question, lambda word: word == "sami") == visitor


def test_a_place_the_visitor_names_does_not_make_the_question_unanswerable(
    profile_engine: Engine,
) -> None:
    """ "we're in New York" is the visitor's context: the site never names New York, and the
    question is still answered; a name in what is asked still has to be on the site."""
    result, trace = answer(profile_engine, "what are your working hours? we're in New York")
    assert not result.refused, trace.checks
    assert "08:00 to 16:00 Finnish time" in result.answer
    result, _ = answer(profile_engine, "Does Sami work with clients in New York?")
    assert result.refused
    result, trace = answer(profile_engine, "I'm a recruiter at Acme. Did Sami work at Acme?")
    entities = next(c for c in trace.checks if c.name == "entities")
    assert result.refused and not entities.passed and "Acme" in entities.detail, trace.checks


ABOUT_PROSE = """---
title: About
---

Hi, I'm Mara Lind. I am a staff engineer at Fernwood Labs, where I build data pipelines.
I live in Tromsø with two cats.
"""

POST = """---
title: Notes on pipelines
author: Mara Lind
---

## Retries

Every job in my pipelines retries three times before it pages anyone.
"""


def test_a_question_about_the_owner_is_answered_from_their_about_page(
    embedder: Embedder, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Most sites describe their owner in prose on a home or about page, not in profile data:
    what the owner does is answered from there, directly when every answer may be, and when
    only sure answers are given, the page's opening is what the reply quotes first; a
    question the page does not answer is never answered directly."""
    pages = {"about.md": ABOUT_PROSE, "notes/pipelines.md": POST}
    engine = engine_for_pages(tmp_path_factory.mktemp("about"), pages, embedder, settings)
    result, _ = answer(engine, "What does Mara do for a living?")
    assert result.outcome == "answered" and "Fernwood Labs" in result.answer
    assert result.citations[0].id.split("#")[0] == "about"
    sure = Engine.for_index(
        engine.index, settings.model_copy(update={"direct_answers": "sure"}), engine.embedder
    )
    closest, _ = answer(sure, "What does Mara do for a living?")
    assert closest.citations[0].id == result.citations[0].id
    assert any("Fernwood Labs" in quote for quote in closest.citations[0].quotes)
    retries, _ = answer(engine, "How many times does a job retry?")
    assert retries.outcome == "answered" and "three times" in retries.answer  # a count
    why, _ = answer(sure, "Why did she choose Tromsø?")
    assert why.outcome != "answered"
    # two parts that the page's opening answers together: said once, not once per part
    both, _ = answer(engine, "What's Mara's job, and which company does she work for?")
    sentences = [s for s in re.split(r"(?<=\.) ", both.answer) if "Fernwood" in s]
    assert both.outcome == "answered" and len(sentences) == 1, both.answer
