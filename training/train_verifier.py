"""Fit the verifier's support model (src/sitecite/verify/support_model.json) on the DEV halves
of the labelled model-written replies, and report every half once.

Every reply is replayed through the production path (bench/_replies.py) with a verifier that
records each claim's features (sitecite.verify.features) and drops nothing for support; each
labelled sentence is matched to its verdict. On the dev sentences, logistic regression
(scikit-learn, a training-time dependency of the `test` extra) is fitted with its
regularisation chosen by cross-validation grouped by question (both answers to a question in
one fold), and the threshold is chosen on the out-of-fold probabilities: the largest share
of unsupported sentences caught minus the share of supported ones dropped (or, with
`--max-drop`, the most caught with at most that share dropped). The test
halves are scored once, with the model refitted on all dev sentences.

    python -m training.train_verifier [FILES...] [--max-drop F] [--quote-scope quotes] [--write]

Without FILES: the example site's set and the five sets of bench/replies (the hand-written
example answers are dev only). Files of quoted replies are read too (bench/_replies.py).
`--write` stores the model in the package.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import Progress

from bench._common import DATA, REPO, console
from bench._replies import Record, lexicon_for, load, plain, replay, subject_of
from sitecite.config import DEFAULT_EMBEDDER
from sitecite.embed import get_embedder
from sitecite.tokens import words
from sitecite.verify import SupportModel, Verifier
from sitecite.verify.features import LEXICAL, RELATIVE
from sitecite.verify.model import MODEL_FILE, QUOTED_MODEL_FILE
from sitecite.verify.quoted import QUOTED, RELATIVE_QUOTED
from sitecite.verify.support_reader import READ
from sitecite.verify.verifier import QUOTE_SCOPES

REPLIES = REPO / "bench" / "replies"
DEFAULT_FILES = [
    DATA / "verification" / "example-site.jsonl",
    REPLIES / "example-extra-dev.jsonl",
    REPLIES / "jarvis.jsonl",
    REPLIES / "timlrx.jsonl",
    REPLIES / "jarvis2.jsonl",
    REPLIES / "timlrx2.jsonl",
]
# Features a quoted sentence's model does not read: its quotes' places settle its source
# (uncited_gain), a figure its quotes do not hold fails outright (numbers,
# q_figures_outside), and swaps are read against the quotes (swap).
NOT_QUOTED = ("uncited_gain", "swap", "numbers", "q_figures_outside")
QUOTED_FILES = sorted((REPLIES / "quoted").glob("*.jsonl"))
FOLDS = 5
C_GRID = (0.03, 0.1, 0.3, 1.0, 3.0)


@dataclass
class Row:
    """One labelled claim sentence and what the verifier measured of it."""

    file: str
    split: str
    group: str  # its question: both answers to it fall in one fold
    answer: str  # the record's id
    text: str
    unsupported: bool
    kind: str  # error kind a..h of an unsupported sentence
    features: dict[str, float] | None  # None: no claim to measure (dropped or passed by a rule)
    hard: bool  # dropped by a rule that always holds (citations, instructions)
    grounds: str = ""  # the source words the verifier read it against


def rows_of(path: Path, verifier: Verifier, quoted: bool = False) -> list[Row]:
    """Every labelled, non-meta sentence of one file with its verdict's features."""
    records = load(path)
    embedder = get_embedder(DEFAULT_EMBEDDER, threads=1)
    owner = frozenset(w for w in words(subject_of(records)) if w.isalpha())
    lexicon = lexicon_for(records, embedder)
    out = []
    with Progress(console=console(), transient=True) as bar:
        task = bar.add_task(f"measuring {path.name}", total=len(records))
        for record in records:
            shown = replay(record, lexicon, owner, verifier, "drop").shown
            out += _record_rows(record, shown, quoted)
            bar.advance(task)
    return out


def _record_rows(record: Record, shown: Any, quoted: bool = False) -> list[Row]:
    """The record's labelled sentences with their verdicts' features (for the quoted model,
    only sentences read by their quotes have them)."""
    verdicts = {}
    if shown.verification is not None:
        verdicts = {plain(v.text): v for v in shown.verification.sentences}
    group = f"{record.file}:{str(record.data['id']).rsplit('-', 1)[0]}"
    group = group.replace("2.jsonl", ".jsonl")  # round 2 answered the same questions
    out = []
    for sentence in record.data["sentences"]:
        if sentence.get("meta"):
            continue
        verdict = verdicts.get(plain(sentence["text"]))
        features = None if verdict is None else verdict.features
        if verdict is not None and (verdict.quoted is not None) != quoted:
            features = None  # read by the other model
        hard = verdict is not None and bool(verdict.problems)  # a fatal exact check
        out.append(
            Row(
                record.file,
                record.split,
                group,
                record.id,
                plain(sentence["text"]),
                not sentence["supported"],
                str(sentence.get("error") or ""),
                features,
                hard,
                "" if verdict is None else verdict.grounds,
            )
        )
    return out


