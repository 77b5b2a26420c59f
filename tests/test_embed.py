"""Embedders: MiniLM on onnxruntime gives sentence-transformers' vectors without importing
torch; the hashing fake is stable; the OpenAI-compatible client speaks `/embeddings` to a real
server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import EXAMPLE_SITE

from sitecite.embed import Embedder, HashEmbedder, get_embedder
from sitecite.embed.bert_graph import BertConfig
from sitecite.embed.bundled import bundled_minilm_path
from sitecite.embed.graphs import SHIPPED_PREFIX, build_graph, graph_bytes, graph_key
from sitecite.embed.local import SentenceTransformerEmbedder
from sitecite.embed.onnx import OnnxEmbedder
from sitecite.embed.openai import OpenAIEmbedder
from sitecite.errors import ConfigError, EmbedError
from sitecite.ingest import load_site


def test_onnx_gives_the_sentence_transformers_vectors(embedder: Embedder) -> None:
    pytest.importorskip("sentence_transformers", reason="the reference needs the torch extra")
    reference = get_embedder("sentence-transformers/all-MiniLM-L6-v2", threads=2, backend="torch")
    assert isinstance(embedder, OnnxEmbedder)
    assert isinstance(reference, SentenceTransformerEmbedder)
    long_text = " ".join(s.embed_text for s in load_site(EXAMPLE_SITE).sections[:3])
    texts = [s.embed_text for s in load_site(EXAMPLE_SITE).sections[:40]]
    texts += ["", "a", "Lisbon?", "naïve café — 東京 🚀", long_text]  # empty, unicode, > 256 tokens
    fast, exact = embedder.embed(texts), reference.embed(texts)
    assert fast.shape == exact.shape == (len(texts), 384) and fast.dtype == np.float32
    assert float((fast * exact).sum(axis=1).min()) >= 0.9999
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)
    assert embedder.count_tokens(long_text) == reference.count_tokens(long_text) > 256


def test_onnx_rows_come_back_in_the_order_given(embedder: Embedder) -> None:
    texts = ["a much longer question about the caching of web pages", "hi", "medium length"]
    together = embedder.embed(texts)
    one_by_one = np.vstack([embedder.embed([text]) for text in texts])
    assert np.allclose(together, one_by_one, atol=1e-5)


HEAVY = ("torch", "transformers", "sentence_transformers", "onnx", "ml_dtypes")


def _heavy_imports(code: str, tmp_path: Path) -> list[str]:
    """The heavy modules a fresh interpreter has imported after running `code`, with an empty
    graph cache (so only the graph shipped in the package can spare it onnx)."""
    code += f"\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    env = {**os.environ, "SITECITE_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


def test_answering_imports_neither_torch_nor_onnx(example_index: Path, tmp_path: Path) -> None:
    code = (
        "from sitecite.cli import main\n"
        f"main(['ask', 'Which city is she based in?', '--index', {str(example_index)!r}])"
    )
    assert _heavy_imports(code, tmp_path) == []


def test_serving_imports_neither_torch_nor_onnx(example_index: Path, tmp_path: Path) -> None:
    code = (
        "import httpx\n"
        "from sitecite.config import load_settings\n"
        "from sitecite.serve.server import serve_in_thread\n"
        "settings = load_settings({'serve.log': ''}, config_file=None, environ={})\n"
        f"with serve_in_thread({str(example_index)!r}, settings) as url:\n"
        "    ask = httpx.post(url + '/api/ask', json={'question': 'Where is she based?'})\n"
        "    assert ask.status_code == 200, ask.text"
    )
    assert _heavy_imports(code, tmp_path) == []


def test_the_default_models_graph_ships_in_the_package() -> None:
    """The shipped graph is what bert_graph.py builds today (`python -m training.bundled_graph
    --write` after changing either)."""
    pytest.importorskip("onnx", reason="building the graph needs the onnx extra")
    model_dir = bundled_minilm_path()
    config = BertConfig.read(model_dir)
    shipped = resources.files("sitecite").joinpath(
        f"data/{SHIPPED_PREFIX}{graph_key(model_dir, config)}.onnx"
    )
    assert shipped.is_file(), "stale: run python -m training.bundled_graph --write"
    assert shipped.read_bytes() == build_graph(model_dir, config)


def test_another_models_graph_is_built_once_then_read_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnx", reason="building the graph needs the onnx extra")
    bundled = bundled_minilm_path()
    model_dir = tmp_path / "other-bert"
    shutil.copytree(bundled, model_dir)  # copies: onnx refuses weights with several hard links
    config_file = model_dir / "config.json"
    changed = {**json.loads(config_file.read_text()), "layer_norm_eps": 1e-11}
    config_file.write_text(json.dumps(changed))  # another model: another key, no shipped graph
    monkeypatch.setenv("SITECITE_CACHE_DIR", str(tmp_path / "cache"))
    config = BertConfig.read(model_dir)
    cached = tmp_path / "cache" / "onnx" / f"{graph_key(model_dir, config)}.onnx"
    assert not cached.exists()
    built = graph_bytes(model_dir, config)
    assert cached.read_bytes() == built
    written = cached.stat().st_mtime_ns
    assert graph_bytes(model_dir, config) == built
    assert cached.stat().st_mtime_ns == written  # read, not built again (a build rewrites it)
    vectors = OnnxEmbedder(model_dir, "other-bert").embed(["Lisbon", "a café in Lisbon"])
    assert vectors.shape == (2, 384) and float(vectors[0] @ vectors[1]) > 0.3


def test_hash_embedder_is_deterministic_and_unit_length() -> None:
    first, second = (
        HashEmbedder(32).embed(["same words", "other"]),
        HashEmbedder(32).embed(["same words", "other"]),
    )
    assert np.array_equal(first, second) and np.allclose(np.linalg.norm(first, axis=1), 1.0)


class EmbeddingsHandler(BaseHTTPRequestHandler):
    """`POST /v1/embeddings`: vector i of an input is [len(text), i + 1, 1], returned in reverse
    order (the client must sort by `index`); a model named "broken" gets a 500."""

    seen: list[dict[str, Any]] = []

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        if body["model"] == "broken":
            payload, status = b'{"error": "down"}', 500
        else:
            rows = [
                {"index": i, "embedding": [float(len(text)), float(i + 1), 1.0]}
                for i, text in enumerate(body["input"])
            ]
            payload, status = json.dumps({"data": rows[::-1]}).encode(), 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture()
def embeddings_url() -> Iterator[str]:
    EmbeddingsHandler.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), EmbeddingsHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/"
    finally:
        server.shutdown()
        server.server_close()


def test_openai_embedder_sorts_by_index_and_normalises(embeddings_url: str) -> None:
    embedder = OpenAIEmbedder(embeddings_url, "tiny", api_key="sk-test", batch_size=2)
    assert embedder.dim == 3 and embedder.id == f"openai:tiny@{embeddings_url.rstrip('/')}"
    vectors = embedder.embed(["a", "bbb", "cc"])
    expected = np.array([[1, 1, 1], [3, 2, 1], [2, 1, 1]], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vectors, expected)
    requests = EmbeddingsHandler.seen
    assert [r["input"] for r in requests] == [["dimension probe"], ["a", "bbb"], ["cc"]]
    assert {r["path"] for r in requests} == {"/v1/embeddings"}
    assert {r["auth"] for r in requests} == {"Bearer sk-test"}


def test_openai_embedder_errors_name_the_setting_or_the_endpoint(embeddings_url: str) -> None:
    with pytest.raises(ConfigError, match="embedder_base_url"):
        OpenAIEmbedder("localhost:11434/v1", "tiny")
    with pytest.raises(EmbedError, match="127.0.0.1"):
        OpenAIEmbedder(embeddings_url, "broken")
