"""The HTTP API over real HTTP: a uvicorn server on 127.0.0.1 with a free port, in a thread."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import EXAMPLE_QUESTIONS, EXAMPLE_SITE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitecite.cli import main
from sitecite.config import Settings, load_settings
from sitecite.embed import HashEmbedder
from sitecite.errors import ProviderError
from sitecite.index.build import build_index
from sitecite.pipeline import Engine, answer
from sitecite.serve.openapi import AnswerModel, ErrorModel, HealthModel
from sitecite.serve.server import serve_in_thread

ANSWERABLE = (
    "Which city and country is she based in?",
    "How many components are in Kestrel Bank's design system?",
    "Who was the Head of Data at Quayline Logistics?",
)
UNANSWERABLE = (
    "What's the capital of Peru?",
    "How old is Noor?",
    "Who won the 2018 FIFA World Cup?",
)
ORIGIN = "https://noor.example"


def serve_settings(**serve: Any) -> Settings:
    return load_settings(
        {f"serve.{key}": value for key, value in serve.items()}, config_file=None, environ={}
    )


def expected(engine: Engine, question: str) -> dict[str, Any]:
    """What the pipeline itself says, without the timing that differs run to run."""
    result = answer(engine, question)[0].to_json()
    result.pop("latency_ms")
    return result


def without_latency(body: dict[str, Any]) -> dict[str, Any]:
    """The body without what differs per request: the timing and the answer's own id."""
    return {key: value for key, value in body.items() if key not in ("latency_ms", "id")}


@pytest.fixture(scope="module")
def server(example_index: Path, engine: Engine) -> Iterator[str]:
    settings = serve_settings(rate_limit_per_minute=0, cors_origins=[ORIGIN], max_body_bytes=4096)
    with serve_in_thread(example_index, settings, engine) as url:
        yield url


@pytest.fixture(scope="module")
def client(server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server, timeout=30) as http:
        yield http


def test_answers_are_the_pipelines_answers_with_citations(
    client: httpx.Client, engine: Engine
) -> None:
    answered = 0
    for question in ANSWERABLE:
        response = client.post("/api/ask", json={"question": question})
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        body = response.json()
        assert without_latency(body) == expected(engine, question)
        AnswerModel.model_validate(body)
        assert body["score_label"] == "mean cosine similarity of the cited sections"
        if not body["refused"]:
            answered += 1
            assert "[1]" in body["answer"] and body["citations"]
            urls = {section.url for section in engine.index.sections}
            assert all(citation["url"] in urls for citation in body["citations"])
    assert answered, f"none of {ANSWERABLE} was answered; the example site should answer these"


def test_refusals_are_answers_with_refused_true(client: httpx.Client, engine: Engine) -> None:
    refused = 0
    for question in UNANSWERABLE:
        response = client.post("/api/ask", json={"question": question})
        assert response.status_code == 200
        body = response.json()
        assert without_latency(body) == expected(engine, question)
        refused += body["refused"]
        if body["outcome"] == "refused":
            assert body["citations"] == [] and "doesn't say" in body["answer"]
        elif body["outcome"] == "pointed":  # no direct answer: the closest sections cited
            assert body["refused"] and body["refusal_reason"] == "no_direct_answer"
            assert body["citations"] and all(c["quotes"] for c in body["citations"])
    assert refused, f"none of {UNANSWERABLE} was refused"


def test_health_names_the_index(client: httpx.Client, engine: Engine) -> None:
    health = client.get("/api/health").json()
    assert health["index_id"] == engine.index.id and health["sections"] == len(
        engine.index.sections
    )
    assert health["embedder"] == engine.embedder.id and health["threshold"] == pytest.approx(
        engine.threshold, abs=1e-4
    )
    schema = client.get("/openapi.json").json()
    assert {"/api/ask", "/api/health"} <= set(schema["paths"])
    body = schema["paths"]["/api/ask"]["post"]["requestBody"]["content"]["application/json"]
    request_model = schema["components"]["schemas"][body["schema"]["$ref"].rsplit("/", 1)[1]]
    assert request_model["properties"]["question"]["maxLength"] == 500
    assert {"200", "400", "413", "415", "422", "429"} <= set(
        schema["paths"]["/api/ask"]["post"]["responses"]
    )
    HealthModel.model_validate(health)


