"""A pair model: the bundled MiniLM reading two texts as one input, with fitted layers and a
linear head, on onnxruntime (no torch).

Two of sitecite's models are pair models fitted here (training/train_judge.py's fitting code):
the reader's judge (does this sentence answer this question, sitecite.generate.reader) and the
verifier's support reader (do these source words bear this claim, sitecite.verify). A pair is
the word pieces `[CLS] first [SEP] second [SEP]`, at most `max_tokens`, the second cut to fit;
the model's pooled vector, made unit length and times `scale`, goes through the head to one
logit. The weights file holds the fitted layers under the bundled graph's initializer names
(each matrix int8 with a scale per row, `<name>.scale`; vectors fp16) and the head's
`head.weight` and `head.bias`; the graph is the bundled model's own, its layers' weights
replaced when the session is made. A fitted model's folder holds its weights and a
`card.json`; `read_card` and `shipped` read and find them for both.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from sitecite.errors import EmbedError

T = TypeVar("T")


class PairModel:
    """A fitted pair model (`path`: its weights file) on `threads` onnxruntime threads."""

    def __init__(self, path: Path, scale: float, max_tokens: int, threads: int = 1) -> None:
        from sitecite.embed.bundled import MINILM_ID, bundled_minilm_path
        from sitecite.embed.onnx import OnnxEmbedder

        weights = stored_weights(path)
        try:
            self.head = weights.pop("head.weight").astype(np.float64).reshape(-1)
            self.bias = float(weights.pop("head.bias").reshape(-1)[0])
        except KeyError as exc:
            raise EmbedError(f"{path}: not a pair model's weights ({exc!r} missing)") from exc
        self.scale = float(scale)
        self.max_tokens = int(max_tokens)
        self.model = OnnxEmbedder(
            bundled_minilm_path(), f"{MINILM_ID} {path.stem}", threads, replaced=as_values(weights)
        )

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """The logit of each (first, second) pair, in one model run."""
        if not pairs:
            return np.zeros(0, dtype=np.float64)
        tokenizer = self.model.tokenizer
        cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
        encoded: dict[str, list[int]] = {}

        def ids(text: str) -> list[int]:
            if text not in encoded:
                encoded[text] = tokenizer.encode(text, add_special_tokens=False).ids
            return encoded[text]

        pieces = []
        for first, second in pairs:
            head = ids(first)[: self.max_tokens - 3]
            room = max(0, self.max_tokens - 3 - len(head))
            pieces.append([cls, *head, sep, *ids(second)[:room], sep])
        pooled = self.model.run_pieces(pieces).astype(np.float64)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return np.asarray(self.scale * pooled @ self.head + self.bias, dtype=np.float64)


def read_card(path: Path, version: int, name: str, command: str) -> dict[str, Any]:
    """A fitted model's card (JSON), checked to be of `version`: `name` ("reader") and
    `command` (the one that refits it) say in the error what the file is and how to mend it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EmbedError(f"cannot read the {name}'s card {path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("version") != version:
        found = data.get("version") if isinstance(data, dict) else None
        raise EmbedError(
            f"{path}: {name} card version {found!r}; this sitecite reads version "
            f"{version} (refit with {command})"
        )
    return data


def package_folder(relative: str) -> Path:
    """A folder of the installed package (`data/reader`)."""
    return Path(str(resources.files("sitecite").joinpath(relative)))


def shipped(relative: str, load: Callable[[str], T]) -> T | None:
    """The model the package ships in `relative`, by `load` (cached by its caller); None when
    the folder has no card (a checkout before the model's first fit)."""
    folder = package_folder(relative)
    if not (folder / "card.json").is_file():
        return None
    return load(str(folder))


def stored_weights(path: Path) -> dict[str, np.ndarray]:
    """The arrays of a weights file as fp32: fp16 ones widened, an int8 matrix multiplied by
    its scale per row (`<name>.scale`)."""
    try:
        with np.load(path) as stored:
            arrays = {name: np.asarray(stored[name], np.float32) for name in stored.files}
    except (OSError, ValueError) as exc:
        raise EmbedError(f"cannot read the model weights {path}: {exc}") from exc
    for name in [n for n in arrays if n.endswith(".scale")]:
        scale, scaled = arrays.pop(name), name.removesuffix(".scale")
        if scaled not in arrays:
            raise EmbedError(f"{path}: '{name}' scales '{scaled}', which the file does not hold")
        arrays[scaled] = arrays[scaled] * scale
    return {name: np.ascontiguousarray(a) for name, a in arrays.items()}


def as_values(arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """onnxruntime values over the arrays (each keeps its array alive)."""
    import onnxruntime

    return {name: onnxruntime.OrtValue.ortvalue_from_numpy(a) for name, a in arrays.items()}
