"""The evaluation harness on SQuAD 2.0 (../shared/data/abstention/squad2): can sitecite refuse
the unanswerable questions without refusing the answerable ones?

Every paragraph becomes a section; every question a docs/question-set.md question: answerable ->
category `fact` expecting its paragraph and containing the (shortest) gold answer exactly,
unanswerable -> category `abstention` (must be refused). SQuAD 2.0's unanswerable questions
were written against the very paragraph they sit beside, so they are near misses by design:
the hardest case for a similarity gate.

By default the gate and sentence support are calibrated (`sitecite calibrate`) on a held-out
30% of the questions, and the harness runs on the other 70%; `--no-calibrate` evaluates every
question with the default thresholds.

    python -m bench.eval_squad2 [--limit-paragraphs N] [--no-calibrate] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / ".." / "shared" / "data" / "abstention" / "squad2" / "flat.jsonl"
WORK = REPO / ".sitecite" / "bench" / "squad2"
DEV_SHARE = 0.3


def read_rows(path: Path = DATA, limit_paragraphs: int | None = None) -> list[dict[str, Any]]:
    """flat.jsonl rows, optionally only those of the first N paragraphs (in file order)."""
    if not path.exists():
        sys.exit(
            f"SQuAD 2.0 sample not found at {path.resolve()}; this benchmark needs ../shared/data"
        )
    rows, kept = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        key = (row["title"], row["paragraph_index"])
        if key not in kept:
            if limit_paragraphs is not None and len(kept) >= limit_paragraphs:
                continue
            kept.append(key)
        rows.append(row)
    return rows


def page_id(row: dict[str, Any]) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", row["title"].lower()).strip("-")
    return f"{slug}/p{row['paragraph_index']:02d}"


def sections_of(rows: Sequence[dict[str, Any]]) -> list[Any]:
    """One section per paragraph, ids and hashes as the chunker would make them."""
    from sitecite.ingest.chunk import section_hash
    from sitecite.text import split_sentences
    from sitecite.types import Section

    sections: dict[str, Any] = {}
    for row in rows:
        pid = page_id(row)
        if pid in sections:
            continue
        title, heading = row["title"].replace("_", " "), f"Paragraph {row['paragraph_index']}"
        sentences = tuple(split_sentences(row["context"]))
        embed_text = f"{title}: {heading}\n{row['context']}"
        sections[pid] = Section(
            pid,
            pid,
            title,
            heading,
            f"https://en.wikipedia.org/wiki/{row['title']}",
            row["context"],
            section_hash(embed_text, sentences),
            sentences,
        )
    return list(sections.values())


def question_set(rows: Sequence[dict[str, Any]], name: str = "squad2") -> dict[str, Any]:
    questions = []
    for row in rows:
        if row["is_impossible"]:
            questions.append(
                {
                    "id": row["id"],
                    "question": row["question"],
                    "category": "abstention",
                    "notes": f"unanswerable; plausible: {'; '.join(row['plausible_answers'][:2])}",
                }
            )
        else:
            gold = min(row["answers"], key=len)
            questions.append(
                {
                    "id": row["id"],
                    "question": row["question"],
                    "category": "fact",
                    "expected_sources": [page_id(row)],
                    "must_contain": [gold],
                    "notes": f"gold answers: {'; '.join(dict.fromkeys(row['answers']))}",
                }
            )
    return {"name": name, "questions": questions}


def split(
    data: dict[str, Any], dev_share: float = DEV_SHARE
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A stable dev/test split by question id (calibrate on dev, evaluate on test)."""

    def is_dev(question: dict[str, Any]) -> bool:
        return int(hashlib.sha256(question["id"].encode()).hexdigest()[:8], 16) / 16**8 < dev_share

    dev = [q for q in data["questions"] if is_dev(q)]
    test = [q for q in data["questions"] if not is_dev(q)]
    return {"name": f"{data['name']}-dev", "questions": dev}, {
        "name": f"{data['name']}-test",
        "questions": test,
    }


