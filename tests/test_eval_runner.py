"""The runner on a fast index of the example site (deterministic hashing embedder): the
single-trace rule, repeats and flaky questions, history, resume, notes, compare, the lab."""

from __future__ import annotations

import dataclasses
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sitecite.config import Settings, load_settings
from sitecite.embed import Embedder, HashEmbedder
from sitecite.eval import (
    RunStore,
    compare_reports,
    latest_lab_html,
    load_question_set,
    render_lab,
)
from sitecite.eval.compare import report_from_history
from sitecite.eval.gate import missed_bars, parse_bars, write_junit
from sitecite.eval.judge import JUDGE_PROMPT_VERSION, Judge
from sitecite.eval.pacing import RateLimiter
from sitecite.eval.questions import QuestionSet, index_source_ids
from sitecite.eval.runner import Runner
from sitecite.generate import Context, Generator
from sitecite.generate.prompts import prompt_sources, source_blocks
from sitecite.index.store import store_thresholds
from sitecite.pipeline import Engine
from sitecite.types import Draft, Section

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "examples" / "questions.json"


@pytest.fixture(scope="module")
def hash_settings() -> Settings:
    return load_settings({"embedder": "hash-64"}, config_file=None, environ={})


@pytest.fixture(scope="module")
def hash_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sitecite.index.build import build_index

    target = tmp_path_factory.mktemp("hash") / "index"
    build_index(REPO / "examples" / "site", target, HashEmbedder(64))
    return target


@pytest.fixture()
def index_copy(hash_index: Path, tmp_path: Path) -> Path:
    """A private copy, so each test starts with an empty run history beside it."""
    import shutil

    target = tmp_path / "index"
    shutil.copytree(hash_index, target)
    return target


@pytest.fixture(scope="module")
def hash_engine(hash_index: Path, hash_settings: Settings) -> Engine:
    return Engine.load(hash_index, hash_settings)


def small_set(engine: Engine, ids: tuple[str, ...] | None = None) -> QuestionSet:
    loaded = load_question_set(QUESTIONS, index_source_ids(engine.index.sections))
    if ids is None:
        return loaded
    return dataclasses.replace(loaded, questions=tuple(q for q in loaded.questions if q.id in ids))


class FakeChat:
    """A chat client that records what the judge sent and always returns a valid verdict."""

    model = "fake-judge"

    def close(self) -> None:
        pass

    def __init__(self) -> None:
        self.messages: list[list[dict[str, Any]]] = []

    def complete(self, messages: list[dict[str, Any]], **options: Any) -> Any:
        self.messages.append(messages)
        verdict = {
            "faithful": True,
            "hallucinated_claims": [],
            "correctly_refused": None,
            "rationale": "ok",
        }
        return type(
            "R", (), {"text": json.dumps(verdict), "prompt_tokens": 10, "output_tokens": 5}
        )()


