"""Fit when to answer at all, and when a second sentence joins, and measure both per held-out site.

Every question of the answer data (bench/answerdata) and of the real sites' dev halves goes
through what serving does: retrieval, the section gate, the quarantine, and the extractive
generator's ranking (`ExtractiveGenerator.rank_part`), with a ranker fitted on the OTHER sites
(bench/train_ranker.py), so no decision is read off a ranker that saw the question's site.
Questions of several parts, and those the generator refuses before these models (a name the
site never uses, no admitted sentence of the kind asked for, none supported), are counted but
give no rows.

- answerability (`generate/answerable.py`): one row per question (per part for a question of
  several); answerable questions whose lead holds a key fact are positive, unanswerable ones
  (near misses, dev abstention questions) negative. The threshold is the one with the most
  questions handled right (answerable ones answered with every key fact, unanswerable ones
  refused, early refusals included), with held-out-site predictions; the threshold that would
  refuse REFUSE of the dev halves' abstention questions is reported beside, with its cost.
- follower (`generate/follow.py`): one row per sentence that may follow the lead; positive when
  it brings in a key fact (`must_contain`) the lead lacks. The threshold maximises the questions
  whose every key fact is in the lead and its followers, less FOLLOW_COST per sentence added.

    python bench/train_answerable.py [--write] [--reuse] [--json]
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train_ranker  # noqa: E402
from _answerdata import load, site_engine  # noqa: E402
from _common import CACHE, REPO, console  # noqa: E402
from _ranker_data import QUESTIONS, REAL_SITES, collect  # noqa: E402

SITES = train_ranker.SITES
DATA_DIR = REPO / "src" / "sitecite" / "data"
REFUSE = 0.9  # share of the dev halves' abstention questions refused at the chosen threshold
FOLLOW_COST = 0.1  # an added sentence must bring a key fact this often (at the margin) to be shown
C = 1.0


@dataclass
class Decision:
    """What one question looked like at the two decisions."""

    site: str
    origin: str
    question: str
    answerable: bool
    refused_early: bool = False  # refused before the answerability model (or several parts)
    row: np.ndarray | None = None  # answerability features
    lead_hits: int = 0  # key-fact groups the lead holds
    groups: int = 0  # key-fact groups the question has
    pool_rows: np.ndarray | None = None  # follower features of the sentences after the lead
    pool_gain: list[int] = field(default_factory=list)  # key-fact groups each adds
    pool_texts: list[str] = field(default_factory=list)
    lead_text: str = ""
    must_contain: list[list[str]] = field(default_factory=list)
    part_rows: list[np.ndarray] = field(default_factory=list)  # a question of several parts

    @property
    def lead_correct(self) -> bool:
        return self.answerable and self.groups > 0 and self.lead_hits == self.groups


def questions() -> list[tuple[str, str, str, bool, list[list[str]]]]:
    """(site, origin, question, answerable, must_contain) of the answer data and the dev halves."""
    from sitecite.eval.questions import load_question_set

    found = [(i.site, "answerdata", i.question, i.answerable, i.must_contain) for i in load()]
    for site in REAL_SITES:
        for q in load_question_set(QUESTIONS / f"{site}-dev.json").questions:
            if q.expect == "answer" or q.category == "abstention":
                groups = [list(g) for g in q.must_contain]
                found.append((site, "dev", q.question, q.expect == "answer", groups))
    return found


def placeholder(features: Sequence[str]) -> Any:
    """A model that is never read (the rows are made before any is fitted)."""
    from sitecite.generate.ranker import Ranker

    n = len(features)
    return Ranker(tuple(features), np.zeros(n), np.ones(n), np.zeros(n), 0.0, {})


def decide(
    engine: Any,
    generator: Any,
    site: str,
    origin: str,
    question: str,
    answerable: bool,
    must_contain: list[list[str]],
) -> Decision:
    """Run one question as serving does, up to the two decisions, and record their rows."""
    from sitecite.generate.answerable import answerable_row
    from sitecite.generate.evidence import question_parts
    from sitecite.generate.extractive import part_names, unknown_names
    from sitecite.generate.follow import follower_rows
    from sitecite.pipeline import admitted_context
    from sitecite.retrieve import search
    from sitecite.screen import screen_question

    decision = Decision(site, origin, question, answerable, must_contain=must_contain)
    decision.groups = len(must_contain)
    vector = engine.embedder.embed_query(question)
    hits = search(
        engine.index,
        vector,
        question,
        engine.settings.k,
        engine.threshold,
        engine.settings.retrieve,
    ).hits
    admitted = [h for h in hits if h.admitted]
    if not admitted:
        decision.refused_early = True
        return decision
    context, _ = admitted_context(engine, question, vector, admitted, screen_question(question))
    if unknown_names(context):
        decision.refused_early = True
        return decision
    parts = question_parts(question)
    if len(parts) > 1:
        return several_parts(decision, generator, context, parts)
    names = part_names(context, question, [])
    ranked, _ = generator.rank_part(context, question, vector, names)
    if ranked is None or not ranked.eligible:
        decision.refused_early = True
        return decision
    decision.row = answerable_row(ranked)
    items = ranked.candidates.items
    lead = ranked.eligible[0]
    decision.lead_text = items[lead].text
    decision.lead_hits = len(_held(must_contain, decision.lead_text))
    pool, decision.pool_rows = follower_rows(ranked, lead)
    decision.pool_texts = [items[i].text for i in pool]
    before = _held(must_contain, decision.lead_text)
    decision.pool_gain = [len(_held(must_contain, items[i].text) - before) for i in pool]
    return decision


def several_parts(decision: Decision, generator: Any, context: Any, parts: list[str]) -> Decision:
    """A question of several parts is refused only when every part is: its rows are the parts'
    (no follower rows, and no key facts counted: those are the whole question's)."""
    from sitecite.generate.answerable import answerable_row
    from sitecite.generate.extractive import part_names

    names: list[str] = []
    for part, vector in zip(parts, context.embedder.embed(parts), strict=True):
        names = part_names(context, part, names)
        ranked, _ = generator.rank_part(context, part, vector, names, whole=False)
        if ranked is not None and ranked.eligible:
            decision.part_rows.append(answerable_row(ranked))
    decision.refused_early = not decision.part_rows
    decision.groups = 0  # not graded on key facts here
    return decision


def _held(groups: list[list[str]], text: str) -> set[int]:
    lowered = text.lower()
    return {n for n, g in enumerate(groups) if any(w.lower() in lowered for w in g)}


def decisions(reuse: bool) -> list[Decision]:
    """Every question's decision rows, each made with a ranker fitted on the other sites."""
    from sitecite.config import load_settings
    from sitecite.embed import get_embedder
    from sitecite.generate.answerable import ANSWERABLE_FEATURES
    from sitecite.generate.extractive import ExtractiveGenerator
    from sitecite.generate.follow import FOLLOW_FEATURES

    saved = CACHE / "ranker" / "decisions.pickle"
    if reuse and saved.exists():
        return [Decision(**row) for row in pickle.loads(saved.read_bytes())]
    groups, _ = collect(True)
    sites = [g for g in groups if g.site in SITES]
    settings = load_settings({}, config_file=None, environ={})
    embedder = get_embedder(settings.embedder, threads=2)
    found = []
    asked = questions()
    for site in SITES:
        ranker = train_ranker.fit(
            [g for g in sites if g.site != site], train_ranker.FEATURE_SETS[train_ranker.CHOSEN]
        )
        generator = ExtractiveGenerator(
            ranker=ranker,
            answerability=placeholder(ANSWERABLE_FEATURES),
            follower=placeholder(FOLLOW_FEATURES),
        )
        engine = site_engine(site, embedder, settings)
        for where, origin, question, answerable, must in asked:
            if where == site:
                found.append(decide(engine, generator, site, origin, question, answerable, must))
    saved.write_bytes(pickle.dumps([asdict(d) for d in found]))  # plain data: readable anywhere
    return found


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


def answerability_loso(found: Sequence[Decision]) -> dict[int, float]:
    """Each answered-to-this-point question's probability, from a model fitted on the other
    sites (keyed by position in `found`)."""
    from sitecite.generate.answerable import ANSWERABLE_FEATURES

    probabilities: dict[int, float] = {}
    for site in SITES:
        train, labels = answerability_data([d for d in found if d.site != site])
        model = fit_logistic(np.vstack([d.row for d in train]), labels, ANSWERABLE_FEATURES)
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
            r for r, d in zip(said_no, found, strict=True) if d.origin == "dev" and not d.answerable
        ]
        if sum(unanswerable) >= REFUSE * len(unanswerable):
            return float(threshold)
    return 1.0


