"""Fit when to answer at all, and when a second sentence joins, and measure both per held-out site.

Every question of the answer data (training/answerdata) and of the real sites' dev halves is run
as serving runs it, with a ranker fitted on the other sites (training/_decisions.py), and each
site's two models are fitted on the other sites' rows and measured on its own.

- answerability (`generate/answerable.py`): one row per question (per part for a question of
  several); answerable questions whose lead holds a key fact are positive, unanswerable ones
  (near misses, dev abstention questions) negative. The threshold is the one with the most
  questions handled right (answerable ones answered with every key fact, unanswerable ones
  refused, early refusals included), with held-out-site predictions; the threshold that would
  refuse REFUSE of the dev halves' abstention questions is reported beside, with its cost.
- follower (`generate/follow.py`): one row per sentence that may follow the lead; positive when
  it brings in a key fact (`must_contain`) the lead lacks. The threshold maximises the questions
  whose every key fact is in the lead and its followers, less FOLLOW_COST per sentence added.

    python -m training.train_answerable [--write] [--reuse] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench._common import REPO, console
from training import train_ranker
from training._decisions import Decision, decisions

SITES = train_ranker.SITES
DATA_DIR = REPO / "src" / "sitecite" / "data"
REFUSE = 0.9  # share of the dev halves' abstention questions refused at the chosen threshold
FOLLOW_COST = 0.1  # an added sentence must bring a key fact this often (at the margin) to be shown
C = 1.0


def fit_logistic(x: np.ndarray, y: np.ndarray, features: Sequence[str], c: float = C) -> Any:
    """A logistic regression on standardised features, as a shippable model."""
    from sklearn.linear_model import LogisticRegression

    from sitecite.generate.ranker import Ranker

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, y)
    about = {"rows": int(len(y)), "positives": int(y.sum())}
    return Ranker(tuple(features), mean, scale, model.coef_[0], float(model.intercept_[0]), about)


def answerability_data(found: Sequence[Decision]) -> tuple[list[Decision], np.ndarray]:
    """Rows to fit on: unanswerable questions, and answerable ones whose lead holds a key fact
    (an answerable question answered wrongly is not what refusing should learn from)."""
    kept = [d for d in found if d.row is not None and (not d.answerable or d.lead_hits > 0)]
    return kept, np.array([d.answerable for d in kept], dtype=int)


def fit_answerability(found: Sequence[Decision]) -> Any:
    """The answerability model fitted on these questions' rows (`answerability_data`)."""
    from sitecite.generate.answerable import ANSWERABLE_FEATURES

    train, labels = answerability_data(found)
    return fit_logistic(np.vstack([d.row for d in train]), labels, ANSWERABLE_FEATURES)


def fit_follower(found: Sequence[Decision]) -> Any:
    """The follower fitted on these questions' candidate followers: positive when one brings
    in a key fact the lead lacks."""
    from sitecite.generate.follow import FOLLOW_FEATURES

    usable = [d for d in found if _followable(d)]
    x = np.vstack([d.pool_rows for d in usable])
    y = np.concatenate([np.array(d.pool_gain) > 0 for d in usable]).astype(int)
    return fit_logistic(x, y, FOLLOW_FEATURES)


def answerability_loso(found: Sequence[Decision]) -> dict[int, float]:
    """Each answered-to-this-point question's probability, from a model fitted on the other
    sites (keyed by position in `found`)."""
    probabilities: dict[int, float] = {}
    for site in SITES:
        model = fit_answerability([d for d in found if d.site != site])
        for n, d in enumerate(found):
            rows = [d.row] if d.row is not None else d.part_rows
            if d.site == site and rows:
                # a question of several parts is answered when any part is
                probabilities[n] = float(model.probability(np.vstack(rows)).max())
    return probabilities


def refused(
    found: Sequence[Decision], probabilities: dict[int, float], threshold: float
) -> list[bool]:
    return [d.refused_early or probabilities[n] < threshold for n, d in enumerate(found)]


def choose_threshold(
    found: Sequence[Decision],
    probabilities: dict[int, float],
    follow: dict[int, np.ndarray],
    follow_threshold: float,
) -> float:
    """The threshold with the most questions handled right (answerable ones answered with every
    key fact, unanswerable ones refused), lowest on a tie; held-out-site models."""
    best, value = 0.0, -1
    for threshold in np.round(np.arange(0.0, 1.0, 0.05), 2):
        right = handled_right(found, probabilities, float(threshold), follow, follow_threshold)
        if right > value:
            best, value = float(threshold), right
    return best


def handled_right(
    found: Sequence[Decision],
    probabilities: dict[int, float],
    threshold: float,
    follow: dict[int, np.ndarray],
    follow_threshold: float,
) -> int:
    said_no = refused(found, probabilities, threshold)
    right = 0
    for n, d in enumerate(found):
        if d.answerable and d.groups:
            right += int(not said_no[n] and with_follower(d, follow.get(n), follow_threshold)[0])
        elif not d.answerable:
            right += int(said_no[n])
    return right


def abstention_point(found: Sequence[Decision], probabilities: dict[int, float]) -> float:
    """The lowest threshold that refuses at least REFUSE of the dev halves' abstention
    questions (reported beside the chosen one: what that bar costs)."""
    for threshold in np.round(np.arange(0.0, 1.0, 0.01), 2):
        said_no = refused(found, probabilities, float(threshold))
        unanswerable = [
            r
            for r, d in zip(said_no, found, strict=True)
            if d.origin in ("dev", "owner") and not d.answerable
        ]
        if sum(unanswerable) >= REFUSE * len(unanswerable):
            return float(threshold)
    return 1.0


