"""Any benchmark run on today's tree and on an earlier commit, in one run, figures side by side.

A benchmark module that prints one JSON object on its last line (`--json`) is run twice per
round, alternating between the two trees so that a busy machine slows both alike: once with
this checkout's `src/` first on the path, once with the earlier commit's (checked out once,
with `git worktree`, under .sitecite/bench/trees/<commit>). Every number of the JSON objects
is printed with both values and their ratio.

    python -m bench.side_by_side --base b542894 -- bench.answer_latency --rounds 1
    python -m bench.side_by_side --base b542894 --rounds 3 -- bench.startup --questions 0
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench._common import CACHE, REPO, console


def tree_at(commit: str) -> Path:
    """A checkout of `commit` (made once, kept under the bench cache)."""
    full = subprocess.run(
        ["git", "rev-parse", commit], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    target = CACHE / "trees" / full[:12]
    if not (target / "src").is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(target), full],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
    return target


def run(module: list[str], src: Path, cache: Path | None = None) -> dict[str, Any]:
    """The benchmark's JSON object, run with `src` first on the path (the bench code is this
    checkout's either way, so both trees are measured the same way) and, for the earlier
    tree, a bench cache of its own (its indexes are its own code's)."""
    environ = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{REPO}"}
    if cache is not None:
        environ["SITECITE_BENCH_CACHE"] = str(cache)
    done = subprocess.run(
        [sys.executable, "-m", *module, "--json"],
        cwd=REPO,
        env=environ,
        capture_output=True,
        text=True,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        raise SystemExit(f"{' '.join(module)} failed under {src}:\n{done.stderr[-2000:]}")
    return dict(json.loads(lines[-1]))


def numbers(data: Any, prefix: str = "") -> Iterator[tuple[str, float]]:
    """Every number of a nested JSON object, by its dotted path."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from numbers(value, f"{prefix}{key}.")
    elif isinstance(data, int | float) and not isinstance(data, bool):
        yield prefix.rstrip("."), float(data)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        raise SystemExit("usage: python -m bench.side_by_side --base COMMIT -- bench.MODULE ...")
    split = argv.index("--")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the earlier commit (e.g. b542894)")
    parser.add_argument("--rounds", type=int, default=1, help="alternating runs per tree")
    args = parser.parse_args(argv[:split])
    module = argv[split + 1 :]
    base_src = tree_at(args.base) / "src"
    today_src = REPO / "src"
    runs: dict[str, list[dict[str, Any]]] = {"base": [], "today": []}
    for _ in range(args.rounds):
        runs["base"].append(run(module, base_src, base_src.parent / ".bench-cache"))
        runs["today"].append(run(module, today_src))
    from rich.table import Table

    table = Table(title=f"{' '.join(module)}: {args.base} against this tree")
    for column in ("figure", args.base, "today", "today / base"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    values: dict[str, dict[str, list[float]]] = {}
    for tree, results in runs.items():
        for result in results:
            for name, number in numbers(result):
                values.setdefault(name, {}).setdefault(tree, []).append(number)
    for name, by_tree in values.items():
        base = sorted(by_tree.get("base", []))
        today = sorted(by_tree.get("today", []))
        if not base or not today:
            continue
        b, t = base[len(base) // 2], today[len(today) // 2]
        ratio = f"{t / b:.2f}" if b else "-"
        table.add_row(name, f"{b:.4g}", f"{t:.4g}", ratio)
    console().print(table)
    print(json.dumps({tree: results for tree, results in runs.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
