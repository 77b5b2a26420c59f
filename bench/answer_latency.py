"""How long a non-LLM answer takes in-process: `pipeline.answer` with the extractive generator.

Every question of the real sites' question sets (both halves) and of the example site's set is
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

from bench._common import CACHE, DATA, REPO, console, require

SETS = {
    "jarvis": (DATA / "sites" / "jarvis", ["jarvis-dev.json", "jarvis-test.json"]),
    "timlrx": (DATA / "sites" / "timlrx", ["timlrx-dev.json", "timlrx-test.json"]),
    "example": (REPO / "examples" / "site", []),
}


def questions_for(site: str, files: list[str]) -> list[str]:
    paths = [REPO / "bench" / "questions" / f for f in files]
    paths = paths or [REPO / "examples" / "questions.json"]
    return [q["question"] for p in paths for q in json.loads(p.read_text())["questions"]]


def measure(site: str, rounds: int) -> dict[str, Any]:
    from threadpoolctl import threadpool_limits

    from sitecite.config import load_settings
    from sitecite.embed import embedder_for
    from sitecite.index.build import build_index
    from sitecite.index.store import load_index
    from sitecite.pipeline import Engine, answer

    content, files = SETS[site]
    settings = load_settings({}, config_file=None, environ={})
    embedder = embedder_for(settings)  # one inference thread, as served
    index_dir = CACHE / "sites" / site
    build_index(require(content, f"the {site} site"), index_dir, embedder)
    engine = Engine.for_index(load_index(index_dir, embedder.id), settings, embedder)
    questions = questions_for(site, files)
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
    results = {site: measure(site, args.rounds) for site in SETS}
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
