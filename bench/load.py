"""Load benchmark for `sitecite serve` (not a test): wrk against POST /api/ask on 127.0.0.1.

Starts `sitecite serve` on the example site's index with the rate limit raised, then runs wrk
twice for `--duration` seconds each: "cached" repeats one question (every answer after the
first comes from the answer cache) and "uncached" sends a new question on every request (each
one goes through the whole pipeline: embed, retrieve, gate, generate, verify). It does so with
the shared state in the process (the default) and again in a redis-server started on
127.0.0.1 for the run (`serve.redis_url`; skipped with a note when redis-server or redis-py is
missing), so the cost of sharing the limit and the cache between replicas is measured side by
side. Prints requests/s, p50/p99 latency, responses by status and the server's resident
memory; exits 1 if any response was a 5xx or any error other than an intended 429 occurred.

    python -m bench.load                # 30 s each
    python -m bench.load --duration 10 --json   # last line: one JSON object
    python -m bench.load --log-cost     # what the question log costs a cached answer
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench._server import (
    DEFAULT_INDEX,
    QUESTION_SETS,
    ensure_index,
    environment,
    load_average,
    memory_mb,
    redis_server,
    running_server,
)

LUA = Path(__file__).with_name("load.lua")
CACHED_QUESTION = "Which city and country is she based in?"


def write_questions(directory: Path) -> Path:
    """The question set, one JSON-escaped question per line, the cached question first."""
    questions = [q["question"] for q in json.loads(QUESTION_SETS[0].read_text())["questions"]]
    lines = [json.dumps(q, ensure_ascii=False)[1:-1] for q in [CACHED_QUESTION, *questions]]
    path = directory / "questions.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_wrk(
    url: str, mode: str, questions: Path, seconds: int, connections: int, threads: int, timeout: int
) -> dict[str, Any]:
    command = [
        "wrk",
        "-t",
        str(threads),
        "-c",
        str(connections),
        "-d",
        f"{seconds}s",
        "--timeout",
        f"{timeout}s",
        "-s",
        str(LUA),
        url,
        "--",
        mode,
        str(questions),
    ]
    finished = subprocess.run(command, capture_output=True, text=True, check=False)
    marked = [row for row in finished.stdout.splitlines() if row.startswith("SITECITE_WRK ")]
    line = marked[-1] if marked else None
    if finished.returncode != 0 or line is None:
        raise SystemExit(
            f"wrk failed ({finished.returncode}):\n{finished.stdout}\n{finished.stderr}"
        )
    raw = json.loads(line.removeprefix("SITECITE_WRK "))
    statuses = {int(status): n for status, n in raw["statuses"].items()}
    seconds_run = raw["duration_us"] / 1e6
    return {
        "connections": connections,
        "seconds": round(seconds_run, 2),
        "requests": raw["requests"],
        "requests_per_second": round(raw["requests"] / seconds_run, 1),
        "latency_ms": {k: round(v / 1000, 2) for k, v in raw["latency_us"].items()},
        "statuses": statuses,
        "server_errors": sum(n for status, n in statuses.items() if status >= 500),
        "unexpected_errors": sum(
            n for status, n in statuses.items() if status >= 400 and status != 429
        )
        + sum(raw["socket_errors"].values()),
        "rate_limited": statuses.get(429, 0),
        "socket_errors": raw["socket_errors"],
    }


def table(results: dict[str, Any]) -> str:
    header = (
        f"{'state':<12}{'traffic':<10}{'conns':>6}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}"
        f"{'max ms':>10}{'2xx':>9}{'429':>6}{'5xx':>6}{'other':>7}{'RSS MB':>9}"
    )
    rows = [header, "-" * len(header)]
    for backend, runs in results["backends"].items():
        for mode in ("cached", "uncached"):
            run = runs[mode]
            ok = sum(n for status, n in run["statuses"].items() if status < 300)
            rows.append(
                f"{backend:<12}{mode:<10}{run['connections']:>6}"
                f"{run['requests_per_second']:>10.1f}{run['latency_ms']['p50']:>10.1f}"
                f"{run['latency_ms']['p99']:>10.1f}{run['latency_ms']['max']:>10.1f}{ok:>9}"
                f"{run['rate_limited']:>6}{run['server_errors']:>6}{run['unexpected_errors']:>7}"
                f"{run['rss_mb_after']:>9.0f}"
            )
        memory = runs["server_memory_mb"]
        rows.append(
            f"{backend}: server {memory['idle']:.0f} MB resident after start-up, "
            f"{memory['peak']:.0f} MB peak"
        )
    for note in results["notes"]:
        rows.append(note)
    settings = results["settings"]
    rows.append(
        f"workers={settings['workers']}, wrk threads={settings['wrk_threads']}, "
        f"{settings['cpus']} CPUs, load average {settings['load_average_before']} before, "
        f"{settings['load_average_after']} after"
    )
    return "\n".join(rows)


def run_backend(
    index: Path, args: argparse.Namespace, questions: Path, extra: dict[str, str]
) -> dict[str, Any]:
    """Both kinds of traffic against one server started with the extra environment."""
    results: dict[str, Any] = {}
    with running_server(index, args.workers, args.rate_limit, env=environment(**extra)) as server:
        idle = memory_mb(server.pid)
        for mode, connections in (
            ("cached", args.cached_connections),
            ("uncached", args.uncached_connections),
        ):
            print(f"{mode}: wrk -c {connections} for {args.duration} s ...", file=sys.stderr)
            run = run_wrk(
                server.url,
                mode,
                questions,
                args.duration,
                connections,
                args.wrk_threads,
                timeout=max(10, args.duration),
            )
            run["rss_mb_after"] = round(memory_mb(server.pid)["rss_mb"], 1)
            results[mode] = run
        peak = memory_mb(server.pid)["peak_rss_mb"]
    results["server_memory_mb"] = {"idle": round(idle["rss_mb"], 1), "peak": round(peak, 1)}
    return results


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, help="index to serve (default: the example site's)")
    parser.add_argument("--reindex", action="store_true", help="rebuild the default index first")
    parser.add_argument("--duration", type=int, default=30, help="seconds per run (default 30)")
    parser.add_argument("--cached-connections", type=int, default=32)
    parser.add_argument("--uncached-connections", type=int, default=8)
    parser.add_argument("--wrk-threads", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2, help="server threads answering questions")
    parser.add_argument(
        "--rate-limit",
        type=float,
        default=1e9,
        help="questions per minute per address (raised so nothing is limited)",
    )
    parser.add_argument("--no-redis", action="store_true", help="in-process state only")
    parser.add_argument(
        "--log-cost",
        action="store_true",
        help="cached traffic against a logging and a non-logging server, side by side",
    )
    parser.add_argument("--rounds", type=int, default=4, help="--log-cost rounds (default 4)")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object as the last line"
    )
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk not found: apt-get install wrk")
    index = args.index or ensure_index(DEFAULT_INDEX, args.reindex)
    if args.log_cost:
        return log_cost(args, index)
    results: dict[str, Any] = {"index": str(index), "backends": {}, "notes": []}
    load_before = load_average()  # other work on the machine skews every figure
    with tempfile.TemporaryDirectory() as scratch:
        questions = write_questions(Path(scratch))
        results["backends"]["in-process"] = run_backend(index, args, questions, {})
        if not args.no_redis:
            with redis_server(Path(scratch)) as redis_url:
                if redis_url:
                    extra = {"SITECITE_SERVE_REDIS_URL": redis_url}
                    results["backends"]["redis"] = run_backend(index, args, questions, extra)
                else:
                    results["notes"].append("redis: skipped (needs redis-server and redis-py)")
    results["settings"] = {
        "duration_s": args.duration,
        "workers": args.workers,
        "wrk_threads": args.wrk_threads,
        "rate_limit_per_minute": args.rate_limit,
        "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": load_average(),
    }
    failed = sum(
        runs[mode]["server_errors"] + runs[mode]["unexpected_errors"]
        for runs in results["backends"].values()
        for mode in ("cached", "uncached")
    )
    results["ok"] = failed == 0
    print(table(results))
    if not results["ok"]:
        print(f"FAILED: {failed} server or unexpected errors", file=sys.stderr)
    if args.json:
        print(json.dumps(results))
    return 0 if results["ok"] else 1


def log_cost(args: argparse.Namespace, index: Path) -> int:
    from bench import _log_cost

    with tempfile.TemporaryDirectory() as scratch:
        questions = write_questions(Path(scratch))
        result = _log_cost.measure(args, index, questions, run_wrk)
    print(_log_cost.table(result))
    if args.json:
        print(json.dumps(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
