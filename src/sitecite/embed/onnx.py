"""all-MiniLM-L6-v2 on onnxruntime: the same vectors as sentence-transformers on torch (cosine
1.0 to 1e-7, checked at load) in well under half the time on these CPUs (one short sentence
on one thread: 15 ms against 34 ms, measured side by side).

The transformer is exported from the bundled weights once and cached; mean pooling and
normalisation, which is what this model's sentence-transformers configuration does, run in
numpy.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("sitecite.embed")

OPSET = 17
PROBE = "sitecite checks that the exported model gives the same vectors as the original."


def cache_dir() -> Path:
    return Path(os.environ.get("SITECITE_CACHE_DIR") or Path.home() / ".cache" / "sitecite")


def _model_key(model_dir: Path) -> str:
    digest = hashlib.sha256()
    for name in sorted(p.name for p in model_dir.iterdir() if p.is_file()):
        stat = (model_dir / name).stat()
        digest.update(f"{name}:{stat.st_size}".encode())
    return digest.hexdigest()[:16]


def _export(transformer: Any, tokenizer: Any, target: Path) -> None:
    """Export the transformer to ONNX (written to a temporary file, then renamed into place)."""
    import torch

    class LastHiddenState(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    example = tokenizer([PROBE], return_tensors="pt")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {name: {0: "batch", 1: "tokens"} for name in [*names, "last_hidden_state"]}
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=target.parent, suffix=".onnx.tmp")
    os.close(fd)
    try:
        with torch.inference_mode():
            torch.onnx.export(
                LastHiddenState(transformer).eval(),
                tuple(example[name] for name in names),
                temporary,
                input_names=names,
                output_names=["last_hidden_state"],
                dynamic_axes=axes,
                opset_version=OPSET,
                dynamo=False,
            )
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


class OnnxMiniLM:
    """Runs the exported transformer; `encode` returns unit-length float32 rows."""

    def __init__(self, sentence_transformer: Any, model_dir: Path, threads: int) -> None:
        import onnxruntime

        self.tokenizer = sentence_transformer.tokenizer
        self.max_tokens = int(sentence_transformer.max_seq_length or 256)
        path = cache_dir() / "onnx" / f"all-MiniLM-L6-v2-{_model_key(model_dir)}-{OPSET}.onnx"
        if not path.exists():
            log.info("exporting the embedding model to ONNX at %s (once)", path)
            _export(sentence_transformer[0].auto_model, self.tokenizer, path)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # Idle workers sleep instead of spinning: with two threads on two busy cores, spinning
        # took one sentence from 11 ms to 23 ms p50. Serving still uses one thread (bench/speed.py:
        # two were faster idle, 8.6 against 11.4 ms p50, but slower at p95 with a core busy).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )

    def encode(self, texts: list[str]) -> np.ndarray:
        batch = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.max_tokens, return_tensors="np"
        )
        inputs = {
            name: np.asarray(batch[name], dtype=np.int64)
            for name in ("input_ids", "attention_mask", "token_type_ids")
        }
        hidden = self.session.run(None, inputs)[0]
        mask = inputs["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def load_onnx(sentence_transformer: Any, model_dir: Path, threads: int) -> OnnxMiniLM | None:
    """The ONNX runner if onnxruntime works and agrees with torch on a probe; else None."""
    try:
        runner = OnnxMiniLM(sentence_transformer, model_dir, threads)
        fast = runner.encode([PROBE])[0]
        exact = sentence_transformer.encode(
            [PROBE], normalize_embeddings=True, show_progress_bar=False
        )[0]
    except Exception as exc:  # noqa: BLE001 - any failure means: stay on torch
        log.warning("onnxruntime unavailable for the embedder, using torch: %s", exc)
        return None
    if float(np.dot(fast, exact)) < 0.9999:
        log.warning("the ONNX export disagrees with torch; using torch")
        return None
    return runner
