"""Any reply a provider can send becomes a repair, a refusal or a verified answer, never an
exception: property tests over arbitrary JSON values and text, through `parse_reply`, the
reply path (`present`), the HTTP server and an evaluation run; and the verification benchmark
on model-written replies writes what a visitor would see."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import REPO, run_module, shared_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.scripted_llm import Reply, ScriptedLLM, answer_json
from sitecite.config import load_settings
from sitecite.eval import RunStore, load_question_set
from sitecite.eval.runner import Runner
from sitecite.generate.parse import ModelReply, parse_reply
from sitecite.generate.reply import ReplyContext, present
from sitecite.pipeline import Engine
from sitecite.serve.openapi import AnswerModel
from sitecite.serve.server import serve_in_thread
from sitecite.types import Section
from sitecite.verify import Lexicon, Verifier, build_evidence

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["answer", "Answer", "citations", "sentences", "cites", "source", "quote", "x"]
            )
            | st.text(max_size=8),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)
# Replies shaped like the ones asked for (quoted, and the older unquoted), any value in a field.
CITES = st.lists(
    st.fixed_dictionaries({"source": JSON, "quote": JSON})
    | st.fixed_dictionaries({"source": st.integers(-1, 4), "quote": st.text(max_size=30)}),
    max_size=3,
)
QUOTED_OBJECTS = st.fixed_dictionaries(
    {
        "sentences": st.lists(
            st.fixed_dictionaries({"text": JSON | st.text(max_size=40), "cites": CITES | JSON}),
            max_size=3,
        )
        | JSON,
        "not_on_site": JSON,
    }
)
REPLY_OBJECTS = st.fixed_dictionaries({"answer": JSON, "citations": JSON}) | QUOTED_OBJECTS
TEXT = st.text(max_size=200) | st.sampled_from(
    [
        '```json\n{"answer": "Lumen has 62 components [1].", "citations": [1],}\n```',
        "Sure! {“answer”: “Lumen has 62 components [1].”, “citations”: [1]}",
        "Lumen has 62 components [1].",
        '{"answer": ["Lumen has", "62 components [1]."], "citations": "1, 2"}',
        '[{"answer": "Lumen has 62 components [1].", "citations": 5}]',
        "NOT_ON_SITE.",
        "{" * 5000,
    ]
)


@given(st.one_of(JSON.map(json.dumps), REPLY_OBJECTS.map(json.dumps), TEXT))
@settings(max_examples=400, deadline=None)
def test_parse_reply_reads_any_json_value_or_text(raw: str) -> None:
    reply = parse_reply(raw)
    assert reply is None or isinstance(reply, ModelReply)
    if reply is not None:
        assert isinstance(reply.answer, str)
        assert all(isinstance(n, int) and not isinstance(n, bool) for n in reply.citations)


def test_parse_reply_repairs_the_usual_slips() -> None:
    wanted = ("Lumen has 62 components [1].", (1,))
    for raw in (
        '{"answer": "Lumen has 62 components [1].", "citations": 1}',
        '{"answer": "Lumen has 62 components [1].", "citations": "[1]"}',
        '{"Answer": "Lumen has 62 components [1].", "citations": [1, true, null, 1]}',
        '```json\n{"answer": "Lumen has 62 components [1].", "citations": [1],}\n```',
        "Lumen has 62 components [1].",
    ):
        reply = parse_reply(raw)
        assert reply is not None and (reply.answer, reply.citations[:1]) == wanted, raw
    assert parse_reply("I cannot help with that.") is None
    assert parse_reply('{"answer": null}') is None


@pytest.fixture(scope="module")
def reply_context(embedder: Any) -> ReplyContext:
    sections = [
        Section(
            "a",
            "a",
            "Lumen",
            "Results",
            "",
            "Lumen has 62 components.",
            "1",
            ("Lumen has 62 components.",),
        ),
        Section("b", "b", "About", "", "", "She lives in Lisbon.", "2", ("She lives in Lisbon.",)),
    ]
    words = ["lumen", "components", "lives", "lisbon", "results"]
    lexicon = Lexicon({w: i for i, w in enumerate(words)}, embedder.embed(words))
    question = "How many components does Lumen have?"
    return ReplyContext(
        question, sections, build_evidence(sections, lexicon, frozenset(), question)
    )


@given(st.one_of(JSON.map(json.dumps), REPLY_OBJECTS.map(json.dumps), TEXT))
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_the_reply_path_never_raises_and_never_shows_an_uncited_claim(
    reply_context: ReplyContext, raw: str
) -> None:
    for policy in ("drop", "refuse"):
        shown = present(raw, reply_context, Verifier(), policy)
        assert shown.refused or shown.cited, shown
        assert all(0 <= p < len(reply_context.sections) for p in shown.cited)


@pytest.fixture(scope="module")
def llm_server() -> Iterator[ScriptedLLM]:
    with ScriptedLLM(Reply(answer_json("NOT_ON_SITE", []))) as server:
        yield server


def llm_engine(engine: Engine, server: ScriptedLLM) -> Engine:
    flags = {
        "generator": "llm",
        "llm.base_url": server.base_url,
        "llm.model": "scripted",
        "llm.retries": 0,
        "llm.timeout_seconds": 5.0,
        "serve.rate_limit_per_minute": 0,
        "serve.cache_ttl_seconds": 0,
    }
    settings_ = load_settings(flags, config_file=None, environ={})
    return Engine.for_index(engine.index, settings_, engine.embedder)


@pytest.fixture(scope="module")
def llm_url(example_index: Path, engine: Engine, llm_server: ScriptedLLM) -> Iterator[str]:
    llm = llm_engine(engine, llm_server)
    with serve_in_thread(example_index, llm.settings, llm) as url:
        yield url


@given(st.one_of(JSON.map(json.dumps), REPLY_OBJECTS.map(json.dumps), TEXT))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_the_server_never_answers_500_whatever_the_model_replies(
    llm_url: str, llm_server: ScriptedLLM, raw: str
) -> None:
    llm_server.reset(Reply(raw))
    response = httpx.post(
        f"{llm_url}/api/ask", json={"question": "How many components does Lumen have?"}, timeout=30
    )
    assert response.status_code == 200, response.text
    body = AnswerModel.model_validate(response.json())
    assert body.refused or body.citations


def test_an_evaluation_run_never_aborts_on_a_reply(
    engine: Engine, llm_server: ScriptedLLM, tmp_path: Path
) -> None:
    replies = iter(
        [
            '{"answer": "Lumen has 62 components [1].", "citations": 5}',
            "[]",
            '{"answer": {"text": 1}}',
            "null",
            '"just a string"',
            "{" * 3000,
        ]
    )
    llm_server.reset(lambda body: Reply(next(replies, "NOT_ON_SITE")))
    questions = load_question_set(REPO / "examples" / "questions.json")
    answerable = tuple(q for q in questions.questions if q.category == "fact")[:6]
    questions = dataclasses.replace(questions, questions=answerable)
    llm = llm_engine(engine, llm_server)
    with RunStore.for_index(tmp_path / "index") as store:
        report = Runner(llm, store).run(questions)
    assert len(report.questions) == 6 and len(llm_server.requests) >= 6


def test_the_benchmark_writes_what_a_visitor_sees(tmp_path: Path) -> None:
    data = shared_data("verification", "example-site.jsonl")
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(data.read_text(encoding="utf-8").splitlines(keepends=True)[:6]))
    out = tmp_path / "shown.jsonl"
    run = run_module("bench.verify_replies", sample, "--out", out, "--json")
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    records = [json.loads(line) for line in sample.read_text().splitlines()]
    assert [line["id"] for line in lines] == [r["id"] for r in records]
    assert all(set(line) == {"id", "shown", "refused"} and line["shown"] for line in lines)
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    figures = summary["files"]["sample.jsonl"]
    assert set(figures) >= {"dev", "test", "all"}
    assert figures["all"]["answers"] == len(records)
    assert figures["all"]["verify_ms"]["p95"] > 0


def quoted_records(record: dict[str, Any]) -> list[dict[str, Any]]:
    """A faithful quoted reply to a recorded prompt (its first source's first sentence, quoted
    whole with a slip: lower case) and a sloppy one whose only sentence quotes words in no
    source."""
    source = record["sources"][0]
    first = source["text"].splitlines()[0]
    quote = " ".join(first.rstrip(".").split()[:25]).lower()
    faithful = {"text": first, "cites": [{"source": source["n"], "quote": quote}]}
    invented = {
        "text": "She won the Turing Award in 1999.",
        "cites": [{"source": source["n"], "quote": "won the Turing Award in 1999"}],
    }
    common = {k: record[k] for k in ("site", "question", "sources")}
    base = record["id"].rsplit("-", 1)[0]
    return [
        {
            **common,
            "id": f"{base}-faithful",
            "kind": "faithful",
            "reply": {"sentences": [faithful], "not_on_site": False},
            "sentences": [{"text": first, "supported": True, "meta": False, "quote_slip": "case"}],
        },
        {
            **common,
            "id": f"{base}-sloppy",
            "kind": "sloppy",
            "reply": {"sentences": [invented], "not_on_site": False},
            "sentences": [
                {"text": invented["text"], "supported": False, "error": "i", "why": "invented"}
            ],
        },
    ]


def test_the_benchmark_reads_quoted_replies_beside_unquoted_ones(tmp_path: Path) -> None:
    data = shared_data("verification", "example-site.jsonl")
    first = json.loads(data.read_text(encoding="utf-8").splitlines()[0])
    quoted = tmp_path / "quoted.jsonl"
    quoted.write_text("".join(json.dumps(r) + "\n" for r in quoted_records(first)))
    unquoted = tmp_path / "unquoted.jsonl"
    unquoted.write_text(json.dumps(first) + "\n")
    out = tmp_path / "shown.jsonl"
    run = run_module("bench.verify_replies", quoted, unquoted, "--out", out, "--json")
    shown = [json.loads(line) for line in out.read_text().splitlines()]
    assert [s["id"] for s in shown] == [r["id"] for r in quoted_records(first)] + [first["id"]]
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    figures = summary["files"]["quoted.jsonl"]["all"]
    assert figures["quoted_answers"] == 2 and figures["caught_by_kind"] == {"i": [1, 1]}
    assert figures["supported_dropped"] == 0 and figures["slipped_quotes"] == 1
    assert not shown[0]["refused"] and "[1]" in shown[0]["shown"]
    assert summary["files"]["unquoted.jsonl"]["all"]["quoted_answers"] == 0
