"""What the question log costs a cached answer, for `bench/load.py --log-cost`.

Two `sitecite serve` processes on the same index run side by side for the whole measurement,
one with `serve.log = ""` and one logging every answer (with the daily visitor hash on, the
most work a row can take), and wrk alternates between them in an A-B-B-A order for several
rounds, so drift in the machine's load falls on both alike. The cost is one minus the median
of the rounds' ratios of requests per second (log / no log); the issue's bar is 10%.
"""

from __future__ import annotations

import os
import statistics
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench._server import environment, running_server

MAX_COST = 0.10


def measure(args: Any, index: Path, questions: Path, run_wrk: Any) -> dict[str, Any]:
    """Rounds of cached traffic against a logging and a non-logging server; medians and cost."""
    log_file = index.parent / f"{index.name}.bench-questions.sqlite"
    variants = {
        "no log": {"SITECITE_SERVE_LOG": ""},
        "log": {"SITECITE_SERVE_LOG": f"sqlite:///{log_file}", "SITECITE_SERVE_LOG_VISITORS": "1"},
    }
    rates: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}  # server CPU seconds per run
    served = dict.fromkeys(variants, 0)
    load_before = round(os.getloadavg()[0], 2)
    with ExitStack() as stack:
        servers = {
            name: stack.enter_context(
                running_server(index, args.workers, args.rate_limit, env=environment(**env))
            )
            for name, env in variants.items()
        }
        before = {name: _cpu_seconds(server.pid) for name, server in servers.items()}
        for round_number in range(args.rounds):
            order = list(variants) if round_number % 2 == 0 else list(reversed(variants))
            for name in order:
                print(f"round {round_number + 1}: {name} ...", file=sys.stderr)
                run = run_wrk(
                    servers[name].url,
                    "cached",
                    questions,
                    args.duration,
                    args.cached_connections,
                    args.wrk_threads,
                    timeout=max(10, args.duration),
                )
                if run["server_errors"] or run["unexpected_errors"]:
                    raise SystemExit(f"{name}: errors during the run: {run['statuses']}")
                rates[name].append(run["requests_per_second"])
                cpu[name].append(_cpu_seconds(servers[name].pid) - before[name])
                before[name] += cpu[name][-1]
                served[name] += run["requests"]
    logged_rows = _rows(log_file)
    median = {name: statistics.median(values) for name, values in rates.items()}
    # Each round runs both servers back to back, so the ratio within a round is what drift in
    # the machine's load disturbs least; the cost is the median of those ratios.
    pairs = [log / plain for log, plain in zip(rates["log"], rates["no log"], strict=True)]
    cost = 1 - statistics.median(pairs)
    return {
        "rounds": args.rounds,
        "seconds_per_run": args.duration,
        "connections": args.cached_connections,
        "requests_per_second": rates,
        "median": median,
        "ratio_per_round": [round(p, 4) for p in pairs],
        "cost_from_medians": round(1 - median["log"] / median["no log"], 4),
        "cost": round(cost, 4),
        "cpu_us_per_request": {
            name: round(sum(cpu[name]) / served[name] * 1e6, 1) for name in variants
        },
        "ok": cost <= MAX_COST,
        "rows_logged": logged_rows,
        "load_average_before": load_before,
        "load_average_after": round(os.getloadavg()[0], 2),
    }


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process and all its threads, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rows(path: Path) -> int:
    import sqlite3

    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        count = db.execute("SELECT count(*) FROM asks").fetchone()[0]
    for stale in path.parent.glob(path.name + "*"):
        stale.unlink()
    return int(count)


def table(result: dict[str, Any]) -> str:
    rows = [f"{'server':<10}{'median req/s':>14}{'CPU us/req':>12}  runs"]
    for name, values in result["requests_per_second"].items():
        runs = ", ".join(f"{v:,.0f}" for v in values)
        cpu = result["cpu_us_per_request"][name]
        rows.append(f"{name:<10}{result['median'][name]:>14,.0f}{cpu:>12.1f}  {runs}")
    verdict = "within" if result["ok"] else "OVER"
    ratios = ", ".join(f"{r:.3f}" for r in result["ratio_per_round"])
    rows.append(
        f"logging costs {result['cost']:.1%} of cached-answer throughput, the median of the "
        f"rounds' log / no-log ratios ({ratios}; {result['cost_from_medians']:.1%} from the "
        f"medians), {verdict} the {MAX_COST:.0%} bar; {result['rows_logged']:,} rows written; "
        f"load average {result['load_average_before']} before, "
        f"{result['load_average_after']} after"
    )
    return "\n".join(rows)