def test_repeated_questions_come_from_the_cache(client: httpx.Client) -> None:
    question = "What time zone should I assume when scheduling a call with her?"
    first = client.post("/api/ask", json={"question": question})
    again = client.post("/api/ask", json={"question": f"  {question.replace(' ', '   ')}\n"})
    assert first.headers["x-sitecite-cache"] in ("miss", "hit")
    assert again.headers["x-sitecite-cache"] == "hit"
    first_body, again_body = first.json(), again.json()
    assert first_body.pop("id") != again_body.pop("id"), "every answer served has its own id"
    assert again_body == first_body
    started = time.perf_counter()
    for _ in range(20):
        assert (
            client.post("/api/ask", json={"question": question}).headers["x-sitecite-cache"]
            == "hit"
        )
    assert (time.perf_counter() - started) / 20 < 0.05, (
        "a cached answer should cost (almost) nothing"
    )


LONG = "x" * 501
BAD_REQUESTS: list[tuple[str, dict[str, str], bytes, int, str]] = [
    ("not JSON", {"content-type": "application/json"}, b"question=hi", 400, "invalid_json"),
    (
        "truncated JSON",
        {"content-type": "application/json"},
        b'{"question": "hi"',
        400,
        "invalid_json",
    ),
    ("empty body", {"content-type": "application/json"}, b"", 400, "empty_body"),
    ("array", {"content-type": "application/json"}, b'["hi"]', 400, "invalid_body"),
    ("string", {"content-type": "application/json"}, b'"hi"', 400, "invalid_body"),
    (
        "invalid UTF-8",
        {"content-type": "application/json"},
        b'{"question": "caf\xc3\x28"}',
        400,
        "invalid_utf8",
    ),
    ("no content type", {}, b'{"question": "hi"}', 415, "unsupported_media_type"),
    (
        "form content type",
        {"content-type": "application/x-www-form-urlencoded"},
        b"question=hi",
        415,
        "unsupported_media_type",
    ),
    (
        "text content type",
        {"content-type": "text/plain"},
        b'{"question": "hi"}',
        415,
        "unsupported_media_type",
    ),
    (
        "latin-1 charset",
        {"content-type": "application/json; charset=iso-8859-1"},
        b'{"question": "hi"}',
        415,
        "unsupported_charset",
    ),
    ("missing question", {"content-type": "application/json"}, b"{}", 422, "missing_question"),
    (
        "unknown field",
        {"content-type": "application/json"},
        b'{"question": "hi", "k": 100}',
        422,
        "unknown_field",
    ),
    (
        "number",
        {"content-type": "application/json"},
        b'{"question": 42}',
        422,
        "question_not_string",
    ),
    (
        "null",
        {"content-type": "application/json"},
        b'{"question": null}',
        422,
        "question_not_string",
    ),
    (
        "list",
        {"content-type": "application/json"},
        b'{"question": ["hi"]}',
        422,
        "question_not_string",
    ),
    (
        "object",
        {"content-type": "application/json"},
        b'{"question": {"text": "hi"}}',
        422,
        "question_not_string",
    ),
    ("empty", {"content-type": "application/json"}, b'{"question": ""}', 422, "empty_question"),
    (
        "blank",
        {"content-type": "application/json"},
        b'{"question": "  \\t\\n "}',
        422,
        "empty_question",
    ),
    (
        "too long",
        {"content-type": "application/json"},
        json.dumps({"question": LONG}).encode(),
        422,
        "question_too_long",
    ),
    (
        "lone surrogate",
        {"content-type": "application/json"},
        b'{"question": "\\udfff?"}',
        422,
        "invalid_question",
    ),
    (
        "oversized body",
        {"content-type": "application/json"},
        json.dumps({"question": "x" * 5000}).encode(),
        413,
        "body_too_large",
    ),
]


@pytest.mark.parametrize(
    ("case", "headers", "body", "status", "code"),
    BAD_REQUESTS,
    ids=[case[0] for case in BAD_REQUESTS],
)
def test_every_bad_request_is_a_4xx_json_error_naming_the_problem(
    client: httpx.Client, case: str, headers: dict[str, str], body: bytes, status: int, code: str
) -> None:
    response = client.post("/api/ask", content=body, headers=headers)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error = ErrorModel.model_validate(response.json()).error
    assert error.code == code and len(error.message) > 8


