"""An on-disk cache (one SQLite file beside the index) for what costs money or time on a rerun:
judge verdicts and query embeddings. Keys include the model and prompt version, so changing
either misses the cache instead of returning a stale verdict."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.embed import Embedder


def cache_path(index_dir: str | Path) -> Path:
    """The cache of an index lives beside it (the index directory is replaced on every rebuild)."""
    index_dir = Path(index_dir).resolve()
    return index_dir.with_name(index_dir.name + ".cache.sqlite")


def cache_key(*parts: Any) -> str:
    """A stable digest of any JSON-serialisable parts."""
    return hashlib.sha256(
        json.dumps(parts, sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()


class DiskCache:
    """A thread-safe key-value store: (kind, key) -> bytes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS cache (kind TEXT NOT NULL, key TEXT NOT NULL, "
            "value BLOB NOT NULL, created REAL NOT NULL, PRIMARY KEY (kind, key))"
        )
        self._db.commit()
        self.hits = 0
        self.misses = 0

    def get(self, kind: str, key: str) -> bytes | None:
        with self._lock:
            row = self._db.execute(
                "SELECT value FROM cache WHERE kind = ? AND key = ?", (kind, key)
            ).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return bytes(row[0])

    def put(self, kind: str, key: str, value: bytes) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO cache VALUES (?, ?, ?, ?)", (kind, key, value, time.time())
            )
            self._db.commit()

    def get_json(self, kind: str, key: str) -> Any:
        raw = self.get(kind, key)
        return None if raw is None else json.loads(raw)

    def put_json(self, kind: str, key: str, value: Any) -> None:
        self.put(kind, key, json.dumps(value, ensure_ascii=False).encode())

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachingEmbedder(Embedder):
    """Wraps an embedder; each text's vector is looked up on disk first (keyed by embedder id)."""

    def __init__(self, inner: Embedder, cache: DiskCache) -> None:
        self.inner = inner
        self.cache = cache
        self.id = inner.id
        self.dim = inner.dim
        self.batch_size = inner.batch_size

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_batch(texts)

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        keys = [cache_key(self.id, text) for text in texts]
        found = {i: self.cache.get("embedding", key) for i, key in enumerate(keys)}
        missing = [i for i, raw in found.items() if raw is None]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, raw in found.items():
            if raw is not None:
                out[i] = np.frombuffer(raw, dtype=np.float32)
        if missing:
            fresh = self.inner.embed([texts[i] for i in missing], progress=progress)
            for position, i in enumerate(missing):
                out[i] = fresh[position]
                self.cache.put("embedding", keys[i], fresh[position].astype(np.float32).tobytes())
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
