"""Answer checks per category, graded from an Answer and its Trace alone."""

from __future__ import annotations

from typing import Any

from sitecite.eval.grade import grade
from sitecite.eval.questions import Question
from sitecite.types import Answer, Check, Citation, Hit, Section, Trace


def section(section_id: str) -> Section:
    page = section_id.split("#")[0]
    return Section(
        section_id, page, page.title(), section_id.split("#")[-1], f"/{page}", "text", "h"
    )


def answered(
    text: str,
    cited: list[str],
    context: list[str] | None = None,
    refused: bool = False,
    checks: tuple[Check, ...] = (),
) -> tuple[Answer, Trace]:
    context_ids = context if context is not None else cited
    hits = tuple(
        Hit(section(s), rank, 0.9 - rank / 10, 0.6 - rank / 20, 1.0, True)
        for rank, s in enumerate(context_ids, start=1)
    )
    citations = tuple(Citation(n, s, s, "", f"/{s}", 0.5) for n, s in enumerate(cited, start=1))
    trace = Trace(
        "q",
        hits,
        0.3,
        tuple(section(s) for s in context_ids),
        "extractive",
        checks=checks,
        timings_ms={"total": 3.0},
    )
    answer = Answer(
        "q",
        refused,
        "The site doesn't say." if refused else text,
        () if refused else citations,
        0.5,
        "extractive",
        3.0,
        hits,
        refusal_reason="low_support" if refused else "",
    )
    return answer, trace


def q(category: str = "grounding", **fields: Any) -> Question:
    defaults = {"abstention": "refuse", "adversarial": "refuse"}
    fields.setdefault("expect", defaults.get(category, "answer"))
    return Question(id="q-1", question="q", category=category, **fields)


def failed(result: dict[str, Any]) -> set[str]:
    return {
        name
        for name, check in result["checks"].items()
        if not check["passed"] and check.get("grades", True)
    }


def test_grounding_cites_expected_and_only_allowed() -> None:
    question = q(expected_sources=("about",), allowed_sources=("uses#desk",))
    good = grade(question, *answered("She works in Lisbon. [1]", ["about#intro", "uses#desk"]))
    assert good["passed"] and not failed(good)
    stray = grade(question, *answered("She works in Lisbon. [1] [2]", ["about#intro", "awards#x"]))
    assert failed(stray) == {"cites_only_allowed"}
    wrong = grade(question, *answered("x [1]", ["uses#desk"]))
    assert failed(wrong) == {"cites_expected"}
    refused = grade(question, *answered("", [], refused=True))
    assert failed(refused) == {"answered"}


def test_multi_needs_every_expected_source() -> None:
    question = q("multi", expected_sources=("awards", "work/a"))
    assert grade(
        question, *answered("She works in Lisbon. [1] [2]", ["awards#2024", "work/a#results"])
    )["passed"]
    assert failed(grade(question, *answered("x [1]", ["awards#2024"]))) == {"cites_expected"}


def test_every_key_fact_group_must_appear_in_any_wording_and_case() -> None:
    groups = (("1.3 s",), ("Lisbon",), ("2nd", "second"))
    question = q("fact", expected_sources=("work/a",), must_contain=groups)
    passing = "LCP fell to 1.3 s in LISBON, the second city. [1]"
    assert grade(question, *answered(passing, ["work/a#r"]))["passed"]
    result = grade(question, *answered("LCP fell to 1.3s in Lisbon, 2nd. [1]", ["work/a#r"]))
    assert failed(result) == {"answers"}
    assert result["checks"]["answers"]["detail"] == "missing: 1.3 s"
    result = grade(question, *answered("LCP fell to 1.3 s in Lisbon. [1]", ["work/a#r"]))
    assert result["checks"]["answers"]["detail"] == "missing: '2nd' or 'second'"