class NoisyEmbedder(Embedder):
    """Query vectors with fresh random noise on every call: retrieval differs on every call."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.id, self.dim = inner, inner.id, inner.dim
        self.rng = np.random.default_rng(7)
        self.query_calls = 0

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_batch(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self.query_calls += 1
        vector = self.inner.embed_query(text) + self.rng.normal(size=self.dim).astype(np.float32)
        return (vector / np.linalg.norm(vector)).astype(np.float32)


class RecordingGenerator(Generator):
    """Wraps a generator and records the exact sections it was given, per question."""

    name = "recording"

    def __init__(self, inner: Generator, flaky: bool = False) -> None:
        self.inner, self.flaky = inner, flaky
        self.seen: dict[str, list[list[str]]] = {}
        self.sections: dict[str, list[Section]] = {}
        self.calls = 0

    def generate(self, context: Context) -> Draft:
        self.calls += 1
        self.seen.setdefault(context.question, []).append([s.id for s in context.sections])
        self.sections[context.question] = list(context.sections)
        if self.flaky:  # per question: refuse the first time, quote a section the second, ...
            if len(self.seen[context.question]) % 2:
                return Draft("", (), True, "recording", refusal_reason="coin_flip")
            return Draft(f"{context.sections[0].sentences[0]} [1]", (0,), False, "recording")
        return self.inner.generate(context)


def test_the_judge_grades_exactly_what_the_generator_saw(
    index_copy: Path, hash_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sitecite.pipeline

    searches: list[tuple[str, list[str]]] = []
    real_search = sitecite.pipeline.search

    def counting_search(index: Any, vector: Any, question: str, *args: Any) -> Any:
        retrieval = real_search(index, vector, question, *args)
        searches.append((question, [h.section.id for h in retrieval.hits]))
        return retrieval

    monkeypatch.setattr(sitecite.pipeline, "search", counting_search)
    noisy = NoisyEmbedder(hash_engine.embedder)
    recorder = RecordingGenerator(hash_engine.generator)
    engine = Engine.for_index(hash_engine.index, hash_engine.settings, noisy, recorder)
    chat = FakeChat()
    questions = small_set(engine)
    with RunStore.for_index(index_copy) as store:
        report = Runner(engine, store, Judge(chat)).run(questions)

    # one retrieval per question, and the metrics were computed from that retrieval's hits
    # (a question about the owner also has the pages describing the owner among them)
    from sitecite.generate.owner import about_sections

    assert noisy.query_calls == len(questions) == len(searches)
    by_question = {q["question"]: q for q in report.questions}
    index = engine.index
    profile = {s.id for s in about_sections(index.sections, index.subject)}
    for question_text, hit_ids in searches:
        retrieved = [h["id"] for h in by_question[question_text]["retrieved"]]
        assert set(retrieved) <= set(hit_ids) | profile
        assert [i for i in retrieved if i not in profile] == [
            i for i in hit_ids if i in retrieved and i not in profile
        ]
    # the judge saw exactly the sources the generator saw, rendered as the model's prompt
    # renders them (none when the generator was not called)
    assert len(chat.messages) == len(questions)
    for messages in chat.messages:
        user = messages[-1]["content"]
        question_text = user.split("QUESTION:\n", 1)[1].split("\n\nSOURCES:", 1)[0]
        judged = user.split("SOURCES:\n", 1)[1].split("\n\nANSWER:", 1)[0]
        generated = recorder.seen.get(question_text, [[]])
        assert len(generated) <= 1
        assert generated[0] == by_question[question_text]["context_ids"]
        seen = recorder.sections.get(question_text, [])
        assert judged == (
            source_blocks(prompt_sources(seen)) if seen else "(no sources were given)"
        )
    assert report.run["judge"]["model"] == "fake-judge"
    assert report.run["judge"]["prompt_version"] == JUDGE_PROMPT_VERSION


def test_repeat_reports_flaky_questions(index_copy: Path, hash_engine: Engine) -> None:
    recorder = RecordingGenerator(hash_engine.generator, flaky=True)
    engine = dataclasses.replace(hash_engine, generator=recorder)
    questions = small_set(engine, ("a-01", "a-03", "a-04", "a-05", "a-09"))
    with RunStore.for_index(index_copy) as store:
        report = Runner(engine, store).run(questions, repeat=3)
    assert report.run["repeat"] == 3 and len(report.attempts) == 15
    # abstentions pass when refused and fail when answered: flaky wherever the generator was reached
    reached = {q.id for q in questions.questions if len(recorder.seen.get(q.question, [])) == 3}
    assert reached and report.summary["flaky"] == [
        q.id for q in questions.questions if q.id in reached
    ]
    for question in report.questions:
        assert question["flaky"] == (question["id"] in reached) and len(question["repeats"]) == 3
        if question["flaky"]:
            assert not question["passed"]
    assert report.summary["attempts"]["n"] == 15


def test_history_resume_notes_compare_and_lab(
    index_copy: Path, hash_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = small_set(hash_engine, ("g-01", "g-02", "f-03", "f-04", "a-01", "x-01"))
    assert latest_lab_html(index_copy) is None

    class Interrupt(Exception):
        pass

    def stop_after_three(done: int, total: int, result: dict[str, Any]) -> None:
        if done == 3:
            raise Interrupt

    store = RunStore.for_index(index_copy)
    assert store.path == index_copy.with_name("index.runs.sqlite")
    with pytest.raises(Interrupt):
        Runner(hash_engine, store).run(questions, progress=stop_after_three)
    interrupted = store.runs(finished_only=False)[-1]
    assert interrupted["status"] == "running"
    before = store.finished_at(interrupted["id"])
    assert len(before) == 3

    recorder = RecordingGenerator(hash_engine.generator)
    engine = dataclasses.replace(hash_engine, generator=recorder)
    monkeypatch.setattr("sitecite.eval.runner.git_commit", lambda: "0123456789ab-later")
    resumed = Runner(engine, store).run(questions, resume=True)
    assert resumed.run["id"] == interrupted["id"] and resumed.run["resumed"]
    assert resumed.run["warnings"] == [
        f"resumed at commit 0123456789ab-later; started at {interrupted['info']['git_commit']}"
    ]
    assert [q["id"] for q in resumed.questions] == [q.id for q in questions.questions]
    after = store.finished_at(interrupted["id"])
    assert all(after[key] == stamp for key, stamp in before.items())  # nothing finished was redone
    assert recorder.calls <= 3

    store.add_note(resumed.run["id"], "the scoring rule was wrong, not the answer")
    second = Runner(hash_engine, store).run(questions)
    assert second.run["id"] != resumed.run["id"] and not second.run["resumed"]
    comparison = compare_reports(
        report_from_history(store, "previous"), report_from_history(store, "latest")
    )
    assert comparison.paired == len(questions) and comparison.p_value == 1.0

    html = latest_lab_html(index_copy)
    assert html is not None
    assert "the scoring rule was wrong, not the answer" in html
    assert "resumed at commit" not in html  # the newest run was not resumed
    assert "<script" not in html.lower() and not re.search(r"""(src|href)=["']?https?://""", html)
    assert "Every run of this question set (2)" in html and "not calibrated" in html
    for question in questions.questions:
        assert f'id="q-{question.id}"' in html
    store.close()

    store_thresholds(
        index_copy,
        hash_engine.embedder.id,
        {
            "section": 0.31,
            "sentence": 0.4,
            "on_topic": [0.5, 0.6, 0.45],
            "off_topic": [0.1, 0.2, 0.35],
        },
    )
    html = latest_lab_html(index_copy)
    assert html is not None and "threshold 0.310" in html and "on-topic (3)" in html


