"""The support reader: whether a claim's source words bear it, read together by a model trained
here (training/train_support.py) on written claims about sixteen real sites.

The verifier's features read words (how much of a claim its sources use, which figures and
names they hold); a claim that keeps its source's words and changes what they mean reads alike
to them. The support reader is a pair model (sitecite.embed.pair): the claim and its grounds
(`SentenceVerdict.grounds`: the sentences a quoted claim's quotes stand in, or the one or two
source sentences an unquoted claim rests on most) as one input, `[CLS] claim [SEP] grounds
[SEP]`, through the bundled MiniLM with six fitted layers and a head; its logit (high: the
grounds bear the claim) is the feature `support_reader` of the verifier's logistic models,
which weigh it with the rest (training/train_verifier.py).

The model folder is `sitecite/data/support/`: `card.json` (what it is, what it was fitted on,
its `scale` and `max_tokens`) and `weights.npz` (the six layers, each matrix int8 with a scale
per row, and the head). It is loaded the first time a model that reads it verifies a claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.embed.pair import PairModel, package_folder, read_card, shipped
from sitecite.errors import EmbedError

READ = "support_reader"  # the feature's name in the verifier's models
CARD_VERSION = 1
FOLDER = "data/support"
COMMAND = "python -m training.train_support --write"


class SupportReader:
    """The fitted support reader in `folder`, on `threads` onnxruntime threads."""

    def __init__(self, folder: Path, threads: int = 1) -> None:
        path = folder / "card.json"
        card = read_card(path, CARD_VERSION, "support reader", COMMAND)
        try:
            scale, tokens = float(card["scale"]), int(card["max_tokens"])
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbedError(
                f"{path}: not a support reader card ({exc!r} missing or wrong)"
            ) from exc
        self.about: dict[str, Any] = dict(card.get("about", {}))
        self.model = PairModel(folder / "weights.npz", scale, tokens, threads)

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """For each (claim, grounds): how surely the grounds bear the claim (a logit)."""
        return self.model.logits([(as_read(c), as_read(g)) for c, g in pairs])


THOUSANDS = re.compile(r"(?<=\d)[,\u202f\u00a0](?=\d{3}(?!\d))")


def as_read(text: str) -> str:
    """A text as the support reader reads it, in training and at serving: figures without
    their thousands separators ("1,240" and "1240" are the same figure; whether a claim's
    figures stand in its sources is the exact checks' to say, sitecite.verify.checks)."""
    return THOUSANDS.sub("", text)


def support_folder() -> Path:
    return package_folder(FOLDER)


@lru_cache(maxsize=8)
def load_support_reader(folder: str, threads: int = 1) -> SupportReader:
    """A support reader, loaded once per process and folder."""
    return SupportReader(Path(folder), threads)


def default_support_reader() -> SupportReader | None:
    """The shipped support reader; None when the package has none."""
    return shipped(FOLDER, load_support_reader)
