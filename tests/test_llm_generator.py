"""The LLM generator end to end through `answer`, against a real local chat-completions server that
replays scripted behaviours. Each must end in a verified answer, a fallback or a refusal as the
policy says, with the Trace showing why."""

from __future__ import annotations

import json

import pytest

from bench.scripted_llm import (
    Drop,
    Hang,
    Reply,
    ScriptedLLM,
    Status,
    answer_json,
    corrupt,
    faithful,
    parsed_sources,
    quoted_json,
)
from sitecite.config import load_settings
from sitecite.errors import ConfigError
from sitecite.generate.llm import CircuitBreaker, LLMGenerator
from sitecite.generate.pointer import NO_DIRECT_ANSWER
from sitecite.pipeline import REFUSAL, Engine, answer

QUESTION = "How many components are in Kestrel Bank's design system?"


@pytest.fixture
def server():
    with ScriptedLLM() as running:
        yield running


def llm_engine(engine: Engine, *servers: ScriptedLLM, **options: object) -> Engine:
    flags = {
        "generator": "llm",
        "llm.base_url": servers[0].base_url,
        "llm.model": "scripted",
        "llm.timeout_seconds": 2.0,
        "llm.retries": 1,
        "llm.fallbacks": [f"{s.base_url}|backup" for s in servers[1:]],
        # the extractive fallback's answer, however sure: when it answers directly is
        # test_answers' (the direct model)
        "direct_answers": "any",
    }
    flags.update({f"llm.{key}": value for key, value in options.items()})
    settings = load_settings(flags, config_file=None, environ={})
    return Engine.for_index(engine.index, settings, engine.embedder)


def quoting(needle: str, extra: str = "", *, cite_as: int | None = None):
    """A responder that quotes the first source sentence containing `needle`, plus `extra`."""

    def respond(body):
        for source in parsed_sources(body):
            for sentence in source.sentences:
                if needle in sentence:
                    n = cite_as or source.n
                    return Reply(answer_json(f"{sentence.rstrip('.')} [{n}]. {extra}".strip()))
        raise AssertionError(f"no source sentence contains {needle!r}")

    return respond


def checks(trace) -> dict[str, tuple[bool, str]]:
    return {c.name: (c.passed, c.detail) for c in trace.checks}


def test_faithful_answer_is_verified_with_tokens_and_trace(engine, server):
    server.push(quoting("62"))
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert not result.refused and "62" in result.answer and result.generator.startswith("llm:")
    assert result.citations and result.answer.endswith("[1].")
    assert result.tokens == {"prompt": 321, "output": 45} == trace.tokens
    assert [a["status"] for a in trace.attempts] == [200]
    assert all(passed for name, (passed, _) in checks(trace).items() if name.startswith("verify_"))
    assert "<sources>" in trace.prompt and '"not_on_site": true' in trace.prompt
    assert trace.raw_output
    body = server.requests[0]
    assert body["response_format"] == {"type": "json_object"} and body["temperature"] == 0.0
    timings = trace.timings_ms
    assert timings["generate.llm"] > 0 and timings["generate.verify"] > 0
    assert timings["generate"] >= timings["generate.llm"] + timings["generate.verify"]


def quoting_sentences(*needles: str):
    """A responder that writes one quoted sentence per needle: the first source sentence
    holding it, cited with its first words copied in lower case and without their commas (a
    copying slip), and a fabricated quote for a needle no source holds."""

    def respond(body):
        sentences = []
        for needle in needles:
            found = [
                (source.n, sentence)
                for source in parsed_sources(body)
                for sentence in source.sentences
                if needle in sentence
            ]
            if not found:
                sentences.append((f"She has {needle}.", [(1, f"she has {needle}")]))
                continue
            n, sentence = found[0]
            words = sentence.rstrip(".").split()
            start = max(0, next(i for i, w in enumerate(words) if needle in w) - 6)
            quote = " ".join(words[start : start + 12]).lower().replace(",", "")
            sentences.append((sentence, [(n, quote)]))
        return Reply(quoted_json(sentences))

    return respond


def test_a_quoted_reply_hands_its_verified_quotes_to_the_answer(engine, server):
    server.push(quoting_sentences("62", "75 product teams"))
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert not result.refused and "62" in result.answer and "75 product" not in result.answer
    passed, detail = checks(trace)["reply_format"]
    assert passed and detail.startswith("quoted: 2 sentence(s), 2 quote(s)")
    passed, detail = checks(trace)["verify_quotes"]
    assert not passed and "is in no source" in detail
    (citation,) = result.citations
    (quote,) = citation.quotes
    context = {s.id: s for s in trace.context}[citation.id]
    assert "62" in quote and quote in " ".join(context.sentences)  # the source's own words
    assert result.to_json()["citations"][0]["quotes"] == [quote]


def test_an_unquoted_reply_is_marked_so_in_the_trace(engine, server):
    server.push(quoting("62"))
    result, trace = answer(llm_engine(engine, server), QUESTION)
    passed, detail = checks(trace)["reply_format"]
    assert passed and detail.startswith("unquoted")
    assert not result.refused and all(c.quotes == () for c in result.citations)