def run(
    work: Path = WORK,
    limit_paragraphs: int | None = None,
    calibrate: bool = True,
    embedder: Any = None,
    progress: Any = None,
) -> dict[str, Any]:
    """Index, (calibrate,) evaluate; returns the figures the table and --json print."""
    from sitecite.config import load_settings
    from sitecite.embed import get_embedder
    from sitecite.eval import evaluate
    from sitecite.index.build import write_index
    from sitecite.index.store import load_index
    from sitecite.pipeline import Engine

    rows = read_rows(limit_paragraphs=limit_paragraphs)
    settings = load_settings({}, config_file=None, environ={})
    embedder = embedder or get_embedder(settings.embedder, threads=2)
    work.mkdir(parents=True, exist_ok=True)
    # separate indexes: thresholds live in the manifest and survive rebuilds
    mode = "calibrated" if calibrate else "default-thresholds"
    index_dir = work / (mode if limit_paragraphs is None else f"{mode}-{limit_paragraphs}")
    write_index(sections_of(rows), index_dir, embedder, extra={"source": str(DATA.resolve())})
    data = question_set(rows)
    dev, test = split(data) if calibrate else ({"questions": []}, data)
    test_path = work / f"{test['name']}.json"
    test_path.write_text(json.dumps(test, indent=1))
    engine = Engine.for_index(load_index(index_dir, embedder.id), settings, embedder)
    if calibrate:
        from sitecite.calibrate import calibrate as calibrate_gate

        dev_path = work / f"{dev['name']}.json"
        dev_path.write_text(json.dumps(dev, indent=1))
        calibrate_gate(engine, questions=dev_path, store=True)
        engine = Engine.for_index(load_index(index_dir, embedder.id), settings, embedder)
    report = evaluate(test_path, index_dir, settings, engine=engine, progress=progress)
    return figures(report, len(rows), len(sections_of(rows)), len(dev["questions"]))


def figures(report: Any, rows: int, paragraphs: int, dev: int) -> dict[str, Any]:
    summary = report.summary
    fact = summary["by_category"].get("fact", {})
    return {
        "run": report.run["id"],
        "paragraphs": paragraphs,
        "questions": rows,
        "calibration_questions": dev,
        "evaluated": summary["total"],
        "threshold": report.run["threshold"],
        "sentence_threshold": report.run["sentence_threshold"],
        "unanswerable_refused": summary["refusal"]["refused_when_expected"],
        "answerable_answered": summary["refusal"]["answered_when_expected"],
        # answered, citing the right paragraph only, with the gold answer verbatim
        "answerable_correct": fact.get("pass_rate"),
        "hit@8": summary.get("hit@8"),
        "mrr": summary.get("mrr"),
        "passed": summary["pass_rate"],
        "latency_ms": {k: summary["latency_ms"][k] for k in ("p50", "p95")},
    }


def print_table(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    from sitecite.eval.tables import fmt_rate

    table = Table(
        title=f"SQuAD 2.0 sample through sitecite eval (run {result['run']}): "
        f"{result['paragraphs']} paragraphs, {result['evaluated']} questions evaluated, "
        f"{result['calibration_questions']} used to calibrate",
        title_justify="left",
    )
    for column in ("figure", "value", "95% interval", "n"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    for name, key, percent in (
        ("unanswerable refused", "unanswerable_refused", True),
        ("answerable answered", "answerable_answered", True),
        ("answerable answered with the gold answer", "answerable_correct", True),
        ("hit@8 (answerable)", "hit@8", True),
        ("MRR (answerable)", "mrr", False),
        ("passed", "passed", True),
    ):
        table.add_row(name, *fmt_rate(result[key], percent))
    table.add_row(
        "gate / sentence threshold",
        f"{result['threshold']:.3f} / {result['sentence_threshold']:.3f}",
        "",
        "",
    )
    table.add_row(
        "latency p50 / p95",
        f"{result['latency_ms']['p50']:.0f} / {result['latency_ms']['p95']:.0f} ms",
        "",
        "",
    )
    Console(stderr=False).print(table)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--limit-paragraphs", type=int, help="only the first N paragraphs (and their questions)"
    )
    parser.add_argument(
        "--no-calibrate", action="store_true", help="default thresholds, every question evaluated"
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object on the last line"
    )
    args = parser.parse_args(argv)
    result = run(limit_paragraphs=args.limit_paragraphs, calibrate=not args.no_calibrate)
    print_table(result)
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