def matrix(rows: list[Row], names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The measured rows' features `names` and whether each is unsupported."""
    measured = [r.features for r in rows if r.features is not None and not r.hard]
    x = np.asarray([[f[n] for n in names] for f in measured], dtype=np.float64)
    y = np.asarray([r.unsupported for r in rows if r.features is not None and not r.hard])
    return x.reshape(len(measured), len(names)), y.astype(int)


def fit(x: np.ndarray, y: np.ndarray, c: float) -> Any:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000))
    return model.fit(x, y)


def out_of_fold(rows: list[Row], names: tuple[str, ...], c: float) -> np.ndarray:
    """Each measured dev row's probability from a model fitted on the other folds."""
    from sklearn.model_selection import GroupKFold

    measured = [r for r in rows if r.features is not None and not r.hard]
    x, y = matrix(rows, names)
    groups = [r.group for r in measured]
    probabilities = np.zeros(len(y))
    for train, held in GroupKFold(FOLDS).split(x, y, groups):
        probabilities[held] = fit(x[train], y[train], c).predict_proba(x[held])[:, 1]
    return probabilities


def outcome(rows: list[Row], probabilities: np.ndarray, threshold: float) -> dict[str, Any]:
    """What a visitor would see of these rows at `threshold`."""
    caught: dict[str, list[int]] = {}
    dropped = supported = unsupported = hits = 0
    values = iter(probabilities)
    for row in rows:
        measured = row.features is not None and not row.hard
        probability = next(values) if measured else 0.0
        gone = bool(row.hard or (measured and probability >= threshold))
        if row.unsupported:
            unsupported += 1
            hits += gone
            pair = caught.setdefault(row.kind, [0, 0])
            pair[0] += gone
            pair[1] += 1
        else:
            supported += 1
            dropped += gone
    return {
        "supported": supported,
        "dropped": dropped,
        "drop_rate": dropped / supported if supported else 0.0,
        "unsupported": unsupported,
        "caught": hits,
        "catch_rate": hits / unsupported if unsupported else 0.0,
        "by_kind": dict(sorted(caught.items())),
    }


def choose(
    rows: list[Row], probabilities: np.ndarray, max_drop: float | None
) -> tuple[float, dict]:
    """The threshold that catches most with at most `max_drop` of supported rows dropped; or,
    without `max_drop`, the one with the largest caught share minus dropped share (the
    issue's two targets, 5% each way, weigh the two errors alike)."""

    def gain(result: dict) -> float:
        if max_drop is None:
            return float(result["catch_rate"] - result["drop_rate"])
        return result["catch_rate"] if result["drop_rate"] <= max_drop else -1.0

    best = (1.0, outcome(rows, probabilities, 1.0))
    for threshold in np.unique(np.round(probabilities, 4)):
        result = outcome(rows, probabilities, float(threshold))
        if gain(result) > gain(best[1]):
            best = (float(threshold), result)
    return best


