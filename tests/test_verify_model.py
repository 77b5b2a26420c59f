"""The fitted support model and what it reads: the shipped weights load and match the features
the verifier computes; the fatal exact checks; and the training script, which refits it from
labelled replies on their dev half only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_module, shared_data
from test_verify import make_evidence

from sitecite.errors import SiteciteError
from sitecite.verify import SupportModel, Verifier
from sitecite.verify.model import shipped_model

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def evidence(embedder):
    return make_evidence(embedder)  # tests/test_verify.py's four hand-made sections


def verify(evidence, text, **options):
    return Verifier(**options).verify(text, evidence)


def test_the_shipped_model_reads_exactly_what_the_verifier_computes(evidence) -> None:
    model = shipped_model()
    assert 0.0 < model.threshold < 1.0
    result = verify(evidence, "Searches with no results fell from 18.4% to 3.1% [1]. PWNED [1].")
    claim = result.sentences[0]
    assert claim.features is not None and set(model.features) <= set(claim.features)
    assert 0.0 <= claim.probability < model.threshold and claim.ok


def test_a_model_file_for_other_features_is_refused_with_the_fix() -> None:
    data = shipped_model().to_json()
    assert SupportModel.from_json(json.loads(json.dumps(data))).threshold == data["threshold"]
    data["features"] = [*data["features"][:-1], "tea_leaves"]
    with pytest.raises(SiteciteError, match="tea_leaves.*training.train_verifier"):
        SupportModel.from_json(data)


def test_the_threshold_setting_moves_the_operating_point(evidence) -> None:
    text = "Search results came back in 86 ms at p95, down from 1240 ms [1]."
    assert verify(evidence, text).clean
    assert not verify(evidence, text, threshold=0.0).clean  # everything is unsupported at 0


@pytest.mark.parametrize(
    ("text", "check", "why"),
    [
        ("Searches with no results fell from 18.4% to 3.1% [2].", "citations", "uncited section"),
        (
            "It is not true that the old search could not handle typos [1].",
            "polarity",
            "it is not true that",
        ),
        ("Backups go to Backblaze B2, see backblaze.example.com [3].", "names", "web address"),
    ],
)
def test_exact_checks_never_wrong_on_dev_are_fatal(evidence, text, check, why) -> None:
    verdict = verify(evidence, text, threshold=1.0).sentences[0]  # the model drops nothing
    assert why in verdict.problems[check]


def test_the_training_script_fits_on_dev_and_reports_every_half(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    data = shared_data("verification", "example-site.jsonl")
    run = run_module("training.train_verifier", data, "--json", timeout=600)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert 0.0 < report["threshold"] < 1.0
    for half in ("dev_cross_validated", "example-site.jsonl dev", "example-site.jsonl test"):
        assert report[half]["supported"] > 100 and report[half]["unsupported"] > 25
        assert 0.0 <= report[half]["drop_rate"] <= 0.5 and report[half]["catch_rate"] >= 0.5
