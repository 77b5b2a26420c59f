"""The runner: every question through `pipeline.answer` once per repeat, graded from its Trace.

This is the only place the harness touches the pipeline, and it calls the same function that
serves users. Each graded question is committed to the run history before the next result is
taken, so a killed run resumes (`resume=True`) without redoing or losing anything finished.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from sitecite.config import Settings
from sitecite.errors import SiteciteError
from sitecite.eval.cache import CachingEmbedder, DiskCache, cache_path
from sitecite.eval.grade import error_result, grade
from sitecite.eval.history import RunStore, now_iso
from sitecite.eval.judge import Judge, make_judge
from sitecite.eval.pacing import RateLimiter
from sitecite.eval.questions import Question, QuestionSet, index_source_ids, load_question_set
from sitecite.eval.report import Report
from sitecite.intake import QuestionError, refused_question, take_question
from sitecite.pipeline import Engine, answer

Progress = Callable[[int, int, dict[str, Any]], None]
AUTO = "auto"
# What decides a run's results: a run is resumed only under the same values of all of these.
# The code's commit is recorded, not compared: a resume under another commit is noted as a warning.
FINGERPRINT = (
    "index",
    "embedder",
    "generator",
    "judge",
    "threshold",
    "sentence_threshold",
    "coverage_threshold",
    "k",
    "question_set_digest",
    "repeat",
    "retrieve",
    "max_answer_sentences",
    "answerable_threshold",
)


@dataclasses.dataclass
class Runner:
    """Runs one question set against one engine, recording into one run history."""

    engine: Engine
    store: RunStore
    judge: Judge | None = None
    limiter: RateLimiter = dataclasses.field(default_factory=lambda: RateLimiter(0))
    concurrency: int = 1

    def run(
        self,
        question_set: QuestionSet,
        *,
        repeat: int = 1,
        resume: bool = False,
        progress: Progress | None = None,
    ) -> Report:
        if repeat < 1:
            raise SiteciteError(f"--repeat must be 1 or more, got {repeat}")
        info = self.run_info(question_set, repeat)
        fingerprint = _digest({k: info[k] for k in FINGERPRINT})
        previous = self.store.resumable(question_set.digest, fingerprint) if resume else None
        done: set[tuple[str, int]] = set()
        if previous is None:
            run_id = self.store.create_run(
                info, question_set.name, question_set.digest, fingerprint, repeat
            )
        else:
            run_id, commit = previous["id"], info["git_commit"]
            info = previous["info"]
            if commit != info.get("git_commit"):
                info.setdefault("warnings", []).append(
                    f"resumed at commit {commit}; started at {info.get('git_commit')}"
                )
            self.store.claim(run_id)
            done = set(self.store.finished_at(run_id))
        info["id"] = run_id
        info["resumed"] = bool(previous)
        pending = [
            (position, question, r)
            for r in range(repeat)
            for position, question in enumerate(question_set.questions)
            if (question.id, r) not in done
        ]
        total, finished = len(question_set) * repeat, len(done)
        for position, result in self._execute(pending):
            self.store.add_result(run_id, position, result)
            finished += 1
            if progress is not None:
                progress(finished, total, result)
        info["finished"] = now_iso()
        report = Report.from_results(info, self.store.results(run_id), self.store.notes(run_id))
        self.store.finish(run_id, report.summary, info)
        return report

    def answer_one(self, question: Question, repeat: int) -> dict[str, Any]:
        """One call of the pipeline, graded from its own trace; a provider failure fails it."""
        try:  # the limit a visitor's question is held to, with the refusal they would get
            take_question(question.question, self.engine.settings.serve.max_question_chars)
        except QuestionError as error:
            result, trace = refused_question(question.question, error, self.engine.threshold)
            return grade(question, result, trace, None, repeat)
        self.limiter.acquire()
        try:
            result, trace = answer(self.engine, question.question)
        except SiteciteError as exc:
            return error_result(question, f"{type(exc).__name__}: {exc}", repeat)
        verdict = None
        if self.judge is not None:
            verdict = self.judge.grade(
                question.question, trace.context, result.answer, result.refused
            )
        return grade(question, result, trace, verdict, repeat)

    def _execute(
        self, pending: list[tuple[int, Question, int]]
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        if self.concurrency <= 1:
            for position, question, repeat in pending:
                yield position, self.answer_one(question, repeat)
            return
        with ThreadPoolExecutor(
            max_workers=self.concurrency, thread_name_prefix="sitecite-eval"
        ) as pool:
            futures = {
                pool.submit(self.answer_one, question, repeat): position
                for position, question, repeat in pending
            }
            try:
                for future in as_completed(futures):
                    yield futures[future], future.result()
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise

    def run_info(self, question_set: QuestionSet, repeat: int) -> dict[str, Any]:
        """What the run records about itself: enough to reproduce it and to compare it fairly."""
        engine, settings = self.engine, self.engine.settings
        generator: dict[str, Any] = {"name": settings.generator}
        if settings.generator == "llm":
            generator.update(
                model=settings.llm.model,
                base_url=settings.llm.base_url,
                fallbacks=settings.llm.fallbacks,
                verify_policy=settings.llm.verify_policy,
            )
        return {
            "started": now_iso(),
            "git_commit": git_commit(),
            "index": {
                "path": str(Path(engine.index.path).resolve()),
                "id": engine.index.id,
                "sections": len(engine.index.sections),
            },
            "embedder": engine.embedder.id,
            "generator": generator,
            "judge": self.judge.describe() if self.judge is not None else None,
            "threshold": engine.threshold,
            "sentence_threshold": engine.sentence_threshold,
            "coverage_threshold": getattr(engine, "coverage_threshold", None),
            "k": settings.k,
            "question_set": question_set.name,
            "question_set_path": question_set.path,
            "question_set_digest": question_set.digest,
            "repeat": repeat,
            "retrieve": settings.retrieve.model_dump(),
            "max_answer_sentences": settings.max_answer_sentences,
            "answerable_threshold": settings.answerable_threshold,
            "pacing": settings.eval.model_dump(),
        }


def evaluate(
    questions: str | Path,
    index_dir: str | Path,
    settings: Settings,
    *,
    repeat: int = 1,
    resume: bool = False,
    progress: Progress | None = None,
    engine: Engine | None = None,
    judge: Any = AUTO,
    cache_embeddings: bool | None = None,
) -> Report:
    """`sitecite eval`: load the index and question set, run, record, and return the Report.

    The judge defaults to the one configured in `settings.judge` (none if no model is set).
    Query embeddings are cached on disk when the embedder is a remote endpoint (where a call
    costs money); the local model is faster than the cache lookup is worth.
    """
    engine = engine or Engine.load(index_dir, settings)
    question_set = load_question_set(questions, index_source_ids(engine.index.sections))
    cache = DiskCache(cache_path(index_dir))
    limiter = RateLimiter(settings.eval.requests_per_minute)
    own_judge = judge == AUTO
    if own_judge:
        judge = make_judge(settings, cache, limiter)
    if cache_embeddings if cache_embeddings is not None else bool(settings.embedder_base_url):
        engine = dataclasses.replace(engine, embedder=CachingEmbedder(engine.embedder, cache))
    with RunStore.for_index(index_dir) as store:
        runner = Runner(engine, store, judge, limiter, settings.eval.concurrency)
        try:
            return runner.run(question_set, repeat=repeat, resume=resume, progress=progress)
        finally:
            cache.close()
            if own_judge and judge is not None:
                judge.client.close()


def git_commit() -> str | None:
    """The commit of the code being evaluated, with '+dirty' if the tree has changes."""
    where = Path(__file__).resolve().parent

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=where, capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{commit}+dirty" if dirty else commit


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]
