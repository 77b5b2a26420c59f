"""Server hygiene: a bounded queue, clean swaps, corrupt indexes and misspelled settings."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.scripted_llm import Reply, ScriptedLLM, faithful
from sitecite.cli import main
from sitecite.config import Settings, load_settings
from sitecite.embed import Embedder
from sitecite.errors import ConfigError, IndexDirError
from sitecite.index.store import BM25_DIR, MANIFEST, load_index, store_thresholds
from sitecite.pipeline import Engine
from sitecite.serve.live import LiveEngine
from sitecite.serve.server import serve_in_thread

QUESTIONS = (
    "Which city and country is she based in?",
    "Who was the Head of Data at Quayline Logistics?",
    "How many components are in Kestrel Bank's design system?",
    "Which of her talks did attendees vote the best?",
    "What does she do to stop shoppers getting charged twice?",
    "Where did Noor work before she went freelance?",
)


def slow_faithful(body: dict[str, Any]) -> Reply:
    time.sleep(1.0)
    return faithful(body)


@pytest.fixture()
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM(slow_faithful) as server:
        yield server


def llm_settings(llm: ScriptedLLM, **serve: Any) -> Settings:
    flags = {"generator": "llm", "llm.base_url": llm.base_url, "llm.model": "scripted-model"}
    flags.update({f"serve.{key}": value for key, value in serve.items()})
    return load_settings(flags, config_file=None, environ={})


def test_a_full_queue_is_a_503_with_retry_after_not_a_longer_wait(
    example_index: Path, embedder: Embedder, llm: ScriptedLLM
) -> None:
    settings = llm_settings(llm, workers=1, queue_size=2, rate_limit_per_minute=0)
    engine = Engine.load(example_index, settings)
    responses: list[httpx.Response] = []
    with serve_in_thread(example_index, settings, engine) as url:

        def ask(question: str) -> None:
            responses.append(httpx.post(f"{url}/api/ask", json={"question": question}, timeout=60))

        threads = [threading.Thread(target=ask, args=(q,)) for q in QUESTIONS]
        for thread in threads:
            thread.start()
            time.sleep(0.05)
        for thread in threads:
            thread.join()
        after = httpx.post(f"{url}/api/ask", json={"question": QUESTIONS[0]}, timeout=60)
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [200, 200, 503, 503, 503, 503]
    busy = [r for r in responses if r.status_code == 503]
    assert all(r.json()["error"]["code"] == "busy" for r in busy)
    assert all(int(r.headers["retry-after"]) >= 1 for r in busy)
    assert after.status_code == 200, "the queue drains and the server answers again"


def test_a_swap_closes_the_old_clients_only_after_their_last_request(
    example_index: Path, tmp_path: Path, llm: ScriptedLLM
) -> None:
    index_dir = tmp_path / "index"
    shutil.copytree(example_index, index_dir)
    live = LiveEngine(index_dir, Engine.load(index_dir, llm_settings(llm)))
    held = live.acquire()  # a request still being answered with the old index
    old_clients = [link.client for link in held.engine.generator.links]  # type: ignore[attr-defined]
    store_thresholds(index_dir, held.engine.embedder.id, {"section": 0.2})  # a new manifest
    assert live.refresh()
    assert live.current is not held and live.current.engine.threshold == pytest.approx(0.2)
    assert not any(client._http.is_closed for client in old_clients), "still in use"
    live.release(held)
    assert all(client._http.is_closed for client in old_clients)
    new_clients = [link.client for link in live.current.engine.generator.links]  # type: ignore[attr-defined]
    assert not any(client._http.is_closed for client in new_clients)
    live.close()
    assert all(client._http.is_closed for client in new_clients)


def test_a_corrupt_index_is_one_clear_error(
    example_index: Path, tmp_path: Path, embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    no_bm25 = tmp_path / "no-bm25"
    shutil.copytree(example_index, no_bm25)
    shutil.rmtree(no_bm25 / BM25_DIR)
    with pytest.raises(IndexDirError, match=r"BM25 index \(bm25/\) is missing"):
        load_index(no_bm25, embedder.id)
    no_embedder = tmp_path / "no-embedder"
    shutil.copytree(example_index, no_embedder)
    manifest = json.loads((no_embedder / MANIFEST).read_text())
    del manifest["embedder"]
    (no_embedder / MANIFEST).write_text(json.dumps(manifest))
    for broken, expected in ((no_bm25, "bm25/"), (no_embedder, "no embedder id")):
        assert main(["ask", "Where is she based?", "--index", str(broken)]) == 1
        error = capsys.readouterr().err
        assert expected in error and "--rebuild" in error and error.count("\n") == 1


def test_misspelled_and_renamed_settings_are_reported() -> None:
    with pytest.raises(ConfigError, match="SITECITE_SERVE_RATE_LIMIT_PER_MINUTE"):
        load_settings({}, environ={"SITECITE_SERVE_RATE_LIMT_PER_MINUTE": "5"})
    with pytest.raises(ConfigError, match="it is now SITECITE_TORCH_THREADS"):
        load_settings({}, environ={"SITECITE_SERVE_TORCH_THREADS": "2"})
    with pytest.raises(ConfigError, match="it is now 'torch_threads'"):
        load_settings({"serve.torch_threads": 2}, environ={})
    with pytest.raises(ConfigError, match="did you mean 'serve.queue_size'"):
        load_settings({"serve.queue_sise": 2}, environ={})
    allowed = {"SITECITE_PROGRESS": "1", "SITECITE_GROQ": "k", "SITECITE_LLM_API_KEY_ENV": ""}
    allowed["SITECITE_LLM_API_KEY_ENV"] = "SITECITE_GROQ"  # a variable a setting names
    assert load_settings({}, environ=allowed).llm.api_key_env == "SITECITE_GROQ"
    assert load_settings({}, environ={"SITECITE_TORCH_THREADS": "2"}).torch_threads == 2
