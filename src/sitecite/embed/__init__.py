"""Embedders: the bundled MiniLM on onnxruntime (default, no torch), any sentence-transformers
model (local BERT directories on onnxruntime, others on torch from the `torch` extra),
OpenAI-compatible endpoints, and a deterministic hashing embedder for tests. Heavy imports
happen on first use."""

from __future__ import annotations

import threading
from pathlib import Path

from sitecite.config import Settings
from sitecite.embed.base import Embedder, normalise
from sitecite.embed.bundled import MINILM_ID, bundled_minilm_path, is_bundled
from sitecite.embed.hashing import HashEmbedder
from sitecite.errors import EmbedError

__all__ = [
    "Embedder",
    "HashEmbedder",
    "embedder_for",
    "get_embedder",
    "normalise",
]

_cache: dict[tuple[str, str, int, str, int], Embedder] = {}
_lock = threading.Lock()


def get_embedder(
    name: str,
    base_url: str = "",
    api_key: str = "",
    threads: int = 1,
    backend: str = "auto",
    batch_size: int = 32,
) -> Embedder:
    """The embedder for a settings value, loaded once per process."""
    key = (name, base_url, threads, backend, batch_size)
    with _lock:
        if key not in _cache:
            _cache[key] = _load(name, base_url, api_key, threads, backend)
            _cache[key].batch_size = batch_size
        return _cache[key]


def embedder_for(settings: Settings, threads: int | None = None) -> Embedder:
    """The embedder the settings name (threads: `torch_threads` unless given; texts embedded
    `index.batch_size` at a time)."""
    return get_embedder(
        settings.embedder,
        settings.embedder_base_url,
        settings.embedder_api_key,
        threads or settings.torch_threads,
        settings.embedder_backend,
        settings.index.batch_size,
    )


def _load(name: str, base_url: str, api_key: str, threads: int, backend: str) -> Embedder:
    if name.startswith("hash"):
        dim = int(name.split("-", 1)[1]) if "-" in name else 64
        return HashEmbedder(dim)
    if base_url:
        from sitecite.embed.openai import OpenAIEmbedder

        return OpenAIEmbedder(base_url, name, api_key)
    if backend != "torch" and is_bundled(name):
        return _onnx(bundled_minilm_path(), MINILM_ID, threads)
    if backend == "onnx":
        if not Path(name).is_dir():
            raise EmbedError(
                "embedder_backend = 'onnx' runs the bundled MiniLM or a local model directory; "
                f"'{name}' is neither"
            )
        return _onnx(Path(name), name, threads)
    from sitecite.embed.local import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(name, threads=threads)


def _onnx(model_dir: Path, model_id: str, threads: int) -> Embedder:
    from sitecite.embed.onnx import OnnxEmbedder

    return OnnxEmbedder(model_dir, model_id, threads)
