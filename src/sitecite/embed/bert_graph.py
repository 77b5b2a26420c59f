"""A BERT sentence encoder as an ONNX graph, built from a sentence-transformers model directory.

The graph is the encoder of `config.json`, the pooling of `1_Pooling/config.json` and, when
`modules.json` lists it, L2 normalisation: everything sentence-transformers runs, so its vectors
are the reference's (cosine >= 0.9999, tested). No weight is copied: each initializer points
into `model.safetensors` by offset (ONNX external data), so building the graph costs
milliseconds and no torch, and onnxruntime reads the weights straight from the model's file.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitecite.errors import EmbedError

WEIGHTS = "model.safetensors"
OPSET = 17  # LayerNormalization; onnxruntime 1.17 and later run it
IR_VERSION = 8
POOLING_MODES = ("mean_tokens", "cls_token", "max_tokens", "mean_sqrt_len_tokens")
FLOAT_MIN = -3.4028234663852886e38  # what transformers adds to masked-out attention scores


@dataclass(frozen=True)
class BertConfig:
    """What the graph needs to know about a model, read from its directory."""

    layers: int
    heads: int
    hidden: int
    eps: float
    max_tokens: int
    pooling: str  # "mean" or "cls"
    normalize: bool

    @classmethod
    def read(cls, model_dir: Path) -> BertConfig:
        config = _json(model_dir / "config.json")
        if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
            raise EmbedError(
                f"{model_dir}: the onnx backend runs BERT models with GELU only "
                f"(this is {config.get('model_type')!r}); use embedder_backend = 'torch'"
            )
        pooling = _json(model_dir / "1_Pooling" / "config.json")
        modes = [mode for mode in POOLING_MODES if pooling.get(f"pooling_mode_{mode}")]
        if modes not in (["mean_tokens"], ["cls_token"]):
            raise EmbedError(f"{model_dir}: only mean or CLS pooling runs on the onnx backend")
        modules = json.loads((model_dir / "modules.json").read_text())
        sentence = _json(model_dir / "sentence_bert_config.json")
        return cls(
            layers=int(config["num_hidden_layers"]),
            heads=int(config["num_attention_heads"]),
            hidden=int(config["hidden_size"]),
            eps=float(config.get("layer_norm_eps", 1e-12)),
            max_tokens=int(sentence.get("max_seq_length") or config["max_position_embeddings"]),
            pooling="mean" if modes == ["mean_tokens"] else "cls",
            normalize=any(m.get("type", "").endswith("Normalize") for m in modules),
        )


def _json(path: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError) as exc:
        raise EmbedError(f"cannot read the model file {path}: {exc}") from exc


def safetensors_layout(path: Path) -> dict[str, tuple[str, list[int], int, int]]:
    """name -> (dtype, shape, absolute byte offset, length), from the file's JSON header (the
    format: an 8-byte little-endian header length, the header, then the raw tensors)."""
    try:
        with path.open("rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            header = json.loads(handle.read(length))
    except (OSError, ValueError, struct.error) as exc:
        raise EmbedError(f"{path}: not a readable safetensors file ({exc})") from exc
    start = 8 + length
    return {
        name: (
            spec["dtype"],
            list(spec["shape"]),
            start + spec["data_offsets"][0],
            spec["data_offsets"][1] - spec["data_offsets"][0],
        )
        for name, spec in header.items()
        if name != "__metadata__"
    }


class _Graph:
    """Collects nodes and initializers; every helper returns the name of its output."""

    def __init__(self, weights: dict[str, tuple[str, list[int], int, int]], prefix: str) -> None:
        import onnx

        self.onnx = onnx
        self.weights = weights
        self.prefix = prefix
        self.nodes: list[Any] = []
        self.initializers: dict[str, Any] = {}
        self.count = 0

    def weight(self, name: str) -> str:
        """An initializer that points into the safetensors file."""
        if name not in self.initializers:
            key = self.prefix + name
            if key not in self.weights:
                raise EmbedError(f"{WEIGHTS} has no tensor '{key}': not a BERT model")
            dtype, shape, offset, length = self.weights[key]
            if dtype != "F32":
                raise EmbedError(f"{WEIGHTS}: '{key}' is {dtype}; the onnx backend reads F32")
            tensor = self.onnx.TensorProto(name=name, dims=shape)
            tensor.data_type = self.onnx.TensorProto.FLOAT
            tensor.data_location = self.onnx.TensorProto.EXTERNAL
            for entry, value in (("location", WEIGHTS), ("offset", offset), ("length", length)):
                tensor.external_data.add(key=entry, value=str(value))
            self.initializers[name] = tensor
        return name

    def const(self, values: float | list[float] | list[int], integer: bool = False) -> str:
        import numpy as np

        name = f"const{len(self.initializers)}"
        array = np.asarray(values, dtype=np.int64 if integer else np.float32)
        self.initializers[name] = self.onnx.numpy_helper.from_array(array, name)
        return name

    def op(self, kind: str, *inputs: str, **attributes: Any) -> str:
        self.count += 1
        output = f"{kind.lower()}{self.count}"
        self.nodes.append(self.onnx.helper.make_node(kind, list(inputs), [output], **attributes))
        return output

    def linear(self, x: str, name: str) -> str:
        """x @ weight.T + bias, on a 2-D input (Gemm reads the [out, in] weight as stored)."""
        return self.op(
            "Gemm", x, self.weight(f"{name}.weight"), self.weight(f"{name}.bias"), transB=1
        )

    def layer_norm(self, x: str, name: str, eps: float) -> str:
        scale, bias = self.weight(f"{name}.weight"), self.weight(f"{name}.bias")
        return self.op("LayerNormalization", x, scale, bias, axis=-1, epsilon=eps)


def build_model(model_dir: Path, config: BertConfig) -> Any:
    """The ONNX model: input_ids and attention_mask (int64, batch x tokens) -> embedding, the
    pooled sentence vector."""
    import onnx

    weights = safetensors_layout(model_dir / WEIGHTS)
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
    g = _Graph(weights, prefix)
    batch_tokens = g.op("Shape", "input_ids")
    x = _embeddings(g, config)

    mask = g.op("Cast", "attention_mask", to=onnx.TensorProto.FLOAT)
    masked_out = g.op("Sub", g.const([1.0]), mask)
    bias = g.op("Mul", masked_out, g.const([FLOAT_MIN]))
    attention_bias = g.op("Unsqueeze", bias, g.const([1, 2], integer=True))  # batch,1,1,tokens
    head_dim = config.hidden // config.heads
    split_heads = g.op(
        "Concat", batch_tokens, g.const([config.heads, head_dim], integer=True), axis=0
    )
    for layer in range(config.layers):
        x = _encoder_layer(g, x, f"encoder.layer.{layer}", split_heads, attention_bias, config)

    sequence = g.op(
        "Reshape", x, g.op("Concat", batch_tokens, g.const([config.hidden], integer=True), axis=0)
    )
    pooled = _pool(g, sequence, mask, config.pooling)
    if config.normalize:
        norm = g.op("ReduceL2", pooled, axes=[1], keepdims=1)  # an attribute until opset 18
        g.op("Div", pooled, g.op("Max", norm, g.const([1e-12])))
    output = "embedding"
    g.nodes[-1].output[0] = output
    inputs = [
        onnx.helper.make_tensor_value_info(name, onnx.TensorProto.INT64, ["batch", "tokens"])
        for name in ("input_ids", "attention_mask")
    ]
    shape: list[str | int] = ["batch", config.hidden]
    output_info = onnx.helper.make_tensor_value_info(output, onnx.TensorProto.FLOAT, shape)
    graph = onnx.helper.make_graph(
        g.nodes, "sentence_encoder", inputs, [output_info], list(g.initializers.values())
    )
    return onnx.helper.make_model(
        graph,
        opset_imports=[onnx.helper.make_opsetid("", OPSET)],
        ir_version=IR_VERSION,
        producer_name="sitecite",
    )


def _embeddings(g: _Graph, config: BertConfig) -> str:
    """Word, position and token-type embeddings, normalised; one row per token."""
    tokens = g.op("Shape", "input_ids", start=1, end=2)
    words = g.op("Gather", g.weight("embeddings.word_embeddings.weight"), "input_ids")
    zero = g.const([0], integer=True)
    positions = g.op("Slice", g.weight("embeddings.position_embeddings.weight"), zero, tokens, zero)
    token_type = g.op("Gather", g.weight("embeddings.token_type_embeddings.weight"), zero)
    embedded = g.op("Add", g.op("Add", words, positions), token_type)
    hidden = g.layer_norm(embedded, "embeddings.LayerNorm", config.eps)
    return g.op("Reshape", hidden, g.const([-1, config.hidden], integer=True))


def _encoder_layer(
    g: _Graph, x: str, name: str, split_heads: str, attention_bias: str, config: BertConfig
) -> str:
    """One transformer block, as BertLayer computes it (post-norm, exact GELU)."""
    merge = g.const([-1, config.hidden], integer=True)

    def heads(projection: str, perm: list[int]) -> str:
        return g.op("Transpose", g.op("Reshape", g.linear(x, projection), split_heads), perm=perm)

    query = heads(f"{name}.attention.self.query", [0, 2, 1, 3])  # batch, heads, tokens, dim
    key = heads(f"{name}.attention.self.key", [0, 2, 3, 1])  # batch, heads, dim, tokens
    value = heads(f"{name}.attention.self.value", [0, 2, 1, 3])
    scale = g.const([1.0 / math.sqrt(config.hidden // config.heads)])
    scores = g.op("Add", g.op("Mul", g.op("MatMul", query, key), scale), attention_bias)
    context = g.op("MatMul", g.op("Softmax", scores, axis=-1), value)
    context = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), merge)
    attended = g.linear(context, f"{name}.attention.output.dense")
    x = g.layer_norm(g.op("Add", attended, x), f"{name}.attention.output.LayerNorm", config.eps)
    inner = g.linear(x, f"{name}.intermediate.dense")
    erf = g.op("Erf", g.op("Mul", inner, g.const([1.0 / math.sqrt(2.0)])))
    gelu = g.op("Mul", g.op("Mul", inner, g.const([0.5])), g.op("Add", erf, g.const([1.0])))
    out = g.linear(gelu, f"{name}.output.dense")
    return g.layer_norm(g.op("Add", out, x), f"{name}.output.LayerNorm", config.eps)


def _pool(g: _Graph, sequence: str, mask: str, pooling: str) -> str:
    if pooling == "cls":
        return g.op("Gather", sequence, g.const(0, integer=True), axis=1)  # the [CLS] token
    weights = g.op("Unsqueeze", mask, g.const([2], integer=True))  # batch, tokens, 1
    axis = g.const([1], integer=True)
    summed = g.op("ReduceSum", g.op("Mul", sequence, weights), axis, keepdims=0)
    counts = g.op("Max", g.op("ReduceSum", weights, axis, keepdims=0), g.const([1e-9]))
    return g.op("Div", summed, counts)
