"""Fit the reader (a question tower of the bundled MiniLM, generate/reader.py) and measure it with
each site left out, against the bundled model's cosine and the shipped answer-sentence ranker on
the same candidates.

    python -m training.train_reader [--write] [--site S ...] [--threads N] [--config JSON] [--json]

1. The answer data (training/answerdata/*.jsonl: visitors' questions about one page each of
   eighteen real sites and the example site, with the sentences that answer them, or none) is
   read as serving reads it: each question's candidates are the quotable sentences of the top
   eight sections `pipeline.retrieve_for_answer` finds (training/_reader_data.py).
2. Each site's questions are split into a dev and a test half by a hash of the question
   (`bench._common.answerdata_half`); only dev halves are fitted on.
3. `--write`: the reader fitted on every site's dev half is written to src/sitecite/data/reader/
   (the shipped one; `SHIPPED_CONFIG`).
4. Leave one site out, for every site: the question tower is fitted on the other sites' dev
   halves (training/_reader_fit.py), written to .sitecite/bench/reader/folds/<site>/ (the
   reader every fit downstream reads that site's candidates with), and scores the left-out
   site's candidates.
5. The shipped ranker (generate/ranker.py, which reads the reader's column, here each site's
   fold reader's) scores the same candidates, and so does the bundled model's cosine.
6. Per site and half: how often the first pick among the admitted candidates is a gold
   sentence, for the three; and for the reader, the calibration of its reading (fitted on the
   other sites' dev halves) and the share of its first picks that are right above each
   threshold.

Seeded; torch runs only here.
"""

from __future__ import annotations

import argparse
import json
import pickle
import time
from dataclasses import asdict, replace
from typing import Any

import numpy as np

from bench._common import CACHE, REPO, answerdata_half
from training._reader_data import FOLDS, Question, collect, fold_reader, mapping
from training._reader_fit import (
    Encoded,
    FitConfig,
    Tower,
    encode_lower,
    fit,
    load_model,
    torch_threads,
)

THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)
SHIPPED = REPO / "src" / "sitecite" / "data" / "reader"
SHIPPED_CONFIG = FitConfig(trainable_layers=2, epochs=2, batch=32, lr=1e-4)


def save_tower(tower: Tower, folder: Any, sites: list[str], config: FitConfig) -> None:
    """The fitted layers (fp16, named as the bundled graph's initializers) and the card the
    runtime reads (generate/reader.py)."""
    from sitecite.embed.bundled import MINILM_ID
    from sitecite.generate.reader import CARD_VERSION

    folder.mkdir(parents=True, exist_ok=True)
    weights = {
        f"encoder.layer.{tower.frozen_layers + n}.{name}": value.detach().numpy().astype(np.float16)
        for n, layer in enumerate(tower.layers)
        for name, value in layer.state_dict().items()
    }
    with (folder / "layers.npz").open("wb") as handle:
        np.savez(handle, **dict(sorted(weights.items())))
    card = {
        "version": CARD_VERSION,
        "base_model": MINILM_ID,
        "null": round(float(tower.null.detach()), 6),
        "bundled_weight": round(float(tower.base_weight.detach()), 6),
        "about": {
            "what": "the reader's question tower: the bundled all-MiniLM-L6-v2 with its top "
            "layers fitted so that a question lies near the sentences that answer it",
            "command": "python -m training.train_reader --write",
            "fitted_on": f"the dev halves of the answer data of {', '.join(sites)}",
            "config": asdict(config),
        },
    }
    (folder / "card.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")


def half(question: Question) -> str:
    """ "dev" or "test", by a hash of the site and the question (stable across runs)."""
    return answerdata_half(question.site, question.question)


def scored(
    tower: Tower,
    encoded: Encoded,
    rows: list[int],
    questions: list[Question],
    vectors: dict[str, np.ndarray],
    base: np.ndarray,
) -> dict[str, np.ndarray]:
    """Each question's retrieved candidates' scores: the reader's cosine plus the fitted share
    of the bundled model's."""
    import torch

    qv = torch.from_numpy(tower.vectors(encoded, rows))
    out = {}
    with torch.no_grad():
        for vector, row in zip(qv, rows, strict=True):
            q = questions[row]
            kept = [c for c in q.candidates if c.retrieved]
            if not kept:
                out[q.key] = np.zeros(0)
                continue
            s = vectors[q.site][[c.sentence_row for c in kept]]
            out[q.key] = tower.cosines(
                vector, torch.from_numpy(s), torch.from_numpy(s @ base[row])
            ).numpy()
    return out


