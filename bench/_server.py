"""Shared pieces of the server benchmarks: the example index, a `sitecite serve` child process
on 127.0.0.1, its memory from /proc, and the question mix they send."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_SITE = REPO / "examples" / "site"
QUESTION_SETS = (REPO / "examples" / "questions.json", REPO / "examples" / "calibration.json")
OFF_TOPIC = REPO / "src" / "sitecite" / "data" / "offtopic.txt"
DEFAULT_INDEX = REPO / ".sitecite" / "bench" / "load-example-index"
HOST = "127.0.0.1"  # traffic only ever goes to this machine
READY_PREFIX = "sitecite: serving"


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str = ""
    log: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    ready_seconds: float = 0.0

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


def environment(src: Path | None = None, **extra: str) -> dict[str, str]:
    """The child's environment: `src` first on PYTHONPATH (to measure another checkout)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **extra}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    return env


def ensure_index(path: Path, rebuild: bool = False) -> Path:
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
    index: Path,
    workers: int,
    rate_limit: float,
    extra_args: Sequence[str] = (),
    env: dict[str, str] | None = None,
) -> Iterator[Server]:
    """`sitecite serve` on a free port of 127.0.0.1 until the block ends."""
    command = [
        *(sys.executable, "-m", "sitecite.cli", "serve", "--index", str(index)),
        *("--host", HOST, "--port", "0", "--rate-limit", f"{rate_limit:g}"),
        *("--workers", str(workers), *extra_args),
    ]
    process = subprocess.Popen(
        command,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env or environment(),
    )
    server = Server(process)
    ready = threading.Event()

    def read_log() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            server.log.append(line.rstrip())
            if line.startswith(READY_PREFIX) and " at " in line:
                server.ready_seconds = time.perf_counter() - server.started
                server.url = line.split(" at ", 1)[1].split()[0]
                ready.set()

    threading.Thread(target=read_log, daemon=True).start()
    try:
        deadline = time.monotonic() + 180
        while not ready.wait(0.05):
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


def distinct_questions(count: int) -> list[str]:
    """`count` different questions: the example sets and the off-topic list, then the same
    with a few everyday openings, so that none is answered from the cache."""
    base: list[str] = []
    for path in QUESTION_SETS:
        base += [q["question"] for q in json.loads(path.read_text())["questions"]]
    base += [line.strip() for line in OFF_TOPIC.read_text().splitlines() if line.strip()]
    openings = ("", "Quick question: ", "I was wondering, ", "Can you tell me: ")
    unique = list(dict.fromkeys(f"{opening}{q}" for opening in openings for q in base))
    if len(unique) < count:
        raise SystemExit(f"only {len(unique)} distinct questions; asked for {count}")
    return unique[:count]


@contextmanager
def redis_server(directory: Path) -> Iterator[str]:
    """A redis-server on a free port of 127.0.0.1 for the block (its URL), or "" when
    redis-server or redis-py is missing."""
    try:
        import redis
    except ImportError:
        yield ""
        return
    if shutil.which("redis-server") is None:
        yield ""
        return
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no"]
        + ["--dir", str(directory)],
        stdout=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(host=HOST, port=port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield f"redis://{HOST}:{port}/0"
    finally:
        process.terminate()
        process.wait(10)


def load_average() -> float:
    return round(os.getloadavg()[0], 2)
