"""The reader: how strongly a candidate sentence reads as the answer to a question, from a model
trained here (training/train_reader.py) on visitors' questions about nineteen sites.

The reader is the bundled MiniLM with its top two layers fitted to read questions: it turns a
question into a vector that lies close to the vectors of the sentences that answer it, and far
from those of the sentences around them that only share its topic. The sentence side is the
index's own sentence vectors (the bundled MiniLM's, made at index time), so reading costs one
more question embedding and a dot product per candidate; nothing changes at index time.

A candidate's reading is `sentence · reader(question) + w * (sentence · bundled(question)) -
null`: `w` (negative: closeness to the topic alone is what a site's wrong sentences share with
its right ones) and `null` (the score above which the model learned that a sentence answers at
all, from the near misses) are fitted with the layers. It is one column of the answer ranker's
features (`features.FEATURES`, "reader"), so the ranker, the answerability model, the follower
and the direct model weigh it with everything else they read.

The model folder is `sitecite/data/reader/`: `card.json` (what it is, what it was fitted on,
`null` and `w`) and `layers.npz` (the fitted layers, fp16, named as the bundled graph's
initializers). The graph is the bundled model's own (embed/graphs.py); the fitted layers
replace its top layers' weights when the session is made. It reads the bundled model's
sentence vectors only: with any other embedder the column is 0 for every candidate.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.errors import EmbedError

CARD_VERSION = 1
FOLDER = "data/reader"


@dataclass(frozen=True)
class ReaderCard:
    """What the runtime needs of a fitted tower, and what it says about itself."""

    base_model: str  # the embedder whose sentence vectors it reads
    null: float
    bundled_weight: float  # how much the bundled model's own cosine adds to the reader's
    about: dict[str, Any]

    @classmethod
    def read(cls, path: Path) -> ReaderCard:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise EmbedError(f"cannot read the reader's card {path}: {exc}") from exc
        if not isinstance(data, dict) or data.get("version") != CARD_VERSION:
            found = data.get("version") if isinstance(data, dict) else None
            raise EmbedError(
                f"{path}: reader card version {found!r}; this sitecite reads version "
                f"{CARD_VERSION} (refit with python -m training.train_reader --write)"
            )
        try:
            return cls(
                str(data["base_model"]),
                float(data["null"]),
                float(data["bundled_weight"]),
                dict(data.get("about", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbedError(f"{path}: not a reader card ({exc!r} missing or wrong)") from exc


class Reader:
    """A fitted question tower: the bundled model on onnxruntime with the fitted layers in place
    of its own (an `OnnxEmbedder`, `threads` threads)."""

    def __init__(self, folder: Path, threads: int = 1) -> None:
        from sitecite.embed.bundled import MINILM_ID, bundled_minilm_path
        from sitecite.embed.onnx import OnnxEmbedder

        self.folder = folder
        self.card = ReaderCard.read(folder / "card.json")
        replaced = fitted_layers(folder / "layers.npz")
        try:
            self.tower = OnnxEmbedder(
                bundled_minilm_path(), f"{MINILM_ID} reader", threads, replaced=replaced
            )
        except EmbedError as exc:
            raise EmbedError(f"the reader in {folder}: {exc}") from exc

    def reads(self, model_id: str) -> bool:
        """Whether the reader reads sentence vectors made by the embedder `model_id`."""
        from sitecite.embed.bundled import MINILM_ALIASES

        return model_id in MINILM_ALIASES and self.card.base_model in MINILM_ALIASES

    def question_vector(self, question: str) -> np.ndarray:
        """The reader's vector of a question (a unit row)."""
        return self.tower.embed_query(question)

    def read_for(self, question: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        """The readings of sentences for `question`, from their vectors and their cosines with
        the bundled model's vector of it (what `features.candidates_and_features` calls)."""
        vector = self.question_vector(question)
        return lambda sentences, bundled: self.scores(vector, sentences, bundled)

    def scores(
        self, question: np.ndarray, sentences: np.ndarray, bundled: np.ndarray
    ) -> np.ndarray:
        """Each sentence's reading (rows of the index's sentence vectors) for the question (the
        reader's vector of it); `bundled` are the sentences' cosines with the bundled model's
        vector of the question. Above 0: the reader takes the sentence for an answer."""
        if not len(sentences):
            return np.zeros(0, dtype=np.float64)
        own = sentences.astype(np.float64) @ question.astype(np.float64)
        return own + self.card.bundled_weight * np.asarray(bundled, np.float64) - self.card.null


def fitted_layers(path: Path) -> dict[str, Any]:
    """The fitted layers' weights as onnxruntime values, by the graph's initializer names."""
    import onnxruntime

    try:
        with np.load(path) as stored:
            arrays = {name: np.ascontiguousarray(stored[name], np.float32) for name in stored.files}
    except (OSError, ValueError) as exc:
        raise EmbedError(f"cannot read the reader's weights {path}: {exc}") from exc
    return {name: onnxruntime.OrtValue.ortvalue_from_numpy(a) for name, a in arrays.items()}


def reader_folder() -> Path:
    return Path(str(resources.files("sitecite").joinpath(FOLDER)))


@lru_cache(maxsize=32)
def load_reader(folder: str, threads: int = 1) -> Reader:
    """A reader, loaded once per process and folder."""
    return Reader(Path(folder), threads)


def default_reader() -> Reader | None:
    """The shipped reader; None when the package has none (a checkout before its first fit)."""
    folder = reader_folder()
    if not (folder / "card.json").is_file():
        return None
    return load_reader(str(folder))
