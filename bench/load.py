"""Load benchmark for `sitecite serve` (not a test): wrk against POST /api/ask on 127.0.0.1.

Starts `sitecite serve` on the example site's index with the rate limit raised, then runs wrk
twice for `--duration` seconds each: "cached" repeats one question (every answer after the
first comes from the answer cache) and "uncached" sends a new question on every request (each
one goes through the whole pipeline: embed, retrieve, gate, generate, verify). Prints
requests/s, p50/p99 latency, responses by status and the server's resident memory; exits 1 if
any response was a 5xx or any error other than an intended 429 occurred.

    python bench/load.py                # 30 s each
    python bench/load.py --duration 10 --json   # last line: one JSON object
    python bench/load.py --log-cost     # what the question log costs a cached answer
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_SITE = REPO / "examples" / "site"
QUESTIONS = REPO / "examples" / "questions.json"
DEFAULT_INDEX = REPO / ".sitecite" / "bench" / "load-example-index"
LUA = Path(__file__).with_name("load.lua")
HOST = "127.0.0.1"  # traffic only ever goes to this machine
CACHED_QUESTION = "Which city and country is she based in?"


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str = ""
    log: list[str] = field(default_factory=list)

    @property
    def pid(self) -> int:
        return self.process.pid


def memory_mb(pid: int) -> dict[str, float]:
    """Resident set size now and at its peak, from /proc (Linux)."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values["rss_mb" if name == "VmRSS" else "peak_rss_mb"] = int(rest.split()[0]) / 1024
    return values


def ensure_index(path: Path, rebuild: bool) -> Path:
    if rebuild or not (path / "manifest.json").exists():
        print(f"indexing {EXAMPLE_SITE} into {path} ...", file=sys.stderr)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "sitecite.cli",
                "index",
                str(EXAMPLE_SITE),
                "--index",
                str(path),
            ],
            check=True,
            stdout=sys.stderr,  # stdout is for the table and the JSON line
        )
    return path


@contextmanager
def running_server(
    index: Path, workers: int, rate_limit: float, env: dict[str, str] | None = None
) -> Iterator[Server]:
    command = [
        sys.executable,
        "-m",
        "sitecite.cli",
        "serve",
        "--index",
        str(index),
        "--host",
        HOST,
        "--port",
        "0",
        "--rate-limit",
        f"{rate_limit:g}",
        "--workers",
        str(workers),
    ]
    environment = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    process = subprocess.Popen(
        command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=environment
    )
    server = Server(process)
    ready = threading.Event()

    def read_log() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            server.log.append(line.rstrip())
            if line.startswith("sitecite: serving") and " at " in line:
                server.url = line.split(" at ", 1)[1].split()[0]
                ready.set()

    threading.Thread(target=read_log, daemon=True).start()
    try:
        deadline = time.monotonic() + 180
        while not ready.wait(0.2):
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the server did not start:\n" + "\n".join(server.log[-20:]))
        if not server.url.startswith(f"http://{HOST}:"):
            raise SystemExit(f"refusing to load anything but {HOST}: {server.url}")
        yield server
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()


def write_questions(directory: Path) -> Path:
    """The question set, one JSON-escaped question per line, the cached question first."""
    questions = [q["question"] for q in json.loads(QUESTIONS.read_text())["questions"]]
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
        f"{'traffic':<10}{'conns':>6}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}"
        f"{'2xx':>9}{'429':>6}{'5xx':>6}{'other':>7}{'RSS MB':>9}"
    )
    rows = [header, "-" * len(header)]
    for mode in ("cached", "uncached"):
        run = results[mode]
        ok = sum(n for status, n in run["statuses"].items() if status < 300)
        rows.append(
            f"{mode:<10}{run['connections']:>6}{run['requests_per_second']:>10.1f}"
            f"{run['latency_ms']['p50']:>10.1f}{run['latency_ms']['p99']:>10.1f}"
            f"{run['latency_ms']['max']:>10.1f}{ok:>9}{run['rate_limited']:>6}"
            f"{run['server_errors']:>6}{run['unexpected_errors']:>7}{run['rss_mb_after']:>9.0f}"
        )
    memory = results["server_memory_mb"]
    rows.append(
        f"server memory: {memory['idle']:.0f} MB resident after start-up, "
        f"{memory['peak']:.0f} MB peak"
    )
    settings = results["settings"]
    rows.append(
        f"workers={settings['workers']}, wrk threads={settings['wrk_threads']}, "
        f"{settings['cpus']} CPUs, load average {settings['load_average_before']} before, "
        f"{settings['load_average_after']} after"
    )
    return "\n".join(rows)


def main() -> int:
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
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object as the last line"
    )
    parser.add_argument(
        "--log-cost",
        action="store_true",
        help="cached traffic against a logging and a non-logging server, side by side",
    )
    parser.add_argument("--rounds", type=int, default=4, help="--log-cost rounds (default 4)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk not found: apt-get install wrk")
    index = args.index or ensure_index(DEFAULT_INDEX, args.reindex)
    load_before = round(os.getloadavg()[0], 2)  # other work on the machine skews every figure
    if args.log_cost:
        return log_cost(args, index)

    with (
        tempfile.TemporaryDirectory() as scratch,
        running_server(index, args.workers, args.rate_limit) as server,
    ):
        questions = write_questions(Path(scratch))
        results: dict[str, Any] = {"url": server.url, "index": str(index)}
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
    results["settings"] = {
        "duration_s": args.duration,
        "workers": args.workers,
        "wrk_threads": args.wrk_threads,
        "rate_limit_per_minute": args.rate_limit,
        "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": round(os.getloadavg()[0], 2),
    }
    failed = sum(
        results[m]["server_errors"] + results[m]["unexpected_errors"]
        for m in ("cached", "uncached")
    )
    results["ok"] = failed == 0
    print(table(results))
    if not results["ok"]:
        print(f"FAILED: {failed} server or unexpected errors", file=sys.stderr)
    if args.json:
        print(json.dumps(results))
    return 0 if results["ok"] else 1


def log_cost(args: argparse.Namespace, index: Path) -> int:
    import _log_cost

    with tempfile.TemporaryDirectory() as scratch:
        questions = write_questions(Path(scratch))
        result = _log_cost.measure(args, index, questions, running_server, run_wrk)
    print(_log_cost.table(result))
    if args.json:
        print(json.dumps(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
