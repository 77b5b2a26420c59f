"""The evaluation harness: question sets, retrieval metrics and answer checks graded from each
answer's own Trace, an optional LLM judge, run history, comparisons and the lab page.

    questions.py  load and validate a question set against an index
    runner.py     every question through `pipeline.answer`, once per repeat; `evaluate`
    grade.py      checks per category, from the Answer and its Trace only
    metrics.py    hit@k, recall@k, MRR, nDCG@k (a page id matches any of its sections)
    judge.py      the LLM judge (schema-validated, bounded retries, cached verdicts)
    stats.py      Wilson and bootstrap intervals, McNemar's exact test
    report.py     the Report: summary, JSON, tables; gate.py: --fail-under and --junit
    history.py    runs in SQLite beside the index; compare.py: flips between runs
    lab.py        the self-contained HTML lab page (charts.py: inline SVG)
"""

from __future__ import annotations

from sitecite.eval.compare import Comparison, compare_reports, load_report
from sitecite.eval.gate import missed_bars, write_junit
from sitecite.eval.history import RunStore, history_path
from sitecite.eval.judge import JUDGE_PROMPT_VERSION, Judge, Verdict
from sitecite.eval.lab import latest_lab_html, render_lab
from sitecite.eval.questions import Question, QuestionSet, load_question_set
from sitecite.eval.report import Report
from sitecite.eval.runner import Runner, evaluate

__all__ = [
    "JUDGE_PROMPT_VERSION",
    "Comparison",
    "Judge",
    "Question",
    "QuestionSet",
    "Report",
    "RunStore",
    "Runner",
    "Verdict",
    "compare_reports",
    "evaluate",
    "history_path",
    "latest_lab_html",
    "load_question_set",
    "load_report",
    "missed_bars",
    "render_lab",
    "write_junit",
]
