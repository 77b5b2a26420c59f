"""How long a non-LLM answer takes in-process: `pipeline.answer` with the extractive generator.

Every question of the six real sites' question sets (both halves) and of the example site's set is
answered once to warm up, then `--rounds` more times; the table gives p50 and p95 of the whole
answer (embedding, retrieval, ranking, composition) and of the generator alone, at one
inference thread and one BLAS thread, as served. Timings on these shared machines are noisy:
the load average is printed beside them.

    python -m bench.answer_latency [--rounds 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench import site_answers
from bench._common import CACHE, DATA, REPO, console, require

SITES = (*site_answers.SITES, "example")


def questions_for(site: str) -> list[str]:
    """Both halves of a real site's questions; the example site's own set."""
    if site == "example":
        paths = [REPO / "examples" / "questions.json"]
    else:
        found = [site_answers.question_file(site, half) for half in ("dev", "test")]
        paths = [p for p in found if p is not None]
    return [q["question"] for p in paths for q in json.loads(p.read_text())["questions"]]


def measure(site: str, rounds: int) -> dict[str, Any]:
    from threadpoolctl import threadpool_limits

    from sitecite.config import load_settings
    from sitecite.embed import embedder_for
    from sitecite.index.build import build_index
    from sitecite.index.store import load_index
    from sitecite.pipeline import Engine, answer

    if site == "example":
        content = REPO / "examples" / "site"
    else:
        require(DATA / "sites" / site, f"the {site} site")
        content = site_answers.site_content(site)
    settings = load_settings({}, config_file=None, environ={})
    embedder = embedder_for(settings)  # one inference thread, as served
    index_dir = CACHE / "sites" / site
    build_index(content, index_dir, embedder)
    engine = Engine.for_index(load_index(index_dir, embedder.id), settings, embedder)
    questions = questions_for(site)
    total, generate = [], []
    with threadpool_limits(1):
        for round_number in range(rounds + 1):
            for question in questions:
                result, trace = answer(engine, question)
                if round_number:  # the first round warms up caches
                    total.append(result.latency_ms)
                    generate.append(trace.timings_ms.get("generate", 0.0))
    return {
        "questions": len(questions),
        "answers": len(total),
        "total_p50": float(np.percentile(total, 50)),
        "total_p95": float(np.percentile(total, 95)),
        "generate_p50": float(np.percentile(generate, 50)),
        "generate_p95": float(np.percentile(generate, 95)),
    }


def main(argv: Sequence[str] | None = None) -> int:
    from rich.table import Table

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    results = {site: measure(site, args.rounds) for site in SITES}
    table = Table(title=f"Non-LLM answer latency in-process, ms (load average {load:.2f})")
    for column in ("site", "questions", "answer p50", "answer p95", "generator p50", "p95"):
        table.add_column(column, justify="left" if column == "site" else "right")
    for site, r in results.items():
        table.add_row(
            site,
            str(r["questions"]),
            *(f"{r[k]:.1f}" for k in ("total_p50", "total_p95", "generate_p50", "generate_p95")),
        )
    console().print(table)
    if args.json:
        print(json.dumps({"load_average": load, **results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