def test_oversized_chunked_body_and_routing_errors_are_json_too(client: httpx.Client) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"question": "'
        for _ in range(10):
            yield b"x" * 1000
        yield b'"}'

    response = client.post(
        "/api/ask", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413 and response.json()["error"]["code"] == "body_too_large"
    for method, path, status in (
        ("GET", "/api/ask", 405),
        ("PUT", "/api/ask", 405),
        ("GET", "/api/nothing", 404),
        ("POST", "/api/health", 405),
        ("GET", "/no/such/page", 404),
    ):
        response = client.request(method, path)
        assert response.status_code == status
        assert response.json()["error"]["code"] in ("method_not_allowed", "not_found")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.one_of(
        st.binary(max_size=300),
        st.builds(lambda q: json.dumps({"question": q}).encode(), st.text(max_size=120)),
        st.builds(
            lambda q: json.dumps({"question": q}, ensure_ascii=False).encode(
                "utf-8", "surrogatepass"
            ),
            st.text(max_size=60),
        ),
        st.builds(
            lambda v: json.dumps(v).encode(),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                lambda inner: (
                    st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(["question", "q"]), inner, max_size=2)
                ),
                max_leaves=6,
            ),
        ),
    ),
    content_type=st.sampled_from(
        ["application/json", "application/json; charset=utf-8", "text/plain"]
    ),
)
def test_no_input_ever_produces_a_server_error(
    client: httpx.Client, body: bytes, content_type: str
) -> None:
    response = client.post("/api/ask", content=body, headers={"content-type": content_type})
    assert response.status_code < 500, response.text
    data = response.json()
    if response.status_code == 200:
        assert isinstance(data["refused"], bool) and isinstance(data["answer"], str)
    else:
        assert (
            400 <= response.status_code < 500 and data["error"]["code"] and data["error"]["message"]
        )


def test_rate_limit_gives_429_with_a_retry_after_that_is_enough(
    example_index: Path, engine: Engine
) -> None:
    question = {"question": "How old is Noor?"}
    with serve_settings_server(example_index, engine, rate_limit_per_minute=60) as http:
        statuses = [http.post("/api/ask", json=question) for _ in range(61)]
        assert all(r.status_code == 200 for r in statuses[:60]), [r.status_code for r in statuses]
        limited = statuses[60]
        assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
        assert limited.headers["retry-after"] == "1"  # 60 a minute: a token a second
        time.sleep(int(limited.headers["retry-after"]))
        assert http.post("/api/ask", json=question).status_code == 200
    with serve_settings_server(example_index, engine, rate_limit_per_minute=3) as http:
        for _ in range(3):
            assert http.post("/api/ask", json=question).status_code == 200
        limited = http.post("/api/ask", json=question)
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) in (
            19,
            20,
        )  # 20 s per token
        assert limited.headers["ratelimit-remaining"] == "0"
        spoofed = http.post("/api/ask", json=question, headers={"x-forwarded-for": "203.0.113.9"})
        assert spoofed.status_code == 429, "X-Forwarded-For from an untrusted peer must be ignored"
        assert http.post("/api/ask", content=b"junk").status_code == 429, "bad requests count too"


def test_trusted_proxy_header_decides_the_client(example_index: Path, engine: Engine) -> None:
    question = {"question": "How old is Noor?"}
    with serve_settings_server(
        example_index,
        engine,
        rate_limit_per_minute=2,
        trusted_proxies=["127.0.0.1"],
        proxy_header="x-real-ip",
    ) as http:
        first = {"x-real-ip": "198.51.100.1"}
        assert [
            http.post("/api/ask", json=question, headers=first).status_code for _ in range(3)
        ] == [200, 200, 429]
        assert (
            http.post("/api/ask", json=question, headers={"x-real-ip": "198.51.100.2"}).status_code
            == 200
        )


class serve_settings_server:  # noqa: N801 - used like a function
    """A server with its own settings, and a client for it."""

    def __init__(self, index: Path, engine: Engine, **serve: Any) -> None:
        self.server = serve_in_thread(index, serve_settings(**serve), engine)

    def __enter__(self) -> httpx.Client:
        url = self.server.__enter__()
        self.client = httpx.Client(base_url=url, timeout=30)
        return self.client

    def __exit__(self, *exc: object) -> None:
        self.client.close()
        self.server.__exit__(*exc)


def test_cors_allows_listed_origins_only(client: httpx.Client) -> None:
    preflight = {
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
    }
    allowed = client.options("/api/ask", headers={"origin": ORIGIN, **preflight})
    assert allowed.status_code == 204
    assert allowed.headers["access-control-allow-origin"] == ORIGIN
    assert "POST" in allowed.headers["access-control-allow-methods"]
    assert "content-type" in allowed.headers["access-control-allow-headers"]
    refused = client.options("/api/ask", headers={"origin": "https://evil.example", **preflight})
    assert (
        refused.status_code == 403 and refused.json()["error"]["code"] == "cors_origin_not_allowed"
    )
    assert "access-control-allow-origin" not in refused.headers

    asked = client.post(
        "/api/ask", json={"question": "How old is Noor?"}, headers={"origin": ORIGIN}
    )
    assert asked.headers["access-control-allow-origin"] == ORIGIN
    assert "Retry-After" in asked.headers["access-control-expose-headers"]
    assert "Origin" in asked.headers["vary"]
    other = client.post(
        "/api/ask",
        json={"question": "How old is Noor?"},
        headers={"origin": "https://evil.example"},
    )
    assert other.status_code == 200 and "access-control-allow-origin" not in other.headers
    error = client.post(
        "/api/ask", content=b"{", headers={"origin": ORIGIN, "content-type": "application/json"}
    )
    assert error.status_code == 400 and error.headers["access-control-allow-origin"] == ORIGIN


