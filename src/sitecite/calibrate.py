"""`sitecite calibrate`: choose the gate thresholds from data and store them per embedder.

Two decisions are calibrated, on two kinds of evidence:

1. The section gate: the best section cosine of on-topic questions (a question set's
   answerable questions, or questions made from the site's own headings) against a bundled
   list of 300 off-topic questions. The threshold sits in the gap between the two
   distributions, or, where they overlap, at the stated false-accept rate.
2. Sentence support: for every question that reaches the extractive generator (the set's
   questions, and the off-topic questions that pass the gate), the (cosine, coverage) of its
   candidate sentences. The pair of thresholds refuses the fewest answerable questions while
   answering at most the stated share (default 5%) of all questions that should be refused.

Both error rates are reported with 95% Wilson intervals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.errors import QuestionSetError
from sitecite.eval.questions import Question, index_source_ids, load_question_set
from sitecite.eval.stats import Rate
from sitecite.index.store import store_thresholds
from sitecite.pipeline import Engine, answer


def rate(successes: int, total: int) -> dict[str, Any]:
    return Rate(successes, total).to_json()


def offtopic_questions() -> list[str]:
    text = resources.files("sitecite").joinpath("data/offtopic.txt").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def heading_questions(engine: Engine) -> list[str]:
    """On-topic questions made from the site itself when no question set is given."""
    seen: dict[str, None] = {}
    for section in engine.index.sections:
        topic = section.heading or section.title
        if topic and section.page_id != "_facts":
            seen.setdefault(f"What about {topic.lower()} in {section.title}?", None)
    return list(seen)


@dataclass
class CalibrationReport:
    embedder_id: str
    section: float
    gap: bool
    on_topic: list[float]
    off_topic: list[float]
    false_accept: dict[str, float]
    false_reject: dict[str, float]
    sentence: float | None = None
    coverage: float | None = None
    support: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    def stored(self) -> dict[str, Any]:
        values: dict[str, Any] = {
            "section": round(self.section, 4),
            "calibrated": datetime.now(UTC).isoformat(timespec="seconds"),
            "source": self.source,
            "gap": self.gap,
            "false_accept": self.false_accept,
            "false_reject": self.false_reject,
            "on_topic": [round(x, 4) for x in self.on_topic],
            "off_topic": [round(x, 4) for x in self.off_topic],
        }
        if self.sentence is not None and self.coverage is not None:
            values.update(
                sentence=round(self.sentence, 4),
                coverage=round(self.coverage, 4),
                support=self.support,
            )
        return values

    def to_json(self) -> dict[str, Any]:
        return {"embedder": self.embedder_id, **self.stored()}

    def to_text(self) -> str:
        lines = [f"Section gate for {self.embedder_id} (best section cosine per question)", ""]
        lines += histogram(self.on_topic, self.off_topic, self.section)
        fa, fr = self.false_accept, self.false_reject
        how = (
            "in the gap between the distributions"
            if self.gap
            else "at the stated false-accept rate"
        )
        lines += [
            "",
            f"threshold {self.section:.3f} ({how})",
            f"  false accept (off-topic admitted): {_rate_text(fa)}",
            f"  false reject (on-topic gated out): {_rate_text(fr)}",
        ]
        if self.sentence is not None:
            s = self.support
            lines += [
                "",
                f"Sentence support (fewest false rejects with false accepts <= "
                f"{s['target_false_accept']:.0%} end to end)",
                f"  sentence cosine >= {self.sentence:.3f} and coverage >= {self.coverage:.2f}",
                f"  false accept (should refuse, answered): {_rate_text(s['false_accept'])}",
                f"  false reject (should answer, refused): {_rate_text(s['false_reject'])}",
                f"  refused before support (instructions, names, answer kind, gate): "
                f"{s['refused_earlier']} question(s)",
            ]
        return "\n".join(lines)


def _rate_text(value: dict[str, float]) -> str:
    return (
        f"{value['rate']:.1%} ({value['k']}/{value['n']}, "
        f"95% CI {value['low']:.1%}-{value['high']:.1%})"
    )


def histogram(on: list[float], off: list[float], threshold: float, width: int = 24) -> list[str]:
    """Two text histograms side by side (each scaled to its own peak), bins of 0.05."""
    low = min([*on, *off, threshold])
    high = max([*on, *off, threshold])
    edges = np.arange(np.floor(low * 20) / 20, high + 0.05, 0.05)
    on_counts, _ = np.histogram(on, bins=edges)
    off_counts, _ = np.histogram(off, bins=edges)

    def bar(count: int, peak: int) -> str:
        hashes = "#" * max(round(count * width / max(peak, 1)), 1 if count else 0)
        return f"{hashes:<{width}} {count:>4}"

    lines = [
        f"{'cosine':>9}  {'on-topic (' + str(len(on)) + ')':<{width + 5}}  off-topic ({len(off)})"
    ]
    for i in range(len(edges) - 1):
        mark = "  <- threshold" if edges[i] <= threshold < edges[i + 1] else ""
        lines.append(
            f"{edges[i]:.2f}-{edges[i + 1]:.2f}  {bar(on_counts[i], on_counts.max())}  "
            f"{bar(off_counts[i], off_counts.max())}{mark}"
        )
    return lines


def best_section_cosines(engine: Engine, questions: list[str]) -> list[float]:
    vectors = engine.embedder.embed(questions)
    return [float(x) for x in (vectors @ engine.index.vectors.T).max(axis=1)]


def choose_section_threshold(
    on: list[float], off: list[float], false_accept: float
) -> tuple[float, bool]:
    if on and off and min(on) > max(off):
        return (min(on) + max(off)) / 2, True
    ordered = sorted(off, reverse=True)
    allowed = int(np.floor(false_accept * len(ordered)))
    threshold = ordered[allowed] + 1e-6 if allowed < len(ordered) else min(off)
    return threshold, False


def support_pairs(engine: Engine, question: str) -> list[tuple[float, float]] | None:
    """(cosine, coverage) of the candidate sentences, or None if refused before support."""
    _, trace = answer(engine, question)
    support = next((c for c in trace.checks if c.name == "support"), None)
    if support is None:
        return None
    return [(float(a), float(b)) for a, b in support.data.get("pairs", [])]


def choose_support(
    answerable: list[list[tuple[float, float]]],
    refusable: list[list[tuple[float, float]]],
    earlier: dict[str, int],
    false_accept: float,
) -> tuple[float, float, dict[str, Any]]:
    """The (cosine, coverage) thresholds with the fewest wrongly refused answerable questions
    among those that answer at most `false_accept` of all the questions that should be refused
    (end to end: questions refused earlier count in the denominator). Among equals, the
    highest coverage threshold, then the lowest cosine threshold."""
    total_good = len(answerable) + earlier["answerable"]
    total_bad = len(refusable) + earlier["refusable"]
    candidates: list[tuple[int, int, float, float]] = []
    for a in np.arange(0.0, 0.61, 0.01):
        for b in np.arange(0.0, 1.001, 0.01):
            accepted_bad = sum(any(c >= a and v >= b for c, v in pairs) for pairs in refusable)
            if total_bad and accepted_bad / total_bad > false_accept:
                continue
            rejected_good = sum(
                not any(c >= a and v >= b for c, v in pairs) for pairs in answerable
            )
            candidates.append((rejected_good, accepted_bad, float(a), float(b)))
    if not candidates:
        raise QuestionSetError(
            "no support thresholds meet the false-accept target; raise --false-accept"
        )
    fewest = min(r for r, _, _, _ in candidates)
    # Among equals, lean on coverage (evidence that the sentence is about what was asked; the
    # similarity alone is what fails on near-miss questions), then on the lowest cosine.
    rejected_good, accepted_bad, a, b = min(
        (c for c in candidates if c[0] == fewest), key=lambda c: (-c[3], c[2])
    )
    stats = {
        "false_accept": rate(accepted_bad, total_bad),
        "false_reject": rate(rejected_good + earlier["answerable"], total_good),
        "target_false_accept": false_accept,
    }
    return a, b, stats


def calibrate(
    engine: Engine,
    questions: str | Path | None = None,
    false_accept: float = 0.2,
    support_false_accept: float = 0.05,
    store: bool = True,
) -> CalibrationReport:
    """Calibrate the section gate and (with a question set) sentence support; store them."""
    question_set: tuple[Question, ...] = ()
    if questions:
        known = index_source_ids(engine.index.sections)
        question_set = load_question_set(questions, known_sources=known).questions
    on_questions = (
        [q.question for q in question_set if q.expect == "answer"]
        if question_set
        else heading_questions(engine)
    )
    on = best_section_cosines(engine, on_questions)
    off = best_section_cosines(engine, offtopic_questions())
    section, gap = choose_section_threshold(on, off, false_accept)
    report = CalibrationReport(
        engine.embedder.id,
        section,
        gap,
        on,
        off,
        false_accept=rate(sum(x >= section for x in off), len(off)),
        false_reject=rate(sum(x < section for x in on), len(on)),
        source=str(questions) if questions else "site headings",
    )
    if question_set:
        probe = Engine.for_index(
            engine.index,
            engine.settings.model_copy(
                update={"threshold": section, "sentence_threshold": -1.0, "coverage_threshold": 0.0}
            ),
            engine.embedder,
        )
        answerable, refusable, earlier = [], [], {"answerable": 0, "refusable": 0}
        labelled = [(q.question, q.expect == "answer") for q in question_set]
        labelled += [(text, False) for text in offtopic_questions()]
        for text, good in labelled:
            pairs = support_pairs(probe, text)
            if pairs is None:
                earlier["answerable" if good else "refusable"] += 1
            elif good:
                answerable.append(pairs)
            else:
                refusable.append(pairs)
        report.sentence, report.coverage, stats = choose_support(
            answerable, refusable, earlier, support_false_accept
        )
        report.support = {
            **stats,
            "refused_earlier": earlier["refusable"] + earlier["answerable"],
            "reached_support": {"answerable": len(answerable), "refusable": len(refusable)},
        }
    if store:
        store_thresholds(engine.index.path, engine.embedder.id, report.stored())
    return report
