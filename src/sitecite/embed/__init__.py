"""Embedders: the bundled MiniLM (default), any sentence-transformers model, OpenAI-compatible
endpoints, and a deterministic hashing embedder for tests. Heavy imports happen on first use."""

from __future__ import annotations

import threading

from sitecite.embed.base import Embedder, normalise
from sitecite.embed.hashing import HashEmbedder

__all__ = ["Embedder", "HashEmbedder", "get_embedder", "normalise"]

_cache: dict[tuple[str, str, int], Embedder] = {}
_lock = threading.Lock()


def get_embedder(name: str, base_url: str = "", api_key: str = "", threads: int = 1) -> Embedder:
    """The embedder for a settings value, loaded once per process."""
    key = (name, base_url, threads)
    with _lock:
        if key not in _cache:
            _cache[key] = _load(name, base_url, api_key, threads)
        return _cache[key]


def _load(name: str, base_url: str, api_key: str, threads: int) -> Embedder:
    if name.startswith("hash"):
        dim = int(name.split("-", 1)[1]) if "-" in name else 64
        return HashEmbedder(dim)
    if base_url:
        from sitecite.embed.openai import OpenAIEmbedder

        return OpenAIEmbedder(base_url, name, api_key)
    from sitecite.embed.local import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(name, threads=threads)