def test_concurrency_and_pacing_keep_every_result(index_copy: Path, hash_engine: Engine) -> None:
    questions = small_set(hash_engine, ("g-01", "g-02", "g-03", "f-03", "a-01", "x-01"))
    with RunStore.for_index(index_copy) as store:
        report = Runner(hash_engine, store, limiter=RateLimiter(6000), concurrency=3).run(questions)
        assert [q["id"] for q in report.questions] == [q.id for q in questions.questions]
        assert len(store.results(report.run["id"])) == len(questions)


def test_rate_limiter_spaces_requests() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    limiter = RateLimiter(120, clock=lambda: now[0], sleep=sleep)
    for _ in range(4):
        limiter.acquire()
    assert slept == [0.5, 0.5, 0.5]
    RateLimiter(0).acquire()  # no budget: never waits


def test_fail_under_and_junit(index_copy: Path, hash_engine: Engine, tmp_path: Path) -> None:
    questions = small_set(hash_engine, ("g-01", "f-03", "a-01", "x-01", "x-02"))
    with RunStore.for_index(index_copy) as store:
        report = Runner(hash_engine, store).run(questions)
    assert parse_bars("hit@8=0.9, passed=0.95") == [("hit@8", 0.9), ("passed", 0.95)]
    assert missed_bars(report.summary, "adversarial=1.0,abstention=0") == []
    missed = missed_bars(report.summary, "passed=1.0,hit@8=1.0,grounding.mrr=1.0")
    assert (
        any(m.startswith("passed ") for m in missed) or report.summary["pass_rate"]["rate"] == 1.0
    )
    with pytest.raises(Exception, match="unknown"):
        missed_bars(report.summary, "hits@8=0.9")
    with pytest.raises(Exception, match="NAME=VALUE"):
        parse_bars("passed=95")
    path = tmp_path / "r.xml"
    write_junit(report, path)
    suite = ET.parse(path).getroot()
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [q.id for q in questions.questions]
    assert int(suite.get("failures", "0")) == sum(not q["passed"] for q in report.questions)
    assert all(c.get("classname", "").startswith("sitecite.") for c in cases)