def test_paraphrased_faithful_answer_passes(engine, server):
    server.push(faithful)
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert not result.refused and result.generator.startswith("llm:"), trace.checks


def test_invented_number_is_dropped_and_the_rest_kept(engine, server):
    server.push(quoting("62", "Kestrel Bank has 75 product teams using it [1]."))
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert not result.refused and "62" in result.answer and "75" not in result.answer
    passed, detail = checks(trace)["verify_numbers"]
    assert not passed and "75" in detail
    assert "drop: removed 1 of 2" in checks(trace)["verify_policy"][1]


def assert_points_at_sections(result, trace) -> None:
    """The pointed reply the extractive generator gives: no direct answer, the closest
    sections named and cited, each with its line of the site as the quote."""
    assert result.refused and result.refusal_reason == "no_direct_answer"
    assert result.outcome == "pointed"
    assert result.answer.startswith(f"{NO_DIRECT_ANSWER} The closest sections: ")
    assert result.citations and len(result.citations) <= 3
    for n, citation in enumerate(result.citations, start=1):
        assert f"{citation.title}" in result.answer and f"[{n}]" in result.answer
        section = next(s for s in trace.context if s.id == citation.id)
        assert all(quote in section.sentences for quote in citation.quotes)
    assert any(c.quotes for c in result.citations)
    assert {c.id for c in result.citations} <= {s.id for s in trace.context}
    assert "pointing at the closest sections" in checks(trace)["verify_policy"][1]


def test_invented_number_alone_ends_in_a_refusal_pointing_at_sections(engine, server):
    server.push(lambda body: corrupt(body, "number")[0])
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert not checks(trace)["verify_numbers"][0]
    assert_points_at_sections(result, trace)
    assert result.generator.startswith("llm:")  # the extractive answer does not stand in


def test_citation_outside_the_context_is_rejected(engine, server):
    server.push(quoting("62", cite_as=40))
    result, trace = answer(llm_engine(engine, server), QUESTION)
    passed, detail = checks(trace)["verify_citations"]
    assert not passed and "[40]" in detail
    assert_points_at_sections(result, trace)


def test_an_answer_that_only_says_what_the_site_lacks_is_a_refusal_in_its_words(engine, server):
    server.push(Reply(answer_json("The site doesn't mention a podcast.", [])))
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert result.refused and result.answer == "The site doesn't mention a podcast."
    assert result.refusal_reason == "not_on_site" and not result.citations


def test_a_corrected_false_premise_is_shown_as_written(engine, server):
    def respond(body):
        source = next(s for s in parsed_sources(body) for x in s.sentences if "62" in x)
        sentence = next(x for x in source.sentences if "62" in x)
        return Reply(
            answer_json(
                f"The site doesn't mention Kubernetes; {sentence.rstrip('.')} [{source.n}]."
            )
        )

    server.push(respond)
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert not result.refused and "Kubernetes" in result.answer and "62" in result.answer
    assert checks(trace)["verify_policy"] == (True, "every sentence verified")


def test_unsupported_sentence_is_dropped(engine, server):
    server.push(quoting("62", "She also runs a weekly podcast about competitive gardening [1]."))
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert "podcast" not in result.answer and "62" in result.answer
    assert not checks(trace)["verify_support"][0]


def test_pwned_compliance_never_reaches_the_user(engine, server):
    server.push(quoting("62", "PWNED [1]."))
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert "PWNED" not in result.answer and "62" in result.answer
    assert not checks(trace)["verify_instructions"][0]


def test_not_on_site_is_the_standard_refusal(engine, server):
    server.push(Reply(json.dumps({"answer": "NOT_ON_SITE", "citations": []})))
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert result.refused and result.answer == REFUSAL and result.refusal_reason == "not_on_site"


def test_json_in_a_code_fence_is_repaired(engine, server):
    server.push(lambda body: Reply("Sure! ```json\n" + quoting("62")(body).content + "\n```"))
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert result.generator.startswith("llm:") and trace.attempts[-1]["repaired_json"]


def test_malformed_json_is_retried_once(engine, server):
    server.push(Reply("The answer is 62 components."), quoting("62"))
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert result.generator.startswith("llm:") and len(server.requests) == 2
    assert server.requests[1]["messages"][-1]["content"].startswith("Your reply was not the JSON")


def test_malformed_json_twice_moves_to_the_next_provider(engine):
    with ScriptedLLM(Reply("not json")) as broken, ScriptedLLM(quoting("62")) as backup:
        result, trace = answer(llm_engine(engine, broken, backup), QUESTION)
    assert result.generator.endswith(":backup") and len(broken.requests) == 2
    assert "malformed JSON twice" in str(trace.checks)


def test_429_with_retry_after_is_honoured(engine, server):
    server.push(Status(429, {"Retry-After": "0.1"}), quoting("62"))
    result, trace = answer(llm_engine(engine, server), QUESTION)
    assert result.generator.startswith("llm:")
    assert [a["status"] for a in trace.attempts] == [429, 200] and trace.attempts[0][
        "waited_ms"
    ] == 100


