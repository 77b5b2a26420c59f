"""Any sentence-transformers model on torch (the `torch` extra): models the onnx backend cannot
run, or `embedder_backend = "torch"`. Never downloads at run time."""

from __future__ import annotations

import os

import numpy as np

from sitecite.embed.base import Embedder
from sitecite.embed.bundled import MINILM_ID, bundled_minilm_path, is_bundled
from sitecite.errors import EmbedError

TORCH_HINT = "pip install 'sitecite[torch]'"


class SentenceTransformerEmbedder(Embedder):
    """Any sentence-transformers model by name or path, on the CPU."""

    def __init__(self, name: str, threads: int = 1, batch_size: int = 32) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        self.id = MINILM_ID if is_bundled(name) else name
        self.batch_size = batch_size
        path = str(bundled_minilm_path()) if self.id == MINILM_ID else name
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedError(
                f"embedder '{name}' runs on torch, which is not installed: {TORCH_HINT}"
            ) from exc
        # A deliberate thread count: on 2 cores torch's default collapses under load.
        torch.set_num_threads(max(1, threads))
        try:
            self.model = SentenceTransformer(path, device="cpu")
        except Exception as exc:  # noqa: BLE001 - any load failure becomes one clear error
            raise EmbedError(f"cannot load embedding model '{name}': {exc}") from exc
        self.dim = int(self.model.get_embedding_dimension() or 0)
        self.max_tokens = int(self.model.max_seq_length or 0)

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        return np.asarray(
            self.model.encode(
                texts,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            ),
            dtype=np.float32,
        )

    def count_tokens(self, text: str) -> int:
        return len(self.model.tokenizer.tokenize(text))