def first_pick(q: Question, scores: np.ndarray) -> int | None:
    """Index (among the retrieved candidates) of the best-scored admitted candidate."""
    retrieved = [c for c in q.candidates if c.retrieved]
    allowed = [i for i, c in enumerate(retrieved) if c.admitted]
    if not allowed or not len(scores):
        return None
    return max(allowed, key=lambda i: float(scores[i]))


def ranker_scores(questions: list[Question]) -> dict[str, np.ndarray]:
    """Today's ranker's scores of each question's retrieved candidates, its features computed
    exactly as serving computes them (the context training/_ranker_data.context_for builds),
    in the order of the question's candidates."""
    from sitecite.generate.features import candidate_kinds, candidates_and_features
    from sitecite.generate.ranker import default_ranker
    from training._answerdata import fitting_setup, site_engine
    from training._ranker_data import context_for

    ranker = default_ranker()
    settings, embedder = fitting_setup()
    engines: dict[str, Any] = {}
    out: dict[str, np.ndarray] = {}
    for q in questions:
        if q.site not in engines:
            engines[q.site] = site_engine(q.site, embedder, settings)
        context, _ = context_for(engines[q.site], q.question)
        kinds = candidate_kinds(q.question)
        read = fold_reader(q.site).read_for(q.question)  # the reader fitted without the site
        found = candidates_and_features(context, context.query_vector, q.question, kinds, read=read)
        scores = ranker.scores(found.matrix, found.names)
        places = {
            (context.sections[c.section_position].id, c.sentence_position): float(score)
            for c, score in zip(found.items, scores, strict=True)
        }
        retrieved = [(c.section_id, c.number) for c in q.candidates if c.retrieved]
        out[q.key] = np.array([places.get(place, -np.inf) for place in retrieved])
    return out


def calibration(rows: list[tuple[float, bool]]) -> tuple[float, float]:
    """slope, intercept of P(answers | score - null), fitted on (margin, label) rows."""
    from sklearn.linear_model import LogisticRegression

    x = np.array([[m] for m, _ in rows])
    y = np.array([label for _, label in rows], dtype=int)
    model = LogisticRegression(C=100.0).fit(x, y)
    return float(model.coef_[0][0]), float(model.intercept_[0])


def site_table(
    questions: list[Question], picks: dict[str, dict[str, np.ndarray]], which: str
) -> dict[str, dict[str, int]]:
    """Per site, on one half: answerable questions, those with a gold sentence admitted, and
    how often each scorer's first pick is one."""
    table: dict[str, dict[str, int]] = {}
    for q in questions:
        if half(q) != which or not q.answerable:
            continue
        row = table.setdefault(q.site, {"answerable": 0, "gold_admitted": 0})
        retrieved = [c for c in q.candidates if c.retrieved]
        row["answerable"] += 1
        row["gold_admitted"] += int(any(c.label and c.admitted for c in retrieved))
        for name, scores in picks.items():
            pick = first_pick(q, scores[q.key])
            row[name] = row.get(name, 0) + int(pick is not None and retrieved[pick].label)
    return table


