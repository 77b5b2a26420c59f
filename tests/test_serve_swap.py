"""Live index swap: `sitecite index` replaces the directory while questions keep arriving."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from sitecite.config import Settings, load_settings
from sitecite.embed import Embedder
from sitecite.index.build import build_index
from sitecite.index.store import MANIFEST, load_index
from sitecite.pipeline import Engine, answer
from sitecite.serve.server import serve_in_thread

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_SITE = REPO / "examples" / "site"
NEW_PAGE = """---
title: Tea
---

## Favourite tea

Noor's favourite tea is a smoky Lapsang Souchong from a small shop in Alfama.
"""
CLIENTS = 4


def _settings() -> Settings:
    return load_settings(
        {"serve.rate_limit_per_minute": 0, "serve.index_poll_seconds": 0.1},
        config_file=None,
        environ={},
    )


def _questions() -> list[str]:
    data = json.loads((REPO / "examples" / "questions.json").read_text())
    picked = [q["question"] for q in data["questions"]][::4]
    return ["What is Noor's favourite tea?", *picked]


def _reference(engine: Engine, questions: list[str]) -> dict[str, dict[str, Any]]:
    expected = {}
    for question in questions:
        body = answer(engine, question)[0].to_json()
        body.pop("latency_ms")
        expected[" ".join(question.split())] = body
    return expected


def _stream(
    url: str, questions: list[str], offset: int, stop: threading.Event, out: list[Any]
) -> None:
    with httpx.Client(base_url=url, timeout=60) as client:
        n = offset
        while not stop.is_set():
            question = questions[n % len(questions)]
            n += 1
            try:
                response = client.post("/api/ask", json={"question": question})
                out.append(
                    (
                        offset,
                        response.status_code,
                        response.headers.get("x-sitecite-index"),
                        response.content,
                    )
                )
            except httpx.HTTPError as error:  # a failure is recorded, not raised in the thread
                out.append((offset, 0, None, repr(error).encode()))


def _wait_for(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_index_swap_during_concurrent_requests_fails_nothing_and_mixes_nothing(
    tmp_path: Path, example_index: Path, embedder: Embedder, engine: Engine
) -> None:
    index = tmp_path / "index"
    shutil.copytree(example_index, index)
    content = tmp_path / "site"
    shutil.copytree(EXAMPLE_SITE, content)
    (content / "tea.md").write_text(NEW_PAGE)
    questions = _questions()
    old_id = engine.index.id
    results: list[Any] = []
    stop = threading.Event()

    with serve_in_thread(index, _settings(), engine) as url:
        threads = [
            threading.Thread(target=_stream, args=(url, questions, n, stop, results), daemon=True)
            for n in range(CLIENTS)
        ]
        for thread in threads:
            thread.start()
        _wait_for(lambda: len(results) >= 8, 60, "requests against the old index")
        report = build_index(content, index, embedder)  # the same atomic swap `sitecite index` does
        new_id = report.index_id
        assert new_id != old_id
        with httpx.Client(base_url=url) as client:
            _wait_for(
                lambda: client.get("/api/health").json()["index_id"] == new_id, 30, "the swap"
            )
            served_after = len(results)
            _wait_for(
                lambda: len(results) >= served_after + 8, 60, "requests against the new index"
            )
            stop.set()
            for thread in threads:
                thread.join(60)
            health = client.get("/api/health").json()
            assert health["sections"] == len(engine.index.sections) + 1
            assert client.get("/tea").status_code == 200, "the new page is served"

    failures = [r for r in results if r[1] != 200]
    assert not failures, failures[:3]
    seen = {r[2] for r in results}
    assert seen == {old_id, new_id}, seen

    new_engine = engine.with_index(load_index(index, engine.embedder.id))
    expected = {old_id: _reference(engine, questions), new_id: _reference(new_engine, questions)}
    for client_number, _, index_id, content_bytes in results:
        body = json.loads(content_bytes)
        body.pop("latency_ms")
        body.pop("id")  # each answer served has its own
        assert body == expected[index_id][body["question"]], (
            client_number,
            index_id,
            body["question"],
        )
    for client_number in range(CLIENTS):
        ids = [r[2] for r in results if r[0] == client_number]
        assert ids == sorted(ids, key=lambda i: i == new_id), "once on the new index, never back"


def test_a_broken_replacement_keeps_the_old_index_serving(
    tmp_path: Path, example_index: Path, engine: Engine
) -> None:
    index = tmp_path / "index"
    shutil.copytree(example_index, index)
    with serve_in_thread(index, _settings(), engine) as url, httpx.Client(base_url=url) as client:
        temporary = index / ".manifest.tmp"
        temporary.write_text("{ not json")
        temporary.replace(index / MANIFEST)
        time.sleep(0.5)  # several polls
        assert client.get("/api/health").json()["index_id"] == engine.index.id
        response = client.post("/api/ask", json={"question": "How old is Noor?"})
        assert (
            response.status_code == 200 and response.headers["x-sitecite-index"] == engine.index.id
        )
        manifest = json.loads((example_index / MANIFEST).read_text())
        manifest["index_id"] = "repaired0001"
        temporary.write_text(json.dumps(manifest))
        temporary.replace(index / MANIFEST)
        _wait_for(
            lambda: client.get("/api/health").json()["index_id"] == "repaired0001", 10, "reload"
        )


@pytest.mark.slow
def test_sitecite_serve_command_prints_its_url_and_serves(example_index: Path) -> None:
    import subprocess
    import sys

    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sitecite.cli",
            "serve",
            "--index",
            str(example_index),
            "--port",
            "0",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        url = ""
        deadline = time.monotonic() + 120
        while not url and time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line and process.poll() is not None:
                break
            if line.startswith("sitecite: serving"):
                url = line.split(" at ")[1].split()[0]
        assert url.startswith("http://127.0.0.1:"), "no URL printed"
        health = httpx.get(f"{url}/api/health", timeout=10).json()
        assert health["status"] == "ok" and health["sections"] > 100
    finally:
        process.terminate()
        process.wait(20)
