"""Verification on real model output: model-written answers with labelled sentences, each
replayed through exactly the production reply path and scored as the data's README says.

Each record's `sources` become the sections of a context (one sentence per line), quarantined
as the pipeline does; the reply goes through `sitecite.generate.reply.present` (parse, verify
with the bundled model's word vectors, apply the policy), the function the LLM generator calls.
No index is needed: the sources' vocabulary is embedded once, as `sitecite index` would
(set-up, not timed); verification encodes each answer's claims and their candidate source
sentences with the bundled model (timed).

Reported for the dev half, the test half and all: a site with a question set split in
bench/questions (<site>-dev.json, <site>-test.json) uses its halves, any other splits by a hash
of the question (both answers to one question share a half). Reported: supported sentences
dropped, unsupported sentences caught
(per error kind a..h), faithful answers degraded (lost sentences, refused, or replaced;
a faithful reply that only says the site does not cover the question is counted apart, as
refused or not), and
latency p50/p95 (preparing the evidence, with the section cache a server keeps; verifying and
deciding one reply).

    python -m bench.verify_replies ../shared/data/verification/example-site.jsonl \\
        [more.jsonl ...] [--out shown.jsonl] [--json] [--explain dev] [--tune]

`--out` writes one line per answer: {"id", "shown", "refused"}. `--explain SPLIT` prints every
dropped supported sentence and missed unsupported one of that split, with the reason. `--tune`
searches the support thresholds on the dev half only and prints what each choice gives.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import Progress
from rich.table import Table

from bench._common import console
from bench._replies import Replayed, Score, lexicon_for, load, replay, subject_of
from sitecite.config import DEFAULT_EMBEDDER
from sitecite.embed import get_embedder
from sitecite.generate.reply import POLICIES
from sitecite.pipeline import REFUSAL
from sitecite.tokens import words
from sitecite.verify import Verifier

SPLITS = ("dev", "test", "all")


def run_file(
    path: Path, verifier: Verifier, policy: str, subject: str | None, cold: bool = False
) -> tuple[list[Replayed], str]:
    """Every record of one file replayed through the production path."""
    records = load(path)
    embedder = get_embedder(DEFAULT_EMBEDDER, threads=1)  # as `sitecite serve` runs it
    name = subject if subject is not None else subject_of(records)
    owner = frozenset(w for w in words(name) if w.isalpha())
    lexicon = lexicon_for(records, embedder)
    for record in records[:3]:  # warm up: the first embedding calls are slow
        replay(record, lexicon, owner, verifier, policy)
    replayed = []
    with Progress(console=console(), transient=True) as bar:
        task = bar.add_task(f"replaying {path.name}", total=len(records))
        for record in records:
            if cold:
                verifier.encoder.forget()
            replayed.append(replay(record, lexicon, owner, verifier, policy))
            bar.advance(task)
    return replayed, name


def report(replayed: list[Replayed]) -> dict[str, Any]:
    """The scores and latencies per split."""
    out: dict[str, Any] = {}
    for split in SPLITS:
        chosen = [r for r in replayed if split == "all" or r.record.split == split]
        score = Score()
        for item in chosen:
            score.add(item)
        summary = score.summary()
        summary["answers"] = len(chosen)
        summary["verify_ms"] = _percentiles([r.verify_ms for r in chosen])
        summary["verify_cpu_ms"] = _percentiles([r.verify_cpu_ms for r in chosen])
        summary["prepare_ms"] = _percentiles([r.prepare_ms for r in chosen])
        out[split] = summary
    return out


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p95": 0.0, "max": 0.0}
    p50, p95 = np.percentile(values, [50, 95])
    return {"p50": round(float(p50), 2), "p95": round(float(p95), 2), "max": round(max(values), 2)}


def print_table(name: str, figures: dict[str, Any]) -> None:
    table = Table(title=f"Verification of model-written answers: {name}")
    table.add_column("measure")
    for split in SPLITS:
        table.add_column(split, justify="right")

    def row(label: str, cell: Any) -> None:
        table.add_row(label, *(cell(figures[s]) for s in SPLITS))

    row("answers", lambda f: str(f["answers"]))
    row(
        "supported sentences dropped",
        lambda f: f"{f['supported_dropped']}/{f['supported_sentences']} ({f['drop_rate']:.1%})",
    )
    row(
        "  of them in faithful answers",
        lambda f: f"{f['faithful_answer_sentences_dropped']}/{f['faithful_answer_sentences']}",
    )
    row(
        "unsupported sentences caught",
        lambda f: f"{f['unsupported_caught']}/{f['unsupported_sentences']} ({f['catch_rate']:.1%})",
    )
    for kind in "abcdefgh":
        row(f"  kind {kind}", lambda f, k=kind: "/".join(map(str, f["caught_by_kind"].get(k, []))))
    row(
        "faithful answers degraded (refused)",
        lambda f: (
            f"{f['faithful_answers_degraded']}/{f['faithful_answers']} "
            f"({f['faithful_answers_refused']})"
        ),
    )
    row("  replaced by other text", lambda f: str(f["faithful_answers_replaced_by_other_text"]))
    row(
        "faithful declines refused",
        lambda f: f"{f['faithful_declines_refused']}/{f['faithful_declines']}",
    )
    row("verify ms p50 / p95", lambda f: f"{f['verify_ms']['p50']} / {f['verify_ms']['p95']}")
    row(
        "  CPU ms p50 / p95",
        lambda f: f"{f['verify_cpu_ms']['p50']} / {f['verify_cpu_ms']['p95']}",
    )
    row("prepare ms p50 / p95", lambda f: f"{f['prepare_ms']['p50']} / {f['prepare_ms']['p95']}")
    console().print(table)


def explain(replayed: list[Replayed], split: str) -> None:
    score = Score()
    for item in replayed:
        if split == "all" or item.record.split == split:
            score.add(item)
    out = console()
    for record_id, sentence, why in score.drops:
        out.print(f"[red]DROPPED[/red] {record_id}: {sentence}\n    {why}", highlight=False)
    for record_id, sentence, kind in score.misses:
        out.print(f"[yellow]MISSED {kind}[/yellow] {record_id}: {sentence}", highlight=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="JSONL files of labelled answers")
    parser.add_argument("--out", type=Path, help='write {"id", "shown", "refused"} per answer')
    parser.add_argument("--json", action="store_true", help="one JSON object as the last line")
    parser.add_argument("--policy", default="drop", choices=POLICIES, help="llm.verify_policy")
    parser.add_argument("--subject", help="the site owner's name (default: from a profile source)")
    parser.add_argument("--explain", choices=SPLITS, help="print drops and misses of a split")
    parser.add_argument(
        "--cold", action="store_true", help="encode every answer's sources anew (no cache)"
    )
    args = parser.parse_args(argv)
    for path in args.files:
        if not path.exists():
            sys.exit(f"{path}: no such file (the example set is ../shared/data/verification/)")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    started = time.perf_counter()
    verifier = Verifier()
    result: dict[str, Any] = {"policy": args.policy, "cold": args.cold, "files": {}}
    everything: list[Replayed] = []
    for path in args.files:
        replayed, subject = run_file(path, verifier, args.policy, args.subject, args.cold)
        everything += replayed
        figures = report(replayed)
        figures["subject"] = subject
        result["files"][path.name] = figures
        print_table(path.name, figures)
        if args.explain:
            explain(replayed, args.explain)
    if len(args.files) > 1:
        result["combined"] = report(everything)
        print_table("all files", result["combined"])
    if args.out:
        _write(args.out, [r for r in everything])
    result["load_average_1m"] = round(os.getloadavg()[0], 2)
    result["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(result))
    return 0


def _write(path: Path, replayed: list[Replayed]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for item in replayed:
            shown = item.shown.text or REFUSAL  # the pipeline's words for a bare refusal
            line = {"id": item.record.id, "shown": shown, "refused": item.shown.refused}
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    sys.exit(main())