def test_judge_failures_are_counted_not_skipped(index_copy: Path, hash_engine: Engine) -> None:
    from bench.scripted_llm import Reply, ScriptedLLM
    from sitecite.generate.client import ChatClient

    verdict = {
        "faithful": True,
        "hallucinated_claims": [],
        "correctly_refused": True,
        "rationale": "ok",
    }
    questions = small_set(hash_engine, ("a-10", "a-11", "a-12"))
    with ScriptedLLM(default=Reply("I refuse to answer in JSON")) as server:
        server.push(Reply(json.dumps(verdict)))
        judge = Judge(ChatClient(server.base_url, "judge-model", retries=0))
        with RunStore.for_index(index_copy) as store:
            report = Runner(hash_engine, store, judge).run(questions)
    judged = report.summary["judge"]
    assert judged["graded"] == 1 and judged["could_not_grade"] == 2
    assert judged["could_not_grade_ids"] == ["a-11", "a-12"]
    assert report.questions[1]["judge"]["could_not_grade"] is True
    html = render_lab(report)
    assert "judge could not grade" in html and "judge-model" in html


def test_llm_generator_and_judge_end_to_end_with_a_cached_rerun(index_copy: Path) -> None:
    """`evaluate` with the LLM generator and the judge on one local chat server: tokens are
    counted, verdicts recorded, and a rerun asks the judge nothing it has already answered."""
    from bench.scripted_llm import Reply, ScriptedLLM, faithful
    from sitecite.eval import evaluate

    verdict = {
        "faithful": True,
        "hallucinated_claims": [],
        "correctly_refused": None,
        "rationale": "ok",
    }

    def responder(body: dict[str, Any]) -> Reply:
        if body["messages"][0]["content"].startswith("You grade answers"):
            return Reply(json.dumps(verdict), prompt_tokens=50, output_tokens=20)
        return faithful(body)

    subset = {
        "questions": [
            q
            for q in json.loads(QUESTIONS.read_text())["questions"]
            if q["id"] in ("g-02", "g-03", "f-03", "a-10", "x-01")
        ]
    }
    path = index_copy.parent / "subset.json"
    path.write_text(json.dumps(subset))
    with ScriptedLLM(default=responder) as server:
        settings = load_settings(
            {
                "embedder": "hash-64",
                "generator": "llm",
                "llm.base_url": server.base_url,
                "llm.model": "answer-model",
                "judge.base_url": server.base_url,
                "judge.model": "judge-model",
            },
            config_file=None,
            environ={},
        )
        first = evaluate(path, index_copy, settings)
        judge_calls = [r for r in server.requests if r["model"] == "judge-model"]
        server.requests.clear()
        second = evaluate(path, index_copy, settings)
        rerun_judge_calls = [r for r in server.requests if r["model"] == "judge-model"]
    assert (
        first.run["generator"]["model"] == "answer-model"
        and first.run["judge"]["model"] == "judge-model"
    )
    assert first.summary["judge"]["graded"] == 5 and first.summary["judge"]["could_not_grade"] == 0
    assert len(judge_calls) == 5 and rerun_judge_calls == []
    assert second.summary["judge"]["cached"] == 5
    assert first.summary["tokens"]["prompt_mean"] > 0  # the generator's tokens, from the traces
    assert first.summary["by_category"]["adversarial"]["passed"] == 1


def test_query_embeddings_are_cached_on_disk(tmp_path: Path) -> None:
    from sitecite.eval.cache import CachingEmbedder, DiskCache

    class Counting(HashEmbedder):
        def __init__(self) -> None:
            super().__init__(64)
            self.texts: list[str] = []

        def embed_batch(self, texts: list[str]) -> np.ndarray:
            self.texts.extend(texts)
            return super().embed_batch(texts)

    inner = Counting()
    cached = CachingEmbedder(inner, DiskCache(tmp_path / "cache.sqlite"))
    first = cached.embed(["where does she live", "what does she do"])
    again = CachingEmbedder(inner, DiskCache(tmp_path / "cache.sqlite")).embed(
        ["what does she do", "new"]
    )
    assert inner.texts == ["where does she live", "what does she do", "new"]
    assert np.array_equal(again[0], first[1]) and cached.id == inner.id
    assert np.allclose(cached.embed_query("new"), inner.embed_query("new"))