def test_pages_are_served_with_the_widget(client: httpx.Client, engine: Engine) -> None:
    home = client.get("/")
    assert home.status_code == 200 and "text/html" in home.headers["content-type"]
    assert "script-src 'self'" in home.headers["content-security-policy"]
    assert '<script src="/widget.js"' in home.text and "Noor Haddad" in home.text
    widget = client.get("/widget.js")
    assert widget.status_code == 200 and "javascript" in widget.headers["content-type"]
    assert "customElements.define" in widget.text and "innerHTML = TEMPLATE" in widget.text
    assert client.get("/favicon.ico").headers["content-type"] == "image/svg+xml"
    how = client.get("/how")
    assert how.status_code == 200 and "<svg" in how.text and engine.index.id in how.text
    assert "rate_limit_per_minute" not in how.text, "no setting on the public page"
    cited = engine.index.sections[1]
    page = client.get(cited.url.split("#")[0])
    assert page.status_code == 200 and f'id="{cited.url.split("#")[1]}"' in page.text


def test_lab_is_rendered_once_per_run_rate_limited_and_shows_no_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "site" / "index"
    build_index(EXAMPLE_SITE, index, HashEmbedder(64))
    questions = json.loads(EXAMPLE_QUESTIONS.read_text())
    subset = tmp_path / "questions.json"
    subset.write_text(json.dumps({**questions, "questions": questions["questions"][:3]}))
    monkeypatch.setenv("SITECITE_EMBEDDER", "hash-64")
    monkeypatch.chdir(tmp_path)
    settings = serve_settings(rate_limit_per_minute=5)
    settings = settings.model_copy(update={"embedder": "hash-64"})
    with (
        serve_in_thread(index, settings, Engine.load(index, settings)) as url,
        httpx.Client(base_url=url, timeout=30) as http,
    ):
        empty = http.get("/lab")
        assert "No evaluation run yet" in empty.text and "--index DIR" in empty.text
        assert main(["eval", str(subset), "--index", str(index)]) == 0
        run = http.get("/lab")
        assert run.headers["x-sitecite-cache"] == "miss" and "index (" in run.text
        assert questions["questions"][0]["question"] in run.text
        assert str(tmp_path) not in run.text and "/site/index" not in run.text
        again = http.get("/lab")
        assert again.headers["x-sitecite-cache"] == "hit" and again.text == run.text
        assert main(["eval", "note", "latest", "a note from the test", "--index", str(index)]) == 0
        noted = http.get("/lab")
        assert noted.headers["x-sitecite-cache"] == "miss" and "a note from the test" in noted.text
        history = index.with_name("index.runs.sqlite")
        for leftover in history.parent.glob("index.runs.sqlite-*"):
            leftover.unlink()
        history.write_bytes(b"not a database, " * 100)
        broken = http.get("/lab")
        assert broken.status_code == 200 and "could not be shown" in broken.text
        assert "database" not in broken.text, "the exception's text stays in the log"
        limited = http.get("/lab")
        assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
        assert int(limited.headers["retry-after"]) >= 1


class FailingGenerator:
    """A generator whose provider is down (or that has a bug)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def generate(self, context: Any) -> Any:
        raise self.error


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (ProviderError("groq: 503 after 2 retries"), 503, "upstream_unavailable"),
        (RuntimeError("internal detail 7f3a"), 500, "internal_error"),
    ],
)
def test_a_failing_generator_is_a_json_5xx_not_a_crash(
    example_index: Path, engine: Engine, error: Exception, status: int, code: str
) -> None:
    broken = Engine.for_index(
        engine.index, engine.settings, engine.embedder, FailingGenerator(error)
    )
    settings = serve_settings(rate_limit_per_minute=0)
    with serve_in_thread(example_index, settings, broken) as url:
        response = httpx.post(f"{url}/api/ask", json={"question": ANSWERABLE[0]}, timeout=30)
        assert response.status_code == status
        assert response.json()["error"]["code"] == code
        assert "7f3a" not in response.text, "internal details stay in the log"
        assert httpx.get(f"{url}/api/health").status_code == 200, "and the server keeps serving"