def wilson(part: int, whole: int) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion."""
    if not whole:
        return 0.0, 0.0
    z, p = 1.96, part / whole
    centre = (p + z * z / (2 * whole)) / (1 + z * z / whole)
    spread = z * np.sqrt(p * (1 - p) / whole + z * z / (4 * whole * whole)) / (1 + z * z / whole)
    return max(0.0, centre - spread), min(1.0, centre + spread)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument(
        "--quoted",
        action="store_true",
        help=f"fit the model for quoted sentences ({QUOTED_MODEL_FILE}) on quoted replies "
        "(default files: bench/replies/quoted/)",
    )
    parser.add_argument(
        "--max-drop",
        type=float,
        help="choose the threshold catching most with at most this share of supported claims "
        "dropped (default: the most caught minus dropped)",
    )
    parser.add_argument(
        "--quote-scope",
        default="quotes",
        choices=QUOTE_SCOPES,
        help="what a quoted sentence is read against (bench/verify_replies.py --quote-scope)",
    )
    parser.add_argument(
        "--without-reader",
        action="store_true",
        help=f"leave out the support reader's column ({READ}): the words' features alone",
    )
    parser.add_argument("--write", action="store_true", help="store the model in the package")
    parser.add_argument("--dump", type=Path, help="write the measured rows (.npz) for analysis")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    files = args.files or (QUOTED_FILES if args.quoted else DEFAULT_FILES)
    for path in files:
        if not path.exists():
            sys.exit(f"{path}: no such file")
    names = feature_names(args.quoted, not args.without_reader)
    recorder = SupportModel.blank(names)
    verifier = Verifier(
        model=recorder, decide=False, quote_scope=args.quote_scope, quoted_model=recorder
    )
    rows = [row for path in files for row in rows_of(path, verifier, args.quoted)]
    if args.dump:
        _dump(args.dump, rows, names)
    dev = [r for r in rows if r.split == "dev"]
    scores = {c: choose(dev, out_of_fold(dev, names, c), args.max_drop) for c in C_GRID}
    c = max(scores, key=lambda k: scores[k][1]["catch_rate"] - scores[k][1]["drop_rate"])
    threshold, cross_validated = scores[c]
    x, y = matrix(dev, names)
    model = _model(fit(x, y, c), names, threshold, c, len(y), int(y.sum()), args)
    report = {"C": c, "threshold": threshold, "dev_cross_validated": cross_validated}
    for name, chosen in _reported(rows).items():
        xs, _ = matrix(chosen, names)
        claims = [dict(zip(names, row, strict=True)) for row in xs]
        report[name] = outcome(chosen, model.probability(claims), threshold)
    _print(report)
    if args.write:
        target = REPO / "src" / "sitecite" / "verify"
        target /= QUOTED_MODEL_FILE if args.quoted else MODEL_FILE
        target.write_text(json.dumps(model.to_json(), indent=1) + "\n")
        console().print(f"wrote {target}")
    if args.json:
        print(json.dumps(report))
    return 0


def feature_names(quoted: bool = False, reader: bool = True) -> tuple[str, ...]:
    """What the model reads: the lexical features, each relative one, and the answer's number
    of claims; for quoted sentences, what their quotes bear (sitecite.verify.quoted); and with
    `reader`, the support reader's logit (sitecite.verify.support_reader)."""
    names = (*LEXICAL, *(f"relative_{n}" for n in RELATIVE), "claims")
    names += (READ,) if reader else ()
    if quoted:  # less what a quoted sentence never has: its quotes settle those
        names = tuple(n for n in names if n not in NOT_QUOTED)
        names += tuple(n for n in QUOTED if n not in NOT_QUOTED)
        names += tuple(f"relative_{n}" for n in RELATIVE_QUOTED)
    return names


def _reported(rows: list[Row]) -> dict[str, list[Row]]:
    out = {}
    for split in ("dev", "test"):
        for file in dict.fromkeys(r.file for r in rows):
            chosen = [r for r in rows if r.file == file and r.split == split]
            if chosen:
                out[f"{file} {split}"] = chosen
        out[f"all {split}"] = [r for r in rows if r.split == split]
    return out


def _model(
    final: Any,
    names: tuple[str, ...],
    threshold: float,
    c: float,
    n: int,
    positives: int,
    args: argparse.Namespace,
) -> SupportModel:
    scaler, logistic = final.named_steps["standardscaler"], final.named_steps["logisticregression"]
    return SupportModel(
        names,
        scaler.mean_,
        scaler.scale_,
        logistic.coef_[0],
        float(logistic.intercept_[0]),
        threshold,
        {
            "fitted_on": f"{n} dev claim sentences ({positives} unsupported)",
            "C": c,
            "script": "training/train_verifier.py" + (" --quoted" if args.quoted else ""),
        },
    )


def _print(report: dict[str, Any]) -> None:
    out = console()
    out.print(f"C {report['C']}, threshold {report['threshold']:.3f}")
    for name, result in report.items():
        if not isinstance(result, dict):
            continue
        low, high = wilson(result["caught"], result["unsupported"])
        kinds = " ".join(f"{k} {a}/{b}" for k, (a, b) in result["by_kind"].items())
        out.print(
            f"{name:32} dropped {result['dropped']}/{result['supported']} "
            f"({result['drop_rate']:.1%})  caught {result['caught']}/{result['unsupported']} "
            f"({result['catch_rate']:.1%}, {low:.0%}-{high:.0%})  {kinds}",
            highlight=False,
        )


def _dump(path: Path, rows: list[Row], names: tuple[str, ...]) -> None:
    measured = [r for r in rows if r.features is not None]
    np.savez(
        path,
        names=np.asarray(names),
        x=np.asarray([[r.features[n] for n in names] for r in measured]),
        y=np.asarray([r.unsupported for r in measured]),
        split=np.asarray([r.split for r in measured]),
        files=np.asarray([r.file for r in measured]),
        group=np.asarray([r.group for r in measured]),
        answer=np.asarray([r.answer for r in measured]),
        kind=np.asarray([r.kind for r in measured]),
        hard=np.asarray([r.hard for r in measured]),
        text=np.asarray([r.text for r in measured]),
    )


if __name__ == "__main__":
    sys.exit(main())