def precision_curve(
    questions: list[Question], preds: dict[str, np.ndarray], nulls: dict[str, float], which: str
) -> list[dict[str, float]]:
    """For each threshold: how many of the half's questions the reader's first pick would
    answer directly (its calibrated probability at or above it), and how many of those are
    right (an answerable question, and a gold first pick). The calibration is fitted on the
    dev halves' left-out scores."""
    dev = [q for q in questions if half(q) == "dev"]
    margins = [
        (float(preds[q.key][i]) - nulls[q.site], bool(c.label))
        for q in dev
        for i, c in enumerate(c for c in q.candidates if c.retrieved)
    ]
    slope, intercept = calibration(margins)
    chosen = []
    for q in questions:
        if half(q) != which or (pick := first_pick(q, preds[q.key])) is None:
            continue
        margin = float(preds[q.key][pick]) - nulls[q.site]
        probability = 1.0 / (1.0 + np.exp(-(slope * margin + intercept)))
        right = q.answerable and [c for c in q.candidates if c.retrieved][pick].label
        chosen.append((probability, right))
    return [
        {
            "threshold": t,
            "direct": int(sum(p >= t for p, _ in chosen)),
            "right": int(sum(bool(p >= t and r) for p, r in chosen)),
        }
        for t in THRESHOLDS
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", action="append", help="only these sites (default: all)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--config", default="{}", help="FitConfig fields as JSON")
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    parser.add_argument(
        "--write", action="store_true", help=f"also fit every dev half and write {SHIPPED}"
    )
    args = parser.parse_args(argv)
    started = time.time()
    torch_threads(args.threads)
    from sitecite.embed.bundled import bundled_minilm_path

    config = replace(SHIPPED_CONFIG, **json.loads(args.config))
    items: list[Any] = []
    data, indexes = collect(args.site, mapped=items)
    sites = sorted(data)
    vectors = {s: indexes[s].sentence_vectors for s in sites}
    questions = [q for s in sites for q in data[s]]
    print(f"{len(questions)} questions over {len(sites)} sites ({time.time() - started:.0f} s)")
    model, tokenizer = load_model(bundled_minilm_path())
    encoded = encode_lower(
        model, tokenizer, [q.question for q in questions], 6 - config.trainable_layers
    )
    base_tower = Tower(model, config)
    everything = list(range(len(questions)))
    base_q = base_tower.vectors(encoded, everything)  # the bundled model's question vectors
    cosine = {
        q.key: vectors[q.site][[c.sentence_row for c in q.candidates if c.retrieved]] @ base_q[n]
        for n, q in enumerate(questions)
    }
    preds: dict[str, np.ndarray] = {}
    nulls: dict[str, float] = {}
    dev = {i for i, q in enumerate(questions) if half(q) == "dev"}

    def fitted_on(train: list[int]) -> Tower:
        """The tower fitted on the questions `train` (positions in `questions`)."""
        sub = Encoded([encoded.hidden[i] for i in train], [encoded.masks[i] for i in train])
        return fit(
            model,
            sub,
            [questions[i] for i in train],
            vectors,
            config,
            log=lambda *a: None,
            base_vectors=base_q[train],
        )

    if args.write:  # the shipped tower: every site's dev half
        mark = time.time()
        train = sorted(dev)
        save_tower(fitted_on(train), SHIPPED, sites, config)
        print(f"wrote {SHIPPED} (fitted on {len(train)} questions in {time.time() - mark:.0f} s)")
    for site in sites:
        mark = time.time()
        # the other sites' dev halves: what the shipped models of that fold read
        train = [i for i, q in enumerate(questions) if q.site != site and i in dev]
        held = [i for i, q in enumerate(questions) if q.site == site]
        tower = fitted_on(train)
        preds.update(scored(tower, encoded, held, questions, vectors, base_q))
        nulls[site] = float(tower.null.detach())
        if args.write:  # the fold readers the fits downstream read (a trial leaves them be)
            save_tower(tower, FOLDS / site, [s for s in sites if s != site], config)
        print(f"fold {site}: fitted on {len(train)} questions in {time.time() - mark:.0f} s")
    ranker = ranker_scores(questions)
    picks = {"reader": preds, "cosine": cosine, "ranker": ranker}
    report: dict[str, Any] = {
        "config": asdict(config),
        "sites": sites,
        "mapping": mapping(items),
        "dev": site_table(questions, picks, "dev"),
        "test": site_table(questions, picks, "test"),
        "reader_direct": {w: precision_curve(questions, preds, nulls, w) for w in ("dev", "test")},
        "seconds": round(time.time() - started),
    }
    print_report(report)
    out = CACHE / "reader" / "report.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    # every question's candidates as the three scored them, for further study
    scores = {"picks": picks, "nulls": nulls, "questions": questions}
    (CACHE / "reader" / "scores.pickle").write_bytes(pickle.dumps(scores))
    if args.json:
        print(json.dumps(report))
    return 0


def print_report(report: dict[str, Any]) -> None:
    for site, counts in sorted(report["mapping"].items()):
        print(f"{site}: {counts}")
    for which in ("dev", "test"):
        print(f"{which} halves, each site left out of the reader's fit (first pick is gold):")
        print(f"{'site':15} answerable  gold-admitted  reader  cosine  ranker")
        totals: dict[str, int] = {}
        for site, row in sorted(report[which].items()):
            for k, v in row.items():
                totals[k] = totals.get(k, 0) + v
            _row(site, row)
        _row("all", totals)
        for point in report["reader_direct"][which]:
            print(
                f"  reader probability >= {point['threshold']:.1f}: {point['direct']} direct, "
                f"{point['right']} right"
            )


def _row(site: str, r: dict[str, int]) -> None:
    print(
        f"{site:15} {r['answerable']:10} {r['gold_admitted']:14} {r.get('reader', 0):7}"
        f" {r.get('cosine', 0):7} {r.get('ranker', 0):7}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
