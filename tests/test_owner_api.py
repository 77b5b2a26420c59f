"""The owner's loop over real HTTP: answer ids and feedback, follow-ups, starter questions, the
origin allowlist and the daily LLM budget (against a scripted provider on 127.0.0.1)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_llm_generator import llm_engine, quoting

from bench.scripted_llm import ScriptedLLM
from sitecite.config import load_settings
from sitecite.owner import QuestionLog, log_path
from sitecite.pipeline import Engine
from sitecite.serve.openapi import AnswerModel, HealthModel
from sitecite.serve.server import serve_in_thread

FIRST = "How did she stop shoppers from getting charged twice when they double-clicked pay?"
FOLLOW_UP = "What does that company sell?"
SITE = "https://noor.example"


def _settings(**serve: Any) -> Any:
    values = {"serve.rate_limit_per_minute": 0, **{f"serve.{k}": v for k, v in serve.items()}}
    return load_settings({"direct_answers": "any", **values}, config_file=None, environ={})


@pytest.fixture(scope="module")
def index(example_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("owner") / "index"
    shutil.copytree(example_index, target)
    return target


@pytest.fixture(scope="module")
def client(index: Path, engine: Engine) -> Iterator[httpx.Client]:
    settings = _settings(rate_limit_per_minute=0, starter_questions=[])
    with serve_in_thread(index, settings, engine) as url, httpx.Client(base_url=url) as http:
        yield http


def _turn(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "question": body.get("resolved_question") or body["question"],
        "answer": body["answer"],
        "cited": [c["id"] for c in body["citations"]],
    }


def test_every_answer_has_its_own_id_and_takes_feedback(client: httpx.Client, index: Path) -> None:
    first = client.post("/api/ask", json={"question": FIRST}).json()
    again = client.post("/api/ask", json={"question": FIRST}).json()
    AnswerModel.model_validate(first)
    assert first["id"] != again["id"] and len(first["id"]) == 16
    response = client.post(
        "/api/feedback",
        json={"id": first["id"], "rating": "down", "reason": "wrong", "text": "not idempotency"},
    )
    assert response.status_code == 202, response.text
    assert response.json() == {
        "id": first["id"],
        "rating": "down",
        "reason": "wrong",
        "recorded": True,
    }
    assert client.post("/api/feedback", json={"id": again["id"], "rating": "up"}).status_code == 202
    changed = client.post("/api/feedback", json={"id": again["id"], "rating": "down"})
    assert changed.status_code == 202, "the latest rating of an answer wins"
    client.get("/lab")  # flushes the log
    path = log_path(None, index)
    assert path is not None
    with QuestionLog(path) as store:
        rows = {a.id: a for a in store.asks()}
    assert (rows[first["id"]].rating, rows[first["id"]].feedback_reason) == ("down", "wrong")
    assert rows[first["id"]].feedback_text == "not idempotency"
    assert rows[again["id"]].rating == "down"
    assert rows[again["id"]].cache == "hit" and rows[first["id"]].outcome == "answered"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"id": "7" * 16, "rating": "up"}, 404, "unknown_answer"),
        ({"id": "not-an-id", "rating": "up"}, 422, "invalid_id"),
        ({"id": "7" * 16, "rating": "meh"}, 422, "invalid_rating"),
        ({"id": "7" * 16, "rating": "down", "reason": "boring"}, 422, "invalid_reason"),
        ({"id": "7" * 16, "rating": "up", "reason": "wrong"}, 422, "reason_without_down"),
        ({"id": "7" * 16, "rating": "down", "text": "x" * 501}, 422, "text_too_long"),
        ({"id": "7" * 16, "rating": "down", "stars": 5}, 422, "unknown_field"),
        (["up"], 400, "invalid_body"),
    ],
)
def test_bad_feedback_gets_an_error_naming_the_problem(
    client: httpx.Client, body: Any, status: int, code: str
) -> None:
    response = client.post("/api/feedback", json=body)
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


def test_a_follow_up_is_read_with_the_previous_turn(client: httpx.Client) -> None:
    first = client.post("/api/ask", json={"question": FIRST}).json()
    alone = client.post("/api/ask", json={"question": FOLLOW_UP}).json()
    followed = client.post(
        "/api/ask", json={"question": FOLLOW_UP, "history": [_turn(first)]}
    ).json()
    assert "furniture" not in alone["answer"], "alone, the question is about nothing in particular"
    assert "furniture" in followed["answer"]
    assert {c["id"].split("#")[0] for c in followed["citations"]} == {"work/checkout-rewrite"}
    assert followed["question"] == FOLLOW_UP
    assert FIRST in followed["resolved_question"]
    assert "resolved_question" not in alone


@pytest.mark.parametrize(
    "history",
    [
        "not a list",
        [{"question": 3}],
        [{"question": "q", "cited": "a#b"}],
        [{"question": "q", "when": "yesterday"}],
        [{"question": ""}],
    ],
)
def test_bad_history_is_a_422(client: httpx.Client, history: Any) -> None:
    response = client.post("/api/ask", json={"question": FOLLOW_UP, "history": history})
    assert response.status_code == 422
    assert response.json()["error"]["code"] in (
        "invalid_history",
        "question_not_string",
        "empty_question",
    )


def test_starter_questions_are_made_from_the_site_and_answered(
    client: httpx.Client, engine: Engine
) -> None:
    questions = client.get("/api/starters").json()["questions"]
    assert 1 <= len(questions) <= 4
    assert questions[0] == "Who is Noor Haddad?"  # answered from the profile
    for question in questions:
        assert client.post("/api/ask", json={"question": question}).json()["refused"] is False


def test_the_owners_starter_questions_win(index: Path, engine: Engine) -> None:
    mine = ["What does Noor do?", "Where is she based?"]
    with serve_in_thread(index, _settings(starter_questions=mine), engine) as url:
        assert httpx.get(f"{url}/api/starters").json() == {"questions": mine}


def test_asks_from_other_origins_are_refused(index: Path, engine: Engine) -> None:
    settings = _settings(allowed_origins=[SITE + "/"], cors_origins=[SITE])
    with serve_in_thread(index, settings, engine) as url, httpx.Client(base_url=url) as http:
        ok = http.post("/api/ask", json={"question": FIRST}, headers={"Origin": SITE})
        assert ok.status_code == 200
        own = http.post("/api/ask", json={"question": FIRST}, headers={"Origin": url})
        assert own.status_code == 200, "the server's own pages may ask"
        for origin in ("https://evil.example", "https://noor.example.evil.example", None):
            headers = {"Origin": origin} if origin else {}
            refused = http.post("/api/ask", json={"question": FIRST}, headers=headers)
            assert refused.status_code == 403
            assert refused.json()["error"]["code"] == "origin_not_allowed"
            assert SITE in refused.json()["error"]["message"]
        feedback = http.post(
            "/api/feedback",
            json={"id": ok.json()["id"], "rating": "up"},
            headers={"Origin": "https://evil.example"},
        )
        assert feedback.status_code == 403


def test_feedback_is_rate_limited_like_asks(index: Path, engine: Engine) -> None:
    with serve_in_thread(index, _settings(rate_limit_per_minute=3), engine) as url:
        answer_id = httpx.post(f"{url}/api/ask", json={"question": FIRST}).json()["id"]
        codes = [
            httpx.post(f"{url}/api/feedback", json={"id": answer_id, "rating": "up"}).status_code
            for _ in range(5)
        ]
    assert codes[:3] == [202, 202, 202] and codes[3:] == [429, 429]


def test_feedback_without_a_log_says_it_is_not_recorded(index: Path, engine: Engine) -> None:
    with serve_in_thread(index, _settings(log=""), engine) as url:
        answer_id = httpx.post(f"{url}/api/ask", json={"question": FIRST}).json()["id"]
        response = httpx.post(f"{url}/api/feedback", json={"id": answer_id, "rating": "up"})
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_recorded"
        assert httpx.get(f"{url}/api/health").json()["question_log"] is False


def test_past_the_daily_budget_answers_come_from_the_extractive_generator(
    index: Path, engine: Engine
) -> None:
    questions = (
        "How many components are in Kestrel Bank's design system?",
        "Which city and country is she based in?",
        "Who was the Head of Data at Quayline Logistics?",
    )
    with ScriptedLLM(quoting("62")) as provider:
        llm = llm_engine(engine, provider)
        settings = _settings(daily_llm_budget="1 calls", log="")
        with serve_in_thread(index, settings, llm) as url:
            first = httpx.post(f"{url}/api/ask", json={"question": questions[0]}).json()
            health = httpx.get(f"{url}/api/health").json()
            later = [
                httpx.post(f"{url}/api/ask", json={"question": q}).json() for q in questions[1:]
            ]
    HealthModel.model_validate(health)
    assert first["generator"].startswith("llm") and "62" in first["answer"]
    assert health["llm_budget"] == {
        "limit": 1,
        "unit": "calls",
        "used": 1,
        "exhausted": True,
        "day": health["llm_budget"]["day"],
    }
    assert [body["generator"] for body in later] == ["extractive", "extractive"]
    assert len(provider.requests) == 1, "no call past the budget"
