"""The chat-completions client against a real local HTTP server: retries, Retry-After, timeouts,
dropped connections, token accounting and configuration errors."""

from __future__ import annotations

import pytest

from bench.scripted_llm import Drop, Hang, Reply, ScriptedLLM, Status
from sitecite.errors import ConfigError, ProviderError
from sitecite.generate.client import ChatClient, ChatError, parse_retry_after
from sitecite.generate.providers import parse_fallback, resolve_api_key, resolve_endpoint

MESSAGES = [{"role": "user", "content": "Say hello."}]


@pytest.fixture
def server():
    with ScriptedLLM() as running:
        yield running


def client(server: ScriptedLLM, **options) -> tuple[ChatClient, list[float]]:
    slept: list[float] = []
    options.setdefault("timeout", 2.0)
    return ChatClient(
        server.base_url, "scripted-model", "sk-test", sleep=slept.append, **options
    ), slept


def test_success_reports_usage_and_sends_the_request(server):
    server.push(Reply("hello", prompt_tokens=12, output_tokens=3))
    chat, _ = client(server)
    result = chat.complete(
        MESSAGES, temperature=0.2, max_tokens=50, json_mode=True, reasoning_effort="low"
    )
    assert (result.text, result.prompt_tokens, result.output_tokens) == ("hello", 12, 3)
    assert not result.tokens_estimated
    assert [a["status"] for a in result.attempts] == [200]
    body = server.requests[0]
    assert body["model"] == "scripted-model" and body["max_tokens"] == 50
    assert body["response_format"] == {"type": "json_object"} and body["reasoning_effort"] == "low"
    assert server.headers[0]["Authorization"] == "Bearer sk-test"


def test_missing_usage_is_estimated_and_flagged(server):
    server.push(Reply("a reply of some length", usage=False))
    result = client(server)[0].complete(MESSAGES)
    assert result.tokens_estimated and result.prompt_tokens > 0 and result.output_tokens > 0


def test_429_honours_retry_after_then_succeeds(server):
    server.push(Status(429, {"Retry-After": "1.5"}), Reply("ok"))
    chat, slept = client(server)
    result = chat.complete(MESSAGES)
    assert result.text == "ok" and slept == [1.5]
    assert [a["status"] for a in result.attempts] == [429, 200]
    assert result.attempts[0]["retry_after_s"] == 1.5


def test_retry_after_longer_than_the_cap_moves_on_at_once(server):
    server.push(Status(429, {"Retry-After": "120"}))
    chat, slept = client(server)
    with pytest.raises(ChatError) as caught:
        chat.complete(MESSAGES)
    assert slept == [] and caught.value.retry_after == 120 and caught.value.status == 429


def test_5xx_backs_off_with_jitter_and_gives_up_after_retries(server):
    server.push(Status(500), Status(502), Status(503))
    chat, slept = client(server, retries=2)
    with pytest.raises(ProviderError, match="HTTP 503"):
        chat.complete(MESSAGES)
    assert len(slept) == 2 and 0 <= slept[0] <= 0.5 and 0 <= slept[1] <= 1.0
    assert len(server.requests) == 3


def test_client_errors_are_not_retried(server):
    server.push(Status(401, message="invalid api key"))
    with pytest.raises(ChatError, match="invalid api key") as caught:
        client(server)[0].complete(MESSAGES)
    assert len(caught.value.attempts) == 1


def test_hang_past_the_timeout_is_a_retryable_failure(server):
    server.push(Hang(3.0), Reply("second time lucky"))
    chat, _ = client(server, timeout=0.3, retries=1)
    result = chat.complete(MESSAGES)
    assert result.text == "second time lucky"
    assert "timed out" in result.attempts[0]["error"]


def test_dropped_connection_is_a_retryable_failure(server):
    server.push(Drop(), Drop())
    chat, _ = client(server, retries=1)
    with pytest.raises(ChatError, match="connection failed") as caught:
        chat.complete(MESSAGES)
    assert [a["status"] for a in caught.value.attempts] == [None, None]


def test_json_mode_rejected_by_provider_is_dropped(server):
    server.push(Status(400, message="response_format is not supported"), Reply("{}"))
    chat, slept = client(server)
    assert chat.complete(MESSAGES, json_mode=True).text == "{}"
    assert "response_format" in server.requests[0] and "response_format" not in server.requests[1]
    assert slept == []


def test_retry_after_parses_seconds_and_dates():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == pytest.approx(
        10.0
    )
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


@pytest.mark.parametrize(
    ("base_url", "model", "message"),
    [
        ("api.groq.com/openai/v1", "m", "not an http"),
        ("ftp://example.com/v1", "m", "not an http"),
        ("https://example.com/v1", "", "model name is required"),
    ],
)
def test_bad_configuration_is_a_config_error(base_url, model, message):
    with pytest.raises(ConfigError, match=message):
        ChatClient.from_settings(base_url, model, environ={})


def test_missing_key_variables_are_config_errors():
    with pytest.raises(ConfigError, match="GROQ_API_KEY"):
        resolve_api_key("https://api.groq.com/openai/v1", environ={})
    with pytest.raises(ConfigError, match="MY_KEY is not set"):
        resolve_api_key("http://127.0.0.1:9/v1", api_key_env="MY_KEY", environ={})
    assert resolve_api_key("https://api.openai.com/v1", environ={"OPENAI_API_KEY": "k"}) == "k"
    assert resolve_api_key("http://127.0.0.1:11434/v1", environ={}) == ""


def test_fallback_specs_and_unknown_providers():
    assert parse_fallback("gemini:gemini-2.5-flash", 0)["base_url"].startswith(
        "https://generativelanguage"
    )
    assert parse_fallback("http://127.0.0.1:8080/v1|local", 1) == {
        "base_url": "http://127.0.0.1:8080/v1",
        "model": "local",
    }
    with pytest.raises(ConfigError, match="unknown provider 'nope'"):
        parse_fallback("nope:model", 0)
    with pytest.raises(ConfigError, match="unknown field"):
        resolve_endpoint(
            {"base_url": "http://127.0.0.1:1/v1", "model": "m", "colour": "red"}, "llm", {}
        )
