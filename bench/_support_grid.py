"""Choosing the support thresholds on dev halves only: every labelled sentence is replayed once
with the support rule switched off, and each (least coverage, most uncovered words, most in a
row) choice is then applied to the recorded coverage, exactly as `Verifier._support` would,
with the `drop` policy's refusal when no claim is left."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any

from _replies import Replayed, plain

COVERAGES = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)
UNCOVERED = (2, 3, 4, 5, 6, 99)
RUNS = (2, 3, 4, 99)


@dataclass(frozen=True)
class Row:
    """One labelled sentence with what verification found, support aside."""

    answer: str
    supported: bool | None  # None: a sentence the scoring leaves aside (meta, unlabelled)
    other_problems: bool  # a check other than support failed
    claim: bool  # not a sentence about what the sources lack
    coverage: float
    uncovered: int
    run: int


def rows(replayed: list[Replayed]) -> list[Row]:
    """The labelled sentences of every replayed answer (meta sentences left out, as scored),
    and the answer's other sentences, which decide whether anything is left to show."""
    out = []
    for item in replayed:
        verification = item.shown.verification
        if verification is None:
            continue
        labels = {plain(s["text"]): s for s in item.record.data["sentences"]}
        for verdict in verification.sentences:
            label = labels.get(plain(verdict.text))
            others = bool(set(verdict.problems) - {"support"})
            supported = bool(label["supported"]) if label else True
            meta = bool(label and label.get("meta")) or verdict.meta
            out.append(
                Row(
                    item.record.id,
                    supported if label and not label.get("meta") else None,
                    others,
                    not meta,
                    verdict.coverage,
                    len(verdict.uncovered),
                    verdict.run,
                )
            )
    return out


def fails(row: Row, coverage: float, uncovered: int, run: int) -> bool:
    return row.other_problems or (
        row.claim
        and (
            (row.coverage < coverage and row.uncovered > 1)
            or row.uncovered > uncovered
            or row.run > run
        )
    )


def score(table: list[Row], coverage: float, uncovered: int, run: int) -> dict[str, Any]:
    """Drop and catch rates for one choice, answers refused when no claim survives."""
    kept_claims: dict[str, int] = {}
    for row in table:
        if row.claim and not fails(row, coverage, uncovered, run):
            kept_claims[row.answer] = kept_claims.get(row.answer, 0) + 1
    supported = dropped = unsupported = caught = 0
    for row in table:
        if row.supported is None:
            continue
        shown = not fails(row, coverage, uncovered, run) and kept_claims.get(row.answer, 0) > 0
        if row.supported:
            supported += 1
            dropped += not shown
        else:
            unsupported += 1
            caught += not shown
    return {
        "coverage": coverage,
        "max_uncovered": uncovered,
        "max_run": run,
        "drop_rate": round(dropped / supported, 4) if supported else 0.0,
        "catch_rate": round(caught / unsupported, 4) if unsupported else 0.0,
        "dropped": dropped,
        "supported": supported,
        "caught": caught,
        "unsupported": unsupported,
    }


def grid(table: list[Row]) -> list[dict[str, Any]]:
    """Every choice, best catch rate first among those dropping at most 5%."""
    scored = [score(table, *choice) for choice in product(COVERAGES, UNCOVERED, RUNS)]
    return sorted(scored, key=lambda s: (s["drop_rate"] > 0.05, -s["catch_rate"], s["drop_rate"]))
