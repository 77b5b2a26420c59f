"""Two `sitecite serve` processes sharing a real redis-server on 127.0.0.1 (`serve.redis_url`):
one rate limit, one answer cache, one answer per question in flight, and answers still served
(from each process's own state, with a warning in /api/health) while Redis is gone."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.scripted_llm import Reply, ScriptedLLM, faithful

pytestmark = pytest.mark.slow

QUESTION = "Which city and country is she based in?"
RATE_LIMIT = 4
LLM_SECONDS = 1.5  # long enough that the second replica asks while the first is answering


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    """Debian's redis-server on a free port of 127.0.0.1, no persistence; stoppable and
    restartable on the same port."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.directory = directory
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        import redis

        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no", "--dir", str(self.directory)],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None


@pytest.fixture()
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    pytest.importorskip("redis", reason="needs redis-py: pip install 'sitecite[redis]'")
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server not found (apt-get install redis-server; scripts/test.sh does)")
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def delayed_faithful(body: dict[str, Any]) -> Reply:
    time.sleep(LLM_SECONDS)
    return faithful(body)


@pytest.fixture()
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM(delayed_faithful) as server:
        yield server


def start_replica(index: Path, environment: dict[str, str], cwd: Path) -> tuple[Any, str]:
    command = [sys.executable, "-m", "sitecite.cli", "serve", "--index", str(index)]
    process = subprocess.Popen(
        [*command, "--port", "0", "--rate-limit", str(RATE_LIMIT)],
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=cwd,
    )
    assert process.stderr is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if line.startswith("sitecite: serving"):
            threading.Thread(target=process.stderr.read, daemon=True).start()  # drain the log
            return process, line.split(" at ")[1].split()[0]
        if not line and process.poll() is not None:
            break
    process.kill()
    raise AssertionError("a replica did not start")


@pytest.fixture()
def replicas(
    example_index: Path, redis_server: RedisServer, llm: ScriptedLLM, tmp_path: Path
) -> Iterator[list[str]]:
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith("SITECITE_")},
        "SITECITE_SERVE_REDIS_URL": redis_server.url,
        "SITECITE_SERVE_TRUSTED_PROXIES": "127.0.0.1",  # so each part of the test is a client
        "SITECITE_SERVE_INDEX_POLL_SECONDS": "60",
        "SITECITE_GENERATOR": "llm",
        "SITECITE_LLM_BASE_URL": llm.base_url,
        "SITECITE_LLM_MODEL": "scripted-model",
    }
    started = [start_replica(example_index, environment, tmp_path) for _ in range(2)]
    try:
        yield [url for _, url in started]
    finally:
        for process, _ in started:
            process.terminate()
            process.wait(20)


def ask(url: str, client: str, question: str = QUESTION) -> httpx.Response:
    return httpx.post(
        f"{url}/api/ask",
        json={"question": question},
        headers={"X-Forwarded-For": client},
        timeout=60,
    )


def _same_answer(one: httpx.Response, other: httpx.Response) -> bool:
    """The same answer JSON but for the `id` every answer served gets for itself."""
    first, second = one.json(), other.json()
    return first.pop("id") != second.pop("id") and first == second


def test_two_replicas_share_one_limit_one_cache_and_one_answer_in_flight(
    replicas: list[str], redis_server: RedisServer, llm: ScriptedLLM
) -> None:
    first, second = replicas
    for url in replicas:
        health = httpx.get(f"{url}/api/health").json()
        assert health["shared_state"] == "redis" and health["warnings"] == []

    # The same question on both replicas at once: one answers it, the other takes its answer.
    llm.reset()
    results: dict[str, httpx.Response] = {}
    threads = [
        threading.Thread(target=lambda u=url: results.__setitem__(u, ask(u, "198.51.100.1")))
        for url in replicas
    ]
    for thread in threads:
        thread.start()
        time.sleep(0.2)
    for thread in threads:
        thread.join()
    assert [results[url].status_code for url in replicas] == [200, 200]
    assert _same_answer(results[first], results[second])
    assert sorted(results[url].headers["x-sitecite-cache"] for url in replicas) == [
        "miss",
        "shared",
    ]
    assert len(llm.requests) == 1, "the second replica must not ask the model again"
    assert not results[first].json()["refused"]

    # A cached answer on one replica is a hit on the other.
    cached = ask(second, "198.51.100.2")
    assert cached.headers["x-sitecite-cache"] == "hit" and _same_answer(cached, results[first])

    # One bucket per address across both replicas: RATE_LIMIT requests, then 429 on either.
    client = "203.0.113.9"
    statuses = [ask(replicas[n % 2], client).status_code for n in range(RATE_LIMIT)]
    assert statuses == [200] * RATE_LIMIT
    for url in replicas:
        refused = ask(url, client)
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1


def test_replicas_keep_answering_while_redis_is_gone_and_recover(
    replicas: list[str], redis_server: RedisServer
) -> None:
    assert ask(replicas[0], "192.0.2.1").status_code == 200
    redis_server.stop()
    for url in replicas:
        answered = ask(url, "192.0.2.2", "Who was the Head of Data at Quayline Logistics?")
        assert answered.status_code == 200 and "Femke Janssens" in answered.json()["answer"]
        health = httpx.get(f"{url}/api/health").json()
        assert health["status"] == "degraded" and health["shared_state"] == "redis"
        assert "redis at 127.0.0.1" in health["warnings"][0]
        assert "this process" in health["warnings"][0]
    # The fallback still limits: this process's own bucket for the address.
    statuses = [ask(replicas[0], "192.0.2.3").status_code for _ in range(RATE_LIMIT + 1)]
    assert statuses == [200] * RATE_LIMIT + [429]

    redis_server.start()
    time.sleep(5.5)  # shared.RETRY_SECONDS: Redis is tried again after that
    for url in replicas:
        assert ask(url, "192.0.2.4").status_code == 200
        health = httpx.get(f"{url}/api/health").json()
        assert health["status"] == "ok" and health["warnings"] == []
