"""The LLM judge against a real HTTP server on 127.0.0.1 speaking chat completions: a valid
verdict, invalid JSON then a valid one, and a judge that never complies ("could not grade")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.scripted_llm import Reply, ScriptedLLM, Status
from sitecite.eval.cache import DiskCache
from sitecite.eval.judge import JUDGE_PROMPT_VERSION, Judge, make_judge, parse_verdict
from sitecite.generate.client import ChatClient
from sitecite.types import Section

VALID = {
    "faithful": True,
    "hallucinated_claims": [],
    "correctly_refused": None,
    "rationale": "supported",
}
CONTEXT = [
    Section("about#intro", "about", "About", "", "/about", "Noor lives in Lisbon.", "h1"),
    Section("uses#desk", "uses", "Uses", "Desk", "/uses#desk", "A 27-inch monitor.", "h2"),
]


@pytest.fixture()
def server() -> Any:
    with ScriptedLLM(default=Reply("not json at all")) as scripted:
        yield scripted


def judge_for(server: ScriptedLLM, cache: DiskCache | None = None) -> Judge:
    client = ChatClient(server.base_url, "judge-model", timeout=5.0, retries=0)
    return Judge(client, cache=cache, base_url=server.base_url)


def test_a_valid_verdict_in_one_call(server: ScriptedLLM) -> None:
    server.push(Reply(json.dumps(VALID), prompt_tokens=200, output_tokens=30))
    outcome = judge_for(server).grade(
        "Where does she live?", CONTEXT, "In Lisbon. [1]", refused=False
    )
    assert outcome["verdict"] == VALID and outcome["attempts"] == 1
    assert outcome["tokens"] == {"prompt": 200, "output": 30}
    body = server.requests[0]
    assert body["temperature"] == 0.0 and body["model"] == "judge-model"
    user = body["messages"][-1]["content"]
    assert '<source n="1" title="About" heading="">\nNoor lives in Lisbon.\n</source>' in user
    assert (
        '<source n="2" title="Uses" heading="Desk">' in user and "ANSWER:\nIn Lisbon. [1]" in user
    )


def test_invalid_json_then_valid_is_retried(server: ScriptedLLM) -> None:
    wrong_type = {**VALID, "faithful": "yes"}
    server.push(
        Reply("Sure! Here is my verdict"),
        Reply(json.dumps(wrong_type)),
        Reply("```json\n" + json.dumps(VALID) + "\n```"),
    )
    outcome = judge_for(server).grade("q", CONTEXT, "a [1]", refused=False)
    assert outcome["verdict"] == VALID and outcome["attempts"] == 3
    retry = server.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "Sure! Here is my verdict"}
    assert "not valid" in retry[-1]["content"]
    assert "faithful" in server.requests[2]["messages"][-1]["content"]


def test_a_judge_that_never_complies_could_not_grade(server: ScriptedLLM) -> None:
    outcome = judge_for(server).grade("q", CONTEXT, "a", refused=False)
    assert "verdict" not in outcome and "no valid verdict after 3 attempts" in outcome["error"]
    assert len(server.requests) == 3


def test_a_provider_failure_could_not_grade(server: ScriptedLLM) -> None:
    server.push(Status(500), Status(500))
    outcome = judge_for(server).grade("q", CONTEXT, "a", refused=False)
    assert "judge provider failed" in outcome["error"]


def test_valid_verdicts_are_cached_by_model_and_prompt_version(
    server: ScriptedLLM, tmp_path: Any
) -> None:
    cache = DiskCache(tmp_path / "cache.sqlite")
    server.push(Reply(json.dumps(VALID)))
    first = judge_for(server, cache).grade("q", CONTEXT, "a [1]", refused=False)
    second = judge_for(server, cache).grade("q", CONTEXT, "a [1]", refused=False)
    assert len(server.requests) == 1 and not first["cached"] and second["cached"]
    assert second["verdict"] == VALID
    server.push(Reply(json.dumps(VALID)), Reply(json.dumps(VALID)))
    judge_for(server, cache).grade("q", CONTEXT, "another answer [1]", refused=False)
    assert len(server.requests) == 2  # different inputs: a new call
    other_model = Judge(ChatClient(server.base_url, "other-model", retries=0), cache=cache)
    assert not other_model.grade("q", CONTEXT, "a [1]", refused=False)["cached"]
    assert len(server.requests) == 3


def test_schema_is_strict() -> None:
    with pytest.raises(ValueError):
        parse_verdict(json.dumps({**VALID, "confidence": 0.9}))
    with pytest.raises(ValueError):
        parse_verdict(json.dumps({"faithful": True}))
    assert parse_verdict(json.dumps(VALID)).faithful is True


def test_make_judge_from_settings(server: ScriptedLLM) -> None:
    from sitecite.config import load_settings

    assert make_judge(load_settings({}, config_file=None, environ={}), None, None) is None
    settings = load_settings(
        {"judge.base_url": server.base_url, "judge.model": "judge-model", "judge.retries": 0},
        config_file=None,
        environ={},
    )
    judge = make_judge(settings, None, None)
    assert judge is not None
    assert judge.describe()["model"] == "judge-model"
    assert judge.describe()["prompt_version"] == JUDGE_PROMPT_VERSION