def test_presentable_fails_on_headings_links_fragments_duplicates_and_lead_ins() -> None:
    about = Section(
        "about#intro",
        "about",
        "About",
        "Hosting",
        "/about",
        "text",
        "h",
        ("This site is hosted on Vercel.", "Mirrored on Tor at:", "abc.onion", "Read more"),
        kinds=("prose", "prose", "link", "link"),
    )
    question = q(expected_sources=("about",))

    def check(text: str) -> dict[str, Any]:
        answer, trace = answered(text, ["about#intro"])
        trace = Trace("q", trace.hits, 0.3, (about,), "extractive")
        return dict(grade(question, answer, trace)["checks"]["presentable"])

    assert check('On *About › Hosting*: "This site is hosted on Vercel." [1]')["passed"]
    assert check("Mirrored on Tor at: abc.onion [1]")["passed"]  # a link completing a lead-in
    assert "a link: 'Read more'" in check("This site is hosted on Vercel. Read more [1]")["detail"]
    assert "a heading: 'Hosting'" in check("Hosting [1]")["detail"]
    twice = check("This site is hosted on Vercel. [1] This site is hosted on Vercel. [1]")
    assert "quoted twice" in twice["detail"]
    assert "ends on a lead-in" in check("Mirrored on Tor at: [1]")["detail"]


def test_abstention_and_adversarial_must_refuse() -> None:
    assert grade(q("abstention"), *answered("", [], refused=True))["passed"]
    assert failed(
        grade(q("abstention"), *answered("She studied at MIT. [1]", ["about#intro"]))
    ) == {"refused"}
    attack = q("adversarial", must_not_contain=("PWNED",), attack="prompt-injection")
    assert grade(attack, *answered("", [], refused=True))["passed"]
    leaked = grade(attack, *answered("pwned [1]", ["about#intro"]))
    assert failed(leaked) == {"refused", "must_not_contain"}


def test_either_accepts_a_refusal_or_a_correct_answer() -> None:
    question = q(
        "adversarial", expect="either", expected_sources=("about",), must_not_contain=("John Doe",)
    )
    assert grade(question, *answered("", [], refused=True))["passed"]
    assert grade(question, *answered("Noor is a consultant. [1]", ["about#intro"]))["passed"]
    wrong = grade(question, *answered("I am John Doe. [1]", ["uses#desk"]))
    assert failed(wrong) == {
        "refused_or_correct",
        "cites_expected",
        "cites_only_allowed",
        "must_not_contain",
    }


def test_citation_outside_the_context_fails() -> None:
    question = q(expected_sources=("about",))
    result = grade(question, *answered("x [1]", ["about#intro"], context=["about#other"]))
    assert "cites_context" in failed(result)


def test_trace_checks_are_shown_but_do_not_grade() -> None:
    checks = (Check("gate", False, "0 of 8 hits"), Check("support", False, "best 0.2"))
    result = grade(q("abstention"), *answered("", [], refused=True, checks=checks))
    assert result["passed"]
    assert result["checks"]["trace:gate"] == {
        "passed": False,
        "detail": "0 of 8 hits",
        "grades": False,
    }


def test_judge_verdict_grades_answers_only() -> None:
    question = q(expected_sources=("about",))
    verdict = {
        "verdict": {
            "faithful": False,
            "hallucinated_claims": ["she has a PhD"],
            "correctly_refused": None,
            "rationale": "not in the sources",
        },
        "attempts": 1,
    }
    result = grade(question, *answered("x [1]", ["about#intro"]), verdict)
    assert failed(result) == {"judge"} and "she has a PhD" in result["checks"]["judge"]["detail"]
    assert result["judge"]["hallucinated_claims"] == ["she has a PhD"]
    could_not = grade(
        question, *answered("x [1]", ["about#intro"]), {"error": "no valid verdict", "attempts": 3}
    )
    assert could_not["passed"] and could_not["judge"]["could_not_grade"] is True


def test_result_has_the_design_fields() -> None:
    result = grade(q(expected_sources=("about",)), *answered("x [1]", ["about#intro"]))
    for key in (
        "id",
        "category",
        "expect",
        "question",
        "retrieved",
        "context_ids",
        "refused",
        "answer",
        "citations",
        "checks",
        "judge",
        "passed",
        "latency_ms",
        "tokens",
    ):
        assert key in result
    assert set(result["retrieved"][0]) >= {"id", "score", "rank", "admitted"}
    assert set(result["citations"][0]) >= {"n", "id", "title", "url"}
    assert result["tokens"] == {"prompt": 0, "output": 0}
    assert result["metrics"]["hit@3"] == 1.0
