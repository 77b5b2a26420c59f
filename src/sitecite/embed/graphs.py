"""The ONNX graph of a BERT model directory, built once and then read with onnxruntime alone.

Building a graph (bert_graph.py) needs the onnx package, whose import alone cost about as much
as everything else `sitecite ask` loads. So a graph is built once per model and builder, and
kept:

- shipped: the default model's graph is in the package (`data/bert-graph-<key>.onnx`, 27 KB:
  the weights stay in the model's own safetensors file), so the default install never needs
  onnx;
- cached: any other model's graph is written to the cache directory at its first use
  (`$SITECITE_CACHE_DIR`, else `$XDG_CACHE_HOME/sitecite`, else `~/.cache/sitecite`); that
  first use needs the `onnx` extra.

A graph is found by its key: a hash of bert_graph.py's source, of the model's configuration and
of its safetensors header (which fixes every offset the graph points at), so a changed model or
builder never meets an old graph.
"""

from __future__ import annotations

import hashlib
import logging
import os
import struct
from importlib import resources
from pathlib import Path

from sitecite.embed import bert_graph
from sitecite.embed.bert_graph import WEIGHTS, BertConfig
from sitecite.errors import EmbedError

log = logging.getLogger("sitecite.embed")

SHIPPED_PREFIX = "bert-graph-"
ONNX_HINT = "pip install 'sitecite[onnx]'"


def graph_key(model_dir: Path, config: BertConfig) -> str:
    """What the graph depends on, hashed: the builder's source, the configuration read from the
    model's files and the safetensors header (tensor names, shapes and offsets)."""
    digest = hashlib.sha256(Path(bert_graph.__file__).read_bytes())
    digest.update(repr(config).encode())
    try:
        with (model_dir / WEIGHTS).open("rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            digest.update(handle.read(length))
    except (OSError, struct.error) as exc:
        raise EmbedError(f"{model_dir / WEIGHTS}: not a readable safetensors file ({exc})") from exc
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    """Where built graphs are kept: $SITECITE_CACHE_DIR, $XDG_CACHE_HOME/sitecite or
    ~/.cache/sitecite."""
    if os.environ.get("SITECITE_CACHE_DIR"):
        return Path(os.environ["SITECITE_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sitecite"


def graph_bytes(model_dir: Path, config: BertConfig) -> bytes:
    """The serialised graph of the model: shipped, cached, or built now (and cached)."""
    key = graph_key(model_dir, config)
    shipped = resources.files("sitecite").joinpath(f"data/{SHIPPED_PREFIX}{key}.onnx")
    if shipped.is_file():
        return shipped.read_bytes()
    cached = cache_dir() / "onnx" / f"{key}.onnx"
    if cached.is_file():
        return cached.read_bytes()
    model = build_graph(model_dir, config)
    _keep(cached, model)
    return model


def build_graph(model_dir: Path, config: BertConfig) -> bytes:
    """The graph built now with the onnx package (a clear error when it is not installed)."""
    try:
        import onnx  # noqa: F401 - checked here to say what to install
    except ImportError as exc:
        raise EmbedError(
            f"{model_dir}: the graph of this model is built once, at its first use, with the "
            f"onnx package, which is not installed: {ONNX_HINT} (the default model's graph "
            "ships with sitecite)"
        ) from exc
    return bytes(bert_graph.build_model(model_dir, config).SerializeToString())


def _keep(path: Path, model: bytes) -> None:
    """Write the graph for the next start, atomically; a cache that cannot be written only
    means the next start builds it again."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_bytes(model)
        os.replace(partial, path)
    except OSError as exc:
        log.info("could not cache the model's graph in %s: %s", path.parent, exc)