def follower_loso(found: Sequence[Decision]) -> dict[int, np.ndarray]:
    """Each question's follower probabilities, from a model fitted on the other sites."""
    from sitecite.generate.follow import FOLLOW_FEATURES

    probabilities: dict[int, np.ndarray] = {}
    for site in SITES:
        train = [d for d in found if d.site != site and _followable(d)]
        x = np.vstack([d.pool_rows for d in train])
        y = np.concatenate([np.array(d.pool_gain) > 0 for d in train]).astype(int)
        model = fit_logistic(x, y, FOLLOW_FEATURES)
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
    from sitecite.generate.answerable import ANSWERABLE_FEATURES
    from sitecite.generate.follow import FOLLOW_FEATURES

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
        train, labels = answerability_data(found)
        model = fit_logistic(np.vstack([d.row for d in train]), labels, ANSWERABLE_FEATURES)
        model.about.update(threshold=threshold, refuse=REFUSE, trained_on=TRAINED_ON)
        (DATA_DIR / "answerable.json").write_text(json.dumps(model.to_json(), indent=1) + "\n")
        usable = [d for d in found if _followable(d)]
        x = np.vstack([d.pool_rows for d in usable])
        y = np.concatenate([np.array(d.pool_gain) > 0 for d in usable]).astype(int)
        follower = fit_logistic(x, y, FOLLOW_FEATURES)
        follower.about.update(threshold=follow_threshold, trained_on=TRAINED_ON)
        (DATA_DIR / "answer_follower.json").write_text(
            json.dumps(follower.to_json(), indent=1) + "\n"
        )
    return result


TRAINED_ON = "answer data (bench/answerdata) and dev halves of jarvis, timlrx; example answer data"


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
