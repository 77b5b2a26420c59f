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
    with pytest.raises(SiteciteError, match="telepathy.*training.train_ranker --write"):
        load_ranker(path)


def test_question_reading() -> None:
    assert asked_noun("What dataset did he use to benchmark Arquero?") == "dataset"
    assert asked_noun("Which company hosts this website?") == "company"
    assert asked_noun("How many GitHub stars did it get?") == "stars"
    assert asked_noun("What are Jake's rates for freelance work?") == "rates"
    assert asked_noun("What kind of computer does she work on?") == "computer"
    assert asked_noun("Why did he move?") == ""
    assert question_type("When was it published?") == "when"
    assert question_type("How many stars?") == "count"
    assert question_type("Why did he move?") == "why"


def test_shipped_answerability_and_follower_models_load_with_operating_points() -> None:
    from sitecite.generate.answerable import ANSWERABLE_FEATURES, default_answerability
    from sitecite.generate.follow import FOLLOW_FEATURES, default_follower

    for model, known in (
        (default_answerability(), ANSWERABLE_FEATURES),
        (default_follower(), FOLLOW_FEATURES),
    ):
        assert set(model.features) <= set(known) and 0.0 < model.threshold < 1.0
        probability = model.probability(np.zeros((1, len(model.features))))
        assert 0.0 < probability[0] < 1.0


def test_an_outdated_answerability_model_names_its_trainer(tmp_path: Path) -> None:
    from sitecite.generate.answerable import ANSWERABLE_FEATURES, default_answerability

    data = default_answerability().to_json()
    data["features"] = ["hunch", *data["features"][1:]]
    path = tmp_path / "answerable.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SiteciteError, match="hunch.*training.train_answerable --write"):
        load_ranker(path, ANSWERABLE_FEATURES)


def test_what_kind_of_answer_a_question_wants() -> None:
    from sitecite.generate.answer_types import PLANNED, expected_answer, traits

    assert question_type("How do I deploy the site myself?") == "steps"
    assert question_type("In what year did he write it?") == "when"
    words = {"which", "router", "does", "robin", "use"}
    found = expected_answer("which", traits("Robin runs a UniFi Dream Machine.", "prose"), words)
    assert found["name_for_which"] == 1.0 and found["number_for_count"] == 0.0
    plain = traits("Robin uses a router.", "prose")
    assert expected_answer("which", plain, words)["name_for_which"] == 0.0
    counted = traits("It has twelve stars.", "prose")
    assert expected_answer("count", counted, set())["number_for_count"] == 1.0
    assert PLANNED.search("In the next part of the series, I plan to show typed code.")
    assert not PLANNED.search("I planted trees in 2019 and they grew.")


@pytest.mark.parametrize(
    ("sentence", "dated"),
    [
        ("In April 2021 I went independent.", True),
        ("It shipped in May.", True),
        ("We moved in the winter.", True),
        ("I have since worked with retailers and a bank.", False),  # "since" is not a date
        ("You may want to keep the old branch.", False),  # nor is the verb "may"
        ("The band will march through town.", False),
    ],
)
def test_a_when_question_is_answered_only_by_a_sentence_holding_a_date(
    sentence: str, dated: bool
) -> None:
    from sitecite.screen import has_answer_kind

    assert has_answer_kind("date", sentence, "When did she go independent?") is dated
