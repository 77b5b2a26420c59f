"""The training commands' own checks (training/), on pairs made here: no fit is run."""

from __future__ import annotations

import numpy as np

from training.train_judge import FAILED_FIT_AUC, fold_check

PAIRS = [
    ("site", "Why?", "Because it was time.", 1.0, "lead"),
    ("site", "Why?", "It was a Tuesday.", 0.0, "lead"),
    ("site", "Why?", "Because of the move.", 1.0, "candidate"),
    ("site", "Who?", "Noor built it.", 0.0, "lead"),
]


def test_a_fold_judge_is_checked_on_its_held_out_leads_alone() -> None:
    # the right lead above both wrong ones; the candidate (right, scored lowest) is not read
    assert fold_check(0, PAIRS, np.array([2.0, -1.0, -5.0, -2.0])) == 1.0
    # a judge that reads right leads below wrong ones failed, and is named so
    failed = fold_check(0, PAIRS, np.array([-3.0, 1.0, 9.0, 0.0]))
    assert failed is not None and failed <= FAILED_FIT_AUC


def test_a_fold_whose_leads_are_all_right_cannot_be_checked_and_is_not_fitted_again() -> None:
    only_right = [pair for pair in PAIRS if pair[3] == 1.0]
    assert fold_check(0, only_right, np.zeros(len(only_right))) is None
