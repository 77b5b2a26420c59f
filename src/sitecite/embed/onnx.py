"""Sentence-transformers BERT models on onnxruntime, with no torch: the default embedder.

The graph comes from bert_graph.py (built from the model's own files, weights read in place
from `model.safetensors`), built once and kept (graphs.py) so that a start reads it with
onnxruntime alone; the word pieces come from the `tokenizers` library reading
`tokenizer.json`. The vectors are sentence-transformers' (tests/test_embed.py checks cosine
>= 0.9999 against the reference on torch). One short question on one thread: 3.2 ms in the
model against 3.4 ms for the graph torch.onnx.export made of the same weights.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.embed.base import Embedder, normalise
from sitecite.embed.bert_graph import BertConfig
from sitecite.embed.graphs import graph_bytes
from sitecite.errors import EmbedError

log = logging.getLogger("sitecite.embed")

MAX_BATCH_TOKENS = 4096  # padded word pieces per model call while indexing


class OnnxEmbedder(Embedder):
    """A local sentence-transformers BERT directory run on onnxruntime at `threads` threads;
    `replaced` (onnxruntime values by the graph's initializer names) takes the place of those
    weights of the model (the reader's fitted layers: generate/reader.py)."""

    def __init__(
        self,
        model_dir: Path,
        model_id: str,
        threads: int = 1,
        batch_size: int = 32,
        replaced: Mapping[str, Any] | None = None,
    ):
        self.id = model_id
        self.batch_size = batch_size
        config = BertConfig.read(model_dir)
        self.dim = config.hidden
        self.max_tokens = config.max_tokens
        self.model_dir = model_dir
        self.tokenizer = tokenizer_of(model_dir, config.max_tokens)
        self.pad_id = self.tokenizer.token_to_id("[PAD]") or 0
        self._replaced = dict(replaced or {})  # alive as long as the session that reads them
        self.session = _session(model_dir, config, threads, self._replaced)

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        encoded = (
            self.tokenizer.encode_batch(texts)
            if len(texts) > 1
            else [self.tokenizer.encode(texts[0])]
        )
        return self._run([e.ids for e in encoded])

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Each distinct text once (3% of timlrx's sentences repeat), in batches of texts of
        similar token length so that little of a batch is padding, and of at most
        MAX_BATCH_TOKENS tokens so that long texts do not raise the memory peak; rows come
        back in the order given."""
        distinct = list(dict.fromkeys(texts))
        if not distinct:
            return np.zeros((0, self.dim), dtype=np.float32)
        pieces = [e.ids for e in self.tokenizer.encode_batch(distinct)]
        order = sorted(range(len(distinct)), key=lambda i: len(pieces[i]))  # stable
        vectors = np.empty((len(distinct), self.dim), dtype=np.float32)
        start = 0
        while start < len(order):
            end = start + 1
            while (
                end < len(order)
                and end - start < self.batch_size
                and (end - start + 1) * len(pieces[order[end]]) <= MAX_BATCH_TOKENS
            ):
                end += 1
            rows = order[start:end]
            vectors[rows] = self._run([pieces[i] for i in rows])
            if progress is not None:
                progress(len(rows))
            start = end
        if progress is not None and len(texts) > len(distinct):
            progress(len(texts) - len(distinct))
        row_of = {text: n for n, text in enumerate(distinct)}
        return normalise(vectors[[row_of[text] for text in texts]])

    def run_pieces(self, pieces: list[list[int]]) -> np.ndarray:
        """The model on word-piece ids made by the caller (a pair: generate/reader.py)."""
        return self._run(pieces)

    def _run(self, pieces: list[list[int]]) -> np.ndarray:
        """The model on word-piece ids, padded to the longest."""
        width = max(len(ids) for ids in pieces)
        input_ids = np.full((len(pieces), width), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(pieces), width), dtype=np.int64)
        for row, ids in enumerate(pieces):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feed = {"input_ids": input_ids, "attention_mask": mask}
        return np.asarray(self.session.run(None, feed)[0], dtype=np.float32)

    @cached_property
    def _counter(self) -> Any:
        return tokenizer_of(self.model_dir, None)

    def count_tokens(self, text: str) -> int:
        """Word pieces in `text`, without truncation or the [CLS]/[SEP] markers."""
        return len(self._counter.encode(text, add_special_tokens=False).ids)


def tokenizer_of(model_dir: Path, max_tokens: int | None) -> Any:
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    except Exception as exc:  # noqa: BLE001 - the library raises plain Exception
        raise EmbedError(f"cannot read {model_dir / 'tokenizer.json'}: {exc}") from exc
    tokenizer.no_padding()  # padding is done per batch, in numpy
    tokenizer.no_truncation()
    if max_tokens is not None:  # the file's own settings (128, padded to 128) are not the model's
        tokenizer.enable_truncation(max_tokens)
    return tokenizer


def session_options(model_dir: Path, threads: int) -> Any:
    """onnxruntime's options for serving: `threads` threads that sleep when idle."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = max(1, threads)
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # Idle workers sleep instead of spinning: with two threads on two busy cores, spinning took
    # one sentence from 11 ms to 23 ms p50 (bench/speed.py). Serving uses one thread.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # The graph's initializers are offsets into model.safetensors, found in this folder.
    options.add_session_config_entry(
        "session.model_external_initializers_file_folder_path", str(model_dir)
    )
    return options


def _session(model_dir: Path, config: BertConfig, threads: int, replaced: Mapping[str, Any]) -> Any:
    import onnxruntime

    options = session_options(model_dir, threads)
    if replaced:
        options.add_external_initializers(list(replaced), list(replaced.values()))
    model = graph_bytes(model_dir, config)
    try:
        return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime's errors have no common base
        raise EmbedError(f"onnxruntime cannot run the model in {model_dir}: {exc}") from exc
