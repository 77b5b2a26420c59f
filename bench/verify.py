"""Verification on the example site with a scripted model: its cost, what it catches from a
lying model, and what it costs a faithful one. (Model-written answers with labelled sentences
are bench/verify_replies.py; the support model is fitted by training/train_verifier.py.)

- latency: verification time per answer, p50/p95;
- lying: every answerable question of examples/questions.json goes through `answer` with a
  scripted chat-completions server on 127.0.0.1 whose answers are corrupted one way each
  (invented number, wrong name, citation outside the context, sentence from another page,
  invented claim, uncited claim, injected text, negation); counts drafts caught per check and
  the corrupted sentences that reached the user (must be 0);
- faithful: the same server paraphrasing its sources faithfully; the false-drop rate is the
  share of faithful sentences verification removed, and of answers that lost the model's text.

    python -m bench.verify [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from bench._common import CACHE, REPO, question_context
from bench.scripted_llm import CORRUPTIONS, ScriptedLLM, corrupt, faithful
from sitecite.config import DEFAULT_EMBEDDER, load_settings
from sitecite.embed import get_embedder
from sitecite.generate import Context
from sitecite.generate.prompts import parse_reply
from sitecite.index.build import build_index
from sitecite.index.store import load_index
from sitecite.pipeline import Engine, answer
from sitecite.verify import CHECK_NAMES, SentenceVerdict, draft_sentences
from sitecite.verify.model import shipped_model

SITE = REPO / "examples" / "site"
QUESTIONS = REPO / "examples" / "questions.json"
INDEX_DIR = CACHE / "site-index"
FAITHFUL_VARIANTS = 3
T = TypeVar("T")


def progress(items: Iterable[T], label: str) -> Iterator[T]:
    """Items with a progress line on stderr (the table and JSON go to stdout)."""
    items = list(items)
    started = time.perf_counter()
    for done, item in enumerate(items, start=1):
        yield item
        if done % 10 == 0 or done == len(items):
            print(
                f"\r{label}: {done}/{len(items)} ({time.perf_counter() - started:.0f}s)",
                end="\n" if done == len(items) else "",
                file=sys.stderr,
                flush=True,
            )


def answerable(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    return [
        q["question"]
        for q in data["questions"]
        if q.get("expect", "answer") == "answer"
        and q["category"] not in ("abstention", "adversarial")
    ]


def engine_for(server: ScriptedLLM) -> Engine:
    embedder = get_embedder(DEFAULT_EMBEDDER, threads=1)  # as `sitecite serve` runs it
    build_index(SITE, INDEX_DIR, embedder)
    flags = {
        "generator": "llm",
        "llm.base_url": server.base_url,
        "llm.model": "scripted",
        "llm.retries": 0,
    }
    settings = load_settings(flags, config_file=None, environ={})
    return Engine.for_index(load_index(INDEX_DIR, embedder.id), settings, embedder)


def contexts(engine: Engine, questions: list[str]) -> list[Context]:
    """The context `answer` would build for each question (gate passed), without answering."""
    found = (question_context(engine, question)[1] for question in questions)
    return [context for context in found if context is not None]


Scored = tuple[list[SentenceVerdict], list[tuple[str, SentenceVerdict]], list[tuple[float, ...]]]


def scored_sentences(engine: Engine, questions: list[str], label: str) -> Scored:
    """Faithful and corrupted sentences with their verdicts, and each faithful answer's
    verification time (wall, CPU) and the words it had to embed."""
    generator = engine.generator
    verifier = generator.verifier
    honest: list[SentenceVerdict] = []
    lies: list[tuple[str, SentenceVerdict]] = []
    timings: list[tuple[float, ...]] = []
    for number, context in enumerate(progress(contexts(engine, questions), label)):
        prepared = generator.prepare(context)
        evidence = prepared.reply_context.evidence
        body = {"messages": prepared.messages}
        replies: list[tuple[tuple[str, list[str]] | None, Any]] = [
            (None, parse_reply(faithful(body, v).content)) for v in range(FAITHFUL_VARIANTS)
        ]
        for kind in CORRUPTIONS:
            lie, planted = corrupt(body, kind, number)
            replies.append(((kind, planted), parse_reply(lie.content)))
        for tag, reply in replies:
            if reply is None or reply.not_on_site:
                continue
            result = verifier.verify(reply.answer, evidence, reply.citations)
            if tag is None:
                timings.append((result.ms, result.cpu_ms))
                honest += result.sentences
            else:
                lies += [(tag[0], v) for v in result.sentences if _plain(v.clean) in tag[1]]
    return honest, lies, timings


def lying_run(engine: Engine, server: ScriptedLLM, questions: list[str]) -> dict[str, Any]:
    caught: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    leaked: list[tuple[str, str]] = []
    drafts = 0
    runs = [(n, q, kind) for n, q in enumerate(questions) for kind in CORRUPTIONS]
    for number, question, kind in progress(runs, "lying provider"):
        planted: list[str] = []

        def respond(
            body: dict[str, Any],
            kind: str = kind,
            number: int = number,
            planted: list[str] = planted,
        ) -> Any:
            reply, sentences = corrupt(body, kind, number)
            planted.extend(sentences)
            return reply

        server.reset(respond)
        result, trace = answer(engine, question)
        if not planted:
            outcomes["not asked (screen or gate)"] += 1
            continue
        drafts += 1
        failed = {c.name.removeprefix("verify_") for c in trace.checks if not c.passed}
        caught.update(name for name in CHECK_NAMES if name in failed)
        caught.update(f"{kind}:{name}" for name in CHECK_NAMES if name in failed)
        outcomes[_outcome(result, trace)] += 1
        leaked += [(question, s) for s in unsupported_shown(engine, result, planted)]
    by_kind = {
        k: {n: caught[f"{k}:{n}"] for n in CHECK_NAMES if caught[f"{k}:{n}"]} for k in CORRUPTIONS
    }
    return {
        "drafts": drafts,
        "caught_per_check": {n: caught[n] for n in CHECK_NAMES},
        "caught_by_kind": by_kind,
        "outcomes": dict(outcomes),
        "unsupported_reached_user": len(leaked),
        "leaks": leaked[:5],
    }


def unsupported_shown(engine: Engine, result: Any, planted: list[str]) -> list[str]:
    """Planted sentences in the answer that the sections they now cite do not contain verbatim
    (a true sentence the extractive fallback quotes with its right citation is not a leak)."""
    found = []
    for sentence in (s.text for s in draft_sentences(result.answer)):
        shown = _plain(re.sub(r"\s*\[\d+\]", "", sentence))
        for text in (p for p in planted if p and p in shown):
            cited = [
                result.citations[int(n) - 1].id
                for n in re.findall(r"\[(\d+)\]", sentence)
                if 0 < int(n) <= len(result.citations)
            ]
            sources = [
                " ".join(engine.index.sections[engine.index.row_of[i]].text.split()) for i in cited
            ]
            if not any(text in source for source in sources):
                found.append(text)
    return found


def faithful_run(engine: Engine, server: ScriptedLLM, questions: list[str]) -> dict[str, Any]:
    outcomes: Counter[str] = Counter()
    runs = [(q, v) for q in questions for v in range(FAITHFUL_VARIANTS)]
    for question, variant in progress(runs, "faithful provider"):
        server.reset(lambda body, variant=variant: faithful(body, variant))
        result, trace = answer(engine, question)
        if server.requests:
            outcomes[_outcome(result, trace)] += 1
    answers = sum(outcomes.values())
    degraded = answers - outcomes["verified"] - outcomes["model said NOT_ON_SITE"]
    return {
        "answers": answers,
        "outcomes": dict(outcomes),
        "answers_degraded": degraded,
        "answer_false_drop_rate": round(degraded / answers, 4) if answers else 0.0,
    }


def _outcome(result: Any, trace: Any) -> str:
    policy = next((c for c in trace.checks if c.name == "verify_policy"), None)
    if result.refusal_reason == "not_on_site":
        return "model said NOT_ON_SITE"
    if policy is None:
        return "refused" if result.refused else "no verdict"
    if policy.passed:
        return "verified"
    if result.generator.startswith("llm:"):
        return "refused by policy" if result.refused else "verified after dropping sentences"
    return "refused (fallback refused too)" if result.refused else "extractive fallback"


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".")


def percentiles(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(float(np.percentile(values, 50)), 2),
        "p95": round(float(np.percentile(values, 95)), 2),
        "max": round(float(np.max(values)), 2),
        "n": len(values),
    }


def measure() -> dict[str, Any]:
    report: dict[str, Any] = {"support_threshold": shipped_model().threshold}
    with ScriptedLLM() as server:
        engine = engine_for(server)
        questions = answerable(QUESTIONS)
        contexts(engine, questions[:3])  # warm the embedder up before timing anything
        honest, lies, timings = scored_sentences(engine, questions, "question set")
        report["verify_ms_per_answer"] = percentiles([t[0] for t in timings])
        report["verify_cpu_ms_per_answer"] = percentiles([t[1] for t in timings])
        report["load_average_1m"] = round(os.getloadavg()[0], 2)
        report["cpus"] = os.cpu_count()
        dropped = [v for v in honest if not v.ok]
        report["faithful_sentences"] = {
            "n": len(honest),
            "dropped": len(dropped),
            "false_drop_rate": round(len(dropped) / len(honest), 4) if honest else 0.0,
            "examples": [(v.clean[:80], v.problems) for v in dropped[:5]],
        }
        report["corrupted_sentences"] = {
            "n": len(lies),
            "passed": sum(v.ok for _, v in lies),
            "caught_by": dict(Counter(name for _, v in lies for name in v.problems)),
            "passed_examples": [(k, v.clean[:80]) for k, v in lies if v.ok][:5],
        }
        report["lying"] = lying_run(engine, server, questions)
        report["faithful"] = faithful_run(engine, server, questions)
    return report


def print_table(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Verification on examples/questions.json (scripted provider on 127.0.0.1)")
    table.add_column("measure")
    table.add_column("value", justify="right")
    latency, lying, kept = report["verify_ms_per_answer"], report["lying"], report["faithful"]
    cpu = report["verify_cpu_ms_per_answer"]
    rows = [
        (
            "verify wall ms per answer p50 / p95 / max",
            f"{latency['p50']} / {latency['p95']} / {latency['max']} (n={latency['n']})",
        ),
        ("verify CPU ms per answer p50 / p95 / max", f"{cpu['p50']} / {cpu['p95']} / {cpu['max']}"),
        ("load average while measuring / CPUs", f"{report['load_average_1m']} / {report['cpus']}"),
        ("support threshold in use", str(report["support_threshold"])),
    ]
    lies = report["corrupted_sentences"]
    rows.append(
        ("corrupted sentences verified directly / passed", f"{lies['n']} / {lies['passed']}")
    )
    rows.append(("lying drafts through `answer`", str(lying["drafts"])))
    rows += [
        (f"  drafts caught by {name}", str(n)) for name, n in lying["caught_per_check"].items()
    ]
    rows += [(f"  outcome: {name}", str(n)) for name, n in lying["outcomes"].items()]
    rows.append(
        ("unsupported claims that reached the user", str(lying["unsupported_reached_user"]))
    )
    sentences = report["faithful_sentences"]
    rows.append(
        (
            "faithful sentences dropped (false-drop rate)",
            f"{sentences['dropped']} of {sentences['n']} ({sentences['false_drop_rate']:.1%})",
        )
    )
    rows.append(
        (
            "faithful answers that lost the model's text",
            f"{kept['answers_degraded']} of {kept['answers']} "
            f"({kept['answer_false_drop_rate']:.1%})",
        )
    )
    rows += [(f"  outcome: {name}", str(n)) for name, n in kept["outcomes"].items()]
    for name, value in rows:
        table.add_row(name, value)
    Console().print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object as the last line"
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    report = measure()
    report["seconds"] = round(time.perf_counter() - started, 1)
    print_table(report)
    if args.json:
        print(json.dumps(report, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
