"""The answer-sentence ranker: shipped weights load, score rows by name, and bad weights say why."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sitecite.errors import SiteciteError
from sitecite.generate.answer_types import asked_noun, question_type
from sitecite.generate.features import FEATURES
from sitecite.generate.ranker import default_ranker, load_ranker


def test_shipped_weights_load_and_rank_a_better_sentence_higher() -> None:
    ranker = default_ranker()
    assert set(ranker.features) <= set(FEATURES) and {"cosine", "coverage"} <= set(ranker.features)
    rows = np.zeros((2, len(FEATURES)))
    rows[0, FEATURES.index("cosine")], rows[1, FEATURES.index("cosine")] = 0.7, 0.2
    rows[0, FEATURES.index("coverage")], rows[1, FEATURES.index("coverage")] = 0.9, 0.3
    scores = ranker.scores(rows, FEATURES)
    assert scores[0] > scores[1]
    own = rows[:, [FEATURES.index(n) for n in ranker.features]]
    assert np.allclose(ranker.scores(own), scores)


def test_weights_for_features_this_version_lacks_are_refused(tmp_path: Path) -> None:
    data = default_ranker().to_json()
    data["features"] = ["cosine", "telepathy", *data["features"][2:]]
    path = tmp_path / "ranker.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SiteciteError, match="telepathy.*bench/train_ranker.py"):
        load_ranker(path)


def test_question_reading() -> None:
    assert asked_noun("What dataset did he use to benchmark Arquero?") == "dataset"
    assert asked_noun("Which company hosts this website?") == "company"
    assert asked_noun("How many GitHub stars did it get?") == "stars"
    assert asked_noun("What are Jake's rates for freelance work?") == "rates"
    assert asked_noun("Why did he move?") == ""
    assert question_type("When was it published?") == "when"
    assert question_type("How many stars?") == "count"
    assert question_type("Why did he move?") == "why"
