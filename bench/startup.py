"""Start-up and memory benchmark (not a test): what one `sitecite ask` and one server cost.

Measured in one run, interleaved, so a busy machine slows every column alike:

- `python -c "import numpy, onnxruntime"`: the floor any onnxruntime embedder pays;
- `sitecite ask` cold (a new process each time; the OS file cache is warm): wall time and
  peak resident memory (the child's own ru_maxrss);
- `sitecite serve`: seconds until it listens and resident memory then, and after answering
  `--questions` distinct questions (none from the cache) over HTTP on 127.0.0.1.

`--compare DIR` measures another checkout's `src/` beside this one (e.g. the code before a
change: `git archive COMMIT src | tar -x -C /tmp/before`), so before and after share a run.

    python -m bench.startup                        # this tree, 5 repeats, 1,000 questions
    python -m bench.startup --compare /tmp/before/src --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from bench._server import (
    DEFAULT_INDEX,
    REPO,
    distinct_questions,
    ensure_index,
    environment,
    load_average,
    memory_mb,
    running_server,
)

QUESTION = "Which city and country is she based in?"
BASELINE = ["-c", "import numpy, onnxruntime"]


def timed_child(arguments: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of `python ARGUMENTS`; fails loudly if it fails."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, *arguments],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode() if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(arguments)} failed ({process.returncode}):\n{stderr}")
    return seconds, usage.ru_maxrss / 1024


def summary(samples: list[tuple[float, float]]) -> dict[str, float]:
    return {
        "seconds_median": round(statistics.median(s for s, _ in samples), 3),
        "seconds_min": round(min(s for s, _ in samples), 3),
        "peak_rss_mb_median": round(statistics.median(m for _, m in samples), 1),
    }


def cold_starts(
    sources: dict[str, Path | None], index: Path, repeat: int
) -> dict[str, dict[str, float]]:
    """The baseline and `sitecite ask` for every source, interleaved, `repeat` times."""
    ask = ["-m", "sitecite.cli", "ask", QUESTION, "--index", str(index)]
    samples: dict[str, list[tuple[float, float]]] = {"baseline": []}
    samples.update({f"ask[{label}]": [] for label in sources})
    for round_number in range(repeat):
        print(f"cold starts, round {round_number + 1}/{repeat} ...", file=sys.stderr)
        samples["baseline"].append(timed_child(BASELINE, environment()))
        for label, src in sources.items():
            samples[f"ask[{label}]"].append(timed_child(ask, environment(src)))
    return {name: summary(values) for name, values in samples.items()}


def serve_figures(src: Path | None, index: Path, questions: list[str]) -> dict[str, Any]:
    """Seconds to listen, RSS when listening, and RSS after answering every question."""
    with running_server(index, workers=2, rate_limit=0, env=environment(src)) as server:
        ready = memory_mb(server.pid)
        started = time.perf_counter()
        with httpx.Client(base_url=server.url, timeout=60) as client:

            def ask(question: str) -> int:
                return client.post("/api/ask", json={"question": question}).status_code

            with ThreadPoolExecutor(4) as pool:
                statuses = list(pool.map(ask, questions))
        seconds = time.perf_counter() - started
        after = memory_mb(server.pid)
    failed = sum(status != 200 for status in statuses)
    if failed:
        raise SystemExit(f"{failed} of {len(questions)} questions failed")
    return {
        "ready_seconds": round(server.ready_seconds, 2),
        "rss_mb_ready": round(ready["rss_mb"], 1),
        "rss_mb_after": round(after["rss_mb"], 1),
        "peak_rss_mb": round(after["peak_rss_mb"], 1),
        "questions": len(questions),
        "questions_per_second": round(len(questions) / seconds, 1),
    }


def table(results: dict[str, Any]) -> str:
    cold = results["cold"]
    floor = cold["baseline"]["seconds_median"]
    lines = [f"{'cold start':<34}{'wall s (median)':>16}{'x floor':>9}{'peak RSS MB':>13}"]
    for name, row in cold.items():
        ratio = row["seconds_median"] / floor
        lines.append(
            f"{name:<34}{row['seconds_median']:>16.2f}{ratio:>9.1f}{row['peak_rss_mb_median']:>13.0f}"
        )
    lines.append("")
    lines.append(
        f"{'sitecite serve':<34}{'ready s':>9}{'RSS ready':>11}{'RSS after':>11}"
        f"{'peak':>7}{'q/s':>7}"
    )
    for label, row in results["serve"].items():
        lines.append(
            f"{label:<34}{row['ready_seconds']:>9.1f}{row['rss_mb_ready']:>11.0f}"
            f"{row['rss_mb_after']:>11.0f}{row['peak_rss_mb']:>7.0f}"
            f"{row['questions_per_second']:>7.0f}"
        )
    loads = results["load_average"]
    lines.append(
        f"{results['questions']} distinct questions per server; {results['repeat']} cold starts "
        f"each; {os.cpu_count()} CPUs; load average {loads['before']} before, "
        f"{loads['after']} after"
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, help="index to use (default: the example site's)")
    parser.add_argument("--repeat", type=int, default=5, help="cold starts of each (default 5)")
    parser.add_argument("--questions", type=int, default=1000, help="questions per server")
    parser.add_argument(
        "--compare", type=Path, action="append", default=[], help="another checkout's src/"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object as the last line")
    args = parser.parse_args()
    index = args.index or ensure_index(DEFAULT_INDEX)
    sources: dict[str, Path | None] = {"this tree": REPO / "src"}
    sources.update({str(path): path.resolve() for path in args.compare})
    results: dict[str, Any] = {
        "repeat": args.repeat,
        "questions": args.questions,
        "load_average": {"before": load_average()},
    }
    results["cold"] = cold_starts(sources, index, args.repeat)
    questions = distinct_questions(args.questions)
    results["serve"] = {}
    for label, src in sources.items():
        print(f"serve [{label}]: {len(questions)} questions ...", file=sys.stderr)
        results["serve"][label] = serve_figures(src, index, questions)
    results["load_average"]["after"] = load_average()
    print(table(results))
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
