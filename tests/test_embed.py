"""Embedders: MiniLM on onnxruntime gives torch's vectors; the hashing fake is stable."""

from __future__ import annotations

import numpy as np
from conftest import EXAMPLE_SITE

from sitecite.embed import Embedder, HashEmbedder, get_embedder
from sitecite.ingest import load_site


def test_onnx_and_torch_give_the_same_vectors(embedder: Embedder) -> None:
    torch_embedder = get_embedder(
        "sentence-transformers/all-MiniLM-L6-v2", threads=2, backend="torch"
    )
    assert getattr(embedder, "backend", "") == "onnx" and torch_embedder.backend == "torch"
    texts = [s.embed_text for s in load_site(EXAMPLE_SITE).sections[:40]] + ["", "a", "Lisbon?"]
    fast, exact = embedder.embed(texts), torch_embedder.embed(texts)
    assert fast.shape == exact.shape == (len(texts), 384) and fast.dtype == np.float32
    assert float((fast * exact).sum(axis=1).min()) > 0.9999
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)


def test_hash_embedder_is_deterministic_and_unit_length() -> None:
    first, second = (
        HashEmbedder(32).embed(["same words", "other"]),
        HashEmbedder(32).embed(["same words", "other"]),
    )
    assert np.array_equal(first, second) and np.allclose(np.linalg.norm(first, axis=1), 1.0)