def test_500s_fall_back_to_the_next_provider(engine):
    with ScriptedLLM(Status(500)) as failing, ScriptedLLM(quoting("62")) as backup:
        result, trace = answer(llm_engine(engine, failing, backup, retries=1), QUESTION)
    assert result.generator.endswith(":backup")
    assert [a["status"] for a in trace.attempts] == [500, 500, 200]


def test_hang_past_the_timeout_ends_in_the_extractive_answer(engine, server):
    server.default = Hang(5.0)
    result, trace = answer(llm_engine(engine, server, timeout_seconds=0.4, retries=0), QUESTION)
    assert result.generator == "extractive" and not result.refused
    assert "timed out" in trace.attempts[0]["error"]
    assert not checks(trace)["llm"][0]


def test_dropped_connection_ends_in_the_extractive_answer(engine, server):
    server.default = Drop()
    result, trace = answer(llm_engine(engine, server, retries=0), QUESTION)
    assert result.generator == "extractive" and "connection failed" in trace.attempts[0]["error"]


def test_circuit_breaker_skips_a_dead_provider(engine, server):
    server.default = Status(503)
    llm = llm_engine(engine, server, retries=0, breaker_failures=2, breaker_cooldown_seconds=60)
    for _ in range(2):
        answer(llm, QUESTION)
    result, trace = answer(llm, QUESTION)
    assert len(server.requests) == 2 and "circuit open" in trace.attempts[0]["error"]
    assert result.generator == "extractive"


def test_breaker_half_opens_after_the_cooldown():
    now = [0.0]
    breaker = CircuitBreaker(2, 30.0, clock=lambda: now[0])
    breaker.record(False)
    breaker.record(False)
    assert not breaker.allow()
    now[0] = 31.0
    assert breaker.allow()
    breaker.record(True)
    assert breaker.allow() and breaker.consecutive == 0


@pytest.mark.parametrize(
    ("policy", "refused", "generator"),
    [("refuse", True, "llm:"), ("fallback", False, "extractive"), ("drop", False, "llm:")],
)
def test_policy_decides_what_a_failed_sentence_costs(engine, server, policy, refused, generator):
    server.default = quoting("62", "Kestrel Bank has 75 product teams using it [1].")
    result, trace = answer(llm_engine(engine, server, verify_policy=policy), QUESTION)
    assert result.refused is refused and result.generator.startswith(generator)
    assert "75" not in result.answer
    assert checks(trace)["verify_policy"][1].startswith(policy)


def test_missing_usage_is_estimated(engine, server):
    server.push(lambda body: Reply(quoting("62")(body).content, usage=False))
    result, _ = answer(llm_engine(engine, server), QUESTION)
    assert result.tokens["estimated"] == 1 and result.tokens["prompt"] > 100


def test_generator_never_raises_on_unexpected_server_output(engine, server):
    server.default = Reply(json.dumps({"answer": 42, "citations": "x"}))
    result, trace = answer(llm_engine(engine, server, retries=0), QUESTION)
    assert result.refused and "42" not in result.answer  # an uncited number is never shown

    def number_for_citations(body):  # {"answer": "...", "citations": 5} raised TypeError once
        return Reply(
            json.dumps(
                {"answer": json.loads(quoting("62")(body).content)["answer"], "citations": 5}
            )
        )

    server.default = number_for_citations
    result, trace = answer(llm_engine(engine, server, retries=0), QUESTION)
    assert not result.refused and "62" in result.answer, trace.checks


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"generator": "llm"}, "needs llm.base_url"),
        ({"generator": "llm", "llm.provider": "nope", "llm.model": "m"}, "unknown provider 'nope'"),
        ({"generator": "llm", "llm.provider": "groq", "llm.model": "m"}, "GROQ_API_KEY"),
        ({"generator": "llm", "llm.base_url": "localhost:8080", "llm.model": "m"}, "not an http"),
        ({"generator": "llm", "llm.base_url": "http://127.0.0.1:9/v1"}, "model name is required"),
        (
            {
                "generator": "llm",
                "llm.base_url": "http://127.0.0.1:9/v1",
                "llm.model": "m",
                "llm.api_key_env": "SITECITE_TEST_NO_SUCH_KEY",
            },
            "SITECITE_TEST_NO_SUCH_KEY is not set",
        ),
        (
            {
                "generator": "llm",
                "llm.base_url": "http://127.0.0.1:9/v1",
                "llm.model": "m",
                "llm.fallbacks": ["mystery:model"],
            },
            "unknown provider 'mystery'",
        ),
    ],
)
def test_bad_configuration_fails_before_the_first_question(engine, flags, message, monkeypatch):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    settings = load_settings(flags, config_file=None, environ={})
    with pytest.raises(ConfigError, match=message):
        Engine.for_index(engine.index, settings, engine.embedder)


def test_policy_is_validated():
    with pytest.raises(ConfigError, match="verify_policy"):
        LLMGenerator([], None, None, "maybe")  # type: ignore[arg-type]