def follower_loso(found: Sequence[Decision]) -> dict[int, np.ndarray]:
    """Each question's follower probabilities, from a model fitted on the other sites."""
    probabilities: dict[int, np.ndarray] = {}
    for site in SITES:
        model = fit_follower([d for d in found if d.site != site])
        for n, d in enumerate(found):
            if d.site == site and _followable(d):
                probabilities[n] = model.probability(d.pool_rows)
    return probabilities


def _followable(d: Decision) -> bool:
    return d.answerable and d.groups > 0 and d.pool_rows is not None and len(d.pool_rows) > 0


def with_follower(
    d: Decision, probabilities: np.ndarray | None, threshold: float
) -> tuple[bool, int]:
    """(every key fact shown, sentences added) when the best follower joins above `threshold`."""
    hits = d.lead_hits
    if probabilities is None or not len(probabilities) or probabilities.max() < threshold:
        return hits == d.groups, 0
    return hits + d.pool_gain[int(probabilities.argmax())] == d.groups, 1


def choose_follow_threshold(
    found: Sequence[Decision], probabilities: dict[int, np.ndarray]
) -> float:
    """The threshold with the most questions fully answered, less FOLLOW_COST per sentence."""
    best, value = 1.0, -1.0
    for threshold in np.round(np.arange(0.05, 1.0, 0.05), 2):
        outcomes = [with_follower(found[n], p, float(threshold)) for n, p in probabilities.items()]
        score = np.mean([ok for ok, _ in outcomes]) - FOLLOW_COST * np.mean(
            [k for _, k in outcomes]
        )
        if score > value:
            best, value = float(threshold), float(score)
    return best


def figures(
    found: Sequence[Decision],
    answer_p: dict[int, float],
    threshold: float,
    follow_p: dict[int, np.ndarray],
    follow_threshold: float,
) -> dict[str, dict[str, Any]]:
    """Per site and origin: answerable questions with every key fact shown, and unanswerable
    questions refused, at the given thresholds (held-out-site models)."""
    said_no = refused(found, answer_p, threshold)
    rows: dict[str, dict[str, Any]] = {}
    for n, d in enumerate(found):
        row = rows.setdefault(
            f"{d.site} {d.origin}", {"correct": [0, 0], "refused": [0, 0], "added": 0}
        )
        if d.answerable and d.groups:
            ok, added = with_follower(d, follow_p.get(n), follow_threshold)
            row["correct"][0] += int(ok and not said_no[n])
            row["correct"][1] += 1
            row["added"] += added if not said_no[n] else 0
        elif not d.answerable:
            row["refused"][0] += int(said_no[n])
            row["refused"][1] += 1
    return rows


def run(found: list[Decision], write: bool) -> dict[str, Any]:

    answer_p = answerability_loso(found)
    follow_p = follower_loso(found)
    follow_threshold = choose_follow_threshold(found, follow_p)
    threshold = choose_threshold(found, answer_p, follow_p, follow_threshold)
    strict = abstention_point(found, answer_p)
    result = {
        "threshold": threshold,
        "follow_threshold": follow_threshold,
        "abstention_point": strict,
        "lead only, never refusing": figures(found, answer_p, 0.0, {}, 1.0),
        "with the follower, never refusing": figures(
            found, answer_p, 0.0, follow_p, follow_threshold
        ),
        "with the follower, refusing below the chosen threshold": figures(
            found, answer_p, threshold, follow_p, follow_threshold
        ),
        "with the follower, refusing at the abstention point": figures(
            found, answer_p, strict, follow_p, follow_threshold
        ),
    }
    if write:
        model = fit_answerability(found)
        model.about.update(threshold=threshold, refuse=REFUSE, trained_on=TRAINED_ON)
        (DATA_DIR / "answerable.json").write_text(json.dumps(model.to_json(), indent=1) + "\n")
        follower = fit_follower(found)
        follower.about.update(threshold=follow_threshold, trained_on=TRAINED_ON)
        (DATA_DIR / "answer_follower.json").write_text(
            json.dumps(follower.to_json(), indent=1) + "\n"
        )
    return result


TRAINED_ON = train_ranker.TRAINED_ON


def print_tables(result: dict[str, Any]) -> None:
    from rich.table import Table

    out = console()
    out.print(
        f"answerability threshold {result['threshold']:.2f} (the most questions handled right); "
        f"{result['abstention_point']:.2f} would refuse >= {REFUSE:.0%} of the dev halves' "
        f"abstention questions; follower threshold {result['follow_threshold']:.2f}",
        highlight=False,
    )
    for name in [k for k in result if isinstance(result[k], dict)]:
        table = Table(title=f"{name} (each site's models fitted on the other sites)")
        for column in (
            "questions",
            "answerable: every key fact shown",
            "unanswerable refused",
            "sentences added",
        ):
            table.add_column(column, justify="left" if column == "questions" else "right")
        for key, row in result[name].items():
            table.add_row(key, _rate(*row["correct"]), _rate(*row["refused"]), str(row["added"]))
        out.print(table)


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} = {hits / total:.0%}" if total else "-"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the two models' weights")
    parser.add_argument("--reuse", action="store_true", help="reuse the previous run's rows")
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = parser.parse_args(argv)
    result = run(decisions(args.reuse), args.write)
    print_tables(result)
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
