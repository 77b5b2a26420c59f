"""A deterministic bag-of-words embedder: no model, no I/O. For tests of index mechanics and
synthetic benchmarks at sizes the real model would take hours to embed; never a default."""

from __future__ import annotations

import hashlib

import numpy as np

from sitecite.embed.base import Embedder
from sitecite.text import words


class HashEmbedder(Embedder):
    id = "hash"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.id = f"hash-{dim}"

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in words(text):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
        return out
