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

The reader also reads a pair (`Reader.judge`): the question and one sentence together, through
a second copy of MiniLM whose six layers and a linear head are fitted
(training/train_judge.py) to say whether the sentence answers the question. The tower ranks
every candidate from vectors made without the question; the judge reads the words of both, so
it costs a model pass per pair and reads only the sentence an answer would lead with (its
logit is the direct model's `lead_judge`).

The model folder is `sitecite/data/reader/`: `card.json` (what it is, what it was fitted on,
`null` and `w`, and the judge's `judge` settings), `layers.npz` (the tower's fitted layers,
fp16, named as the bundled graph's initializers) and `judge.npz` (the judge's six layers, each
matrix int8 with a scale per row, and its head's `head.weight` and `head.bias`). The graph is
the bundled model's own (embed/graphs.py); the fitted layers replace its layers' weights when
the session is made. It reads the bundled model's sentence vectors only: with any other
embedder the column is 0 for every candidate, and the judge is not asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.embed.pair import (
    PairModel,
    as_values,
    package_folder,
    read_card,
    shipped,
    stored_weights,
)
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
    judge: dict[str, Any] | None = None  # the pair judge's scale and max_tokens, when it has one

    @classmethod
    def read(cls, path: Path) -> ReaderCard:
        data = read_card(path, CARD_VERSION, "reader", "python -m training.train_reader --write")
        try:
            return cls(
                str(data["base_model"]),
                float(data["null"]),
                float(data["bundled_weight"]),
                dict(data.get("about", {})),
                dict(data["judge"]) if data.get("judge") is not None else None,
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
            self.pair = None if self.card.judge is None else self._pair(folder, threads)
        except EmbedError as exc:
            raise EmbedError(f"the reader in {folder}: {exc}") from exc

    def _pair(self, folder: Path, threads: int) -> PairModel:
        """The judge's copy of the model, with its fitted layers, and its head."""
        path = folder / "judge.npz"
        settings = self.card.judge or {}
        try:
            scale, tokens = float(settings["scale"]), int(settings["max_tokens"])
        except (KeyError, TypeError, ValueError) as exc:
            card = folder / "card.json"
            raise EmbedError(f"{card}: the judge's {exc!r} missing or wrong") from exc
        return PairModel(path, scale, tokens, threads)

    def judge(self, question: str, sentence: str) -> float:
        """How surely `sentence` answers `question`, read together (a logit: above 0, the judge
        takes it for an answer); 0.0 when this reader has no judge."""
        return float(self.judge_all(question, [sentence])[0])

    def judge_all(self, question: str, sentences: Sequence[str]) -> np.ndarray:
        """The judge's logit of each sentence as the answer to `question`, in one model run
        (zeros when this reader has no judge): the pair `[CLS] question [SEP] sentence [SEP]`,
        the sentence cut to fit, as it was fitted (training/train_judge.py)."""
        if self.pair is None:
            return np.zeros(len(sentences), dtype=np.float64)
        return self.pair.logits([(question, s) for s in sentences])

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
    return as_values(stored_weights(path))


def reader_folder() -> Path:
    return package_folder(FOLDER)


@lru_cache(maxsize=32)
def load_reader(folder: str, threads: int = 1) -> Reader:
    """A reader, loaded once per process and folder."""
    return Reader(Path(folder), threads)


def default_reader() -> Reader | None:
    """The shipped reader; None when the package has none (a checkout before its first fit)."""
    return shipped(FOLDER, load_reader)
