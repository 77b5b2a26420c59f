"""Contextual word-piece vectors of the bundled model, for verification to compare a claim with
its source word by word (BERTScore-style, sitecite.verify.contextual; the shipped support
model does not read these matches: they did not help, README "Verification of model-written
answers").

The vectors are MiniLM's hidden states after its first LAYERS layers (the graph of
bert_graph.py, stopped before pooling), run with 8-bit weights (onnxruntime's dynamic
quantization, made once when the encoder is loaded): on this machine's AVX-512 VNNI cores
that is about three times faster than float32 on one thread. Sentences already encoded
(a site's source sentences come back question after question) are kept, up to CACHE.
"""

from __future__ import annotations

import tempfile
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.embed.bert_graph import BertConfig, build_model
from sitecite.errors import EmbedError

LAYERS = 2  # hidden states after this many of the model's layers (bench/train_verifier.py)
CACHE = 4096  # sentences kept
MAX_PIECES = 128  # word pieces read of one sentence


@dataclass(frozen=True)
class Encoded:
    """One text's word pieces: where each stands in the text, and its unit vector."""

    text: str
    spans: np.ndarray  # (pieces, 2) int32 character offsets, [CLS] and [SEP] left out
    vectors: np.ndarray  # (pieces, dim) float32 unit rows


class TokenEncoder:
    """Word-piece vectors of one BERT model directory on onnxruntime, cached per text."""

    def __init__(
        self,
        model_dir: Path,
        layers: int = LAYERS,
        threads: int = 1,
        int8: bool = True,
        cache: int = CACHE,
    ) -> None:
        from sitecite.embed.onnx import tokenizer_of

        config = BertConfig.read(model_dir)
        if not 1 <= layers <= config.layers:
            raise EmbedError(f"{model_dir}: the model has {config.layers} layers, not {layers}")
        self.layers = layers
        self.dim = config.hidden
        self.tokenizer = tokenizer_of(model_dir, MAX_PIECES)
        self.session = _session(model_dir, config, layers, threads, int8)
        self.capacity = cache
        self._cache: OrderedDict[str, Encoded] = OrderedDict()
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> list[Encoded]:
        """Each text's word pieces; texts not seen before go through the model now."""
        with self._lock:
            known = {t: self._cache[t] for t in texts if t in self._cache}
            for text in known:
                self._cache.move_to_end(text)
        fresh = [t for t in dict.fromkeys(texts) if t not in known]
        if fresh:
            encoded = self._run(fresh)
            with self._lock:
                for item in encoded:
                    self._cache[item.text] = item
                    known[item.text] = item
                while len(self._cache) > self.capacity:
                    self._cache.popitem(last=False)
        return [known[t] for t in texts]

    def forget(self) -> None:
        """Empty the cache (benchmarks measure a first encoding with it)."""
        with self._lock:
            self._cache.clear()

    def _run(self, texts: list[str]) -> list[Encoded]:
        """One model call per text: no padding, and a text's vectors never depend on the
        texts beside it (the 8-bit activations are scaled per call)."""
        out = []
        for text, pieces in zip(texts, self.tokenizer.encode_batch(texts), strict=True):
            ids = np.asarray([pieces.ids], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
            states = self.session.run(None, feed)[0][0]
            keep = [i for i, special in enumerate(pieces.special_tokens_mask) if not special]
            vectors = np.asarray(states[keep], dtype=np.float32)
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
            spans = np.asarray([pieces.offsets[i] for i in keep], dtype=np.int32).reshape(-1, 2)
            out.append(Encoded(text, spans, vectors))
        return out


def _session(model_dir: Path, config: BertConfig, layers: int, threads: int, int8: bool) -> Any:
    import onnxruntime

    from sitecite.embed.onnx import session_options

    model = build_model(model_dir, config, token_layers=layers)
    options = session_options(model_dir, threads)
    try:
        if not int8:
            return onnxruntime.InferenceSession(
                model.SerializeToString(), options, providers=["CPUExecutionProvider"]
            )
        return onnxruntime.InferenceSession(
            _quantized(model, model_dir), options, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:  # noqa: BLE001 - onnxruntime's errors have no common base
        raise EmbedError(f"onnxruntime cannot run the model in {model_dir}: {exc}") from exc


def _quantized(model: Any, model_dir: Path) -> bytes:
    """The model with 8-bit weights (made in a temporary folder; a second or so)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    onnx.load_external_data_for_model(model, str(model_dir))
    with tempfile.TemporaryDirectory(prefix="sitecite-int8-") as folder:
        target = Path(folder) / "model.onnx"
        quantize_dynamic(model, target, weight_type=QuantType.QInt8)
        return target.read_bytes()
