"""The lab page's per-question details: answer, linked citations, top hits with scores and gate
decisions, every check, the judge's verdict and, with repeats, each repeat's outcome.

Failed questions are opened by default (<details open>), so the page needs no script.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from sitecite.eval.html import el, header, href, num, row
from sitecite.eval.metrics import matches
from sitecite.eval.report import outcome_of
from sitecite.markup import CITATION, pointer_lead, quote_line, to_html

TOP_HITS = 8


def questions_section(questions: list[dict[str, Any]]) -> str:
    failed = sum(not q["passed"] for q in questions)
    heading = el("h2", f"Questions ({len(questions)}; {failed} failed, opened)", id="questions")
    return heading + "".join(question_details(q) for q in questions)


def _verdict(passed: bool) -> str:
    return el("span", "pass" if passed else "fail", class_="pass" if passed else "fail")


def question_details(q: dict[str, Any]) -> str:
    labels = [q["category"], f"expect {q['expect']}"]
    labels += ["flaky"] if q.get("flaky") else []
    outcome = outcome_of(q)
    labels += [outcome] if outcome != "answered" else []
    mark = el("span", "✓", class_="pass") if q["passed"] else el("span", "✗", class_="fail")
    summary = f"{mark} {el('b', escape(q['id']))} {escape(q['question'])}" + "".join(
        el("span", escape(t), class_="tag") for t in labels
    )
    body = [
        el("div", _answer(q) + _citations(q), class_="evidence"),
        _sources(q),
        el(
            "div",
            el("div", el("h3", "Checks") + _checks(q) + _judge(q.get("judge")))
            + el("div", el("h3", f"Top hits (gate {num(q.get('threshold'))})") + _hits(q)),
            class_="grid2",
        ),
        _repeats(q),
    ]
    timing = ", ".join(f"{k} {v:.1f} ms" for k, v in (q.get("timings_ms") or {}).items())
    tokens = q.get("tokens") or {"prompt": 0, "output": 0}
    body.append(
        el("p", escape(f"{timing} · tokens {tokens['prompt']} / {tokens['output']}"), class_="meta")
    )
    return el(
        "details",
        el("summary", summary) + "".join(body),
        class_=f"q {'passed' if q['passed'] else 'failed'}",
        id=f"q-{q['id']}",
        open=not q["passed"],
    )


def _answer(q: dict[str, Any]) -> str:
    """The answer as the visitor reads it, each [n] linked to its section."""
    links = {str(c["n"]): href(c["url"]) for c in q["citations"]}

    def marker(match: re.Match[str]) -> str:
        n = match.group(1)
        return el("a", match.group(0), href=links[n]) if n in links else match.group(0)

    def link(text: str) -> str:
        return CITATION.sub(marker, text)

    pointed = outcome_of(q) == "pointed"
    text = pointer_lead(q["answer"]) if pointed else q["answer"]
    shown = to_html(text, link) if text else el("p", escape(q.get("error") or ""))
    label = "No direct answer: the closest sections are listed with their lines" if pointed else ""
    return el("div", (el("p", label, class_="meta") if label else "") + shown, class_="answer")


def _citations(q: dict[str, Any]) -> str:
    """Each cited section with the words of it the answer rests on (its quotes)."""
    if not q["citations"]:
        return ""
    items = []
    for c in q["citations"]:
        where = escape(c["title"]) + (f" › {escape(c['heading'])}" if c.get("heading") else "")
        quotes = "".join(
            el("blockquote", escape(quote_line(quote))) for quote in c.get("quotes") or []
        )
        items.append(
            el(
                "li",
                el("a", where, href=href(c["url"])) + " " + el("code", escape(c["id"])) + quotes,
                value=c["n"],
            )
        )
    return el("ol", "".join(items), class_="quotes", aria_label="Sources and their quotes")


def _sources(q: dict[str, Any]) -> str:
    expected = ", ".join(q.get("expected_sources") or []) or "none"
    allowed = ", ".join(q.get("allowed_sources") or [])
    text = f"expected sources: {el('code', escape(expected))}"
    if allowed:
        text += f" · allowed: {el('code', escape(allowed))}"
    return el("p", text, class_="meta")


def _checks(q: dict[str, Any]) -> str:
    rows = []
    for name, check in q["checks"].items():
        detail = escape(str(check.get("detail", "")))
        if not check.get("grades", True):
            detail += " " + el("span", "pipeline step, not graded", class_="tag")
        rows.append(row(escape(name), _verdict(check["passed"]), detail))
    return el("table", "".join(rows))


def _hits(q: dict[str, Any]) -> str:
    expected = q.get("expected_sources") or []
    rows = []
    for hit in q["retrieved"][:TOP_HITS]:
        relevant = any(matches(s, hit["id"], hit.get("page_id", "")) for s in expected)
        link = ("★ " if relevant else "") + el(
            "a", escape(hit["id"]), href=href(hit.get("url", ""))
        )
        gate = (
            el("span", "admitted", class_="pass")
            if hit["admitted"]
            else el("span", "not", class_="meta")
        )
        rows.append(row(str(hit["rank"]), link, f"{hit['score']:.3f}", gate, numeric=(0, 2)))
    if not rows:
        return el("p", "no hits", class_="meta")
    return el(
        "table",
        header("#", "section (★ expected)", "cosine", "gate", numeric=(0, 2)) + "".join(rows),
    )


def _judge(judge: dict[str, Any] | None) -> str:
    if judge is None:
        return el("p", "judge: not configured", class_="meta")
    if judge.get("could_not_grade"):
        return el("p", f"judge could not grade: {escape(judge.get('error', ''))}", class_="fail")
    verdict_class = "pass" if judge["faithful"] else "fail"
    facts = f"faithful: {el('b', str(judge['faithful']), class_=verdict_class)}"
    if judge.get("correctly_refused") is not None:
        facts += f" · correctly refused: {el('b', str(judge['correctly_refused']))}"
    facts += " · cached" if judge.get("cached") else ""
    html = el("h3", "Judge") + el("p", facts) + el("p", escape(judge.get("rationale", "")))
    claims = judge.get("hallucinated_claims") or []
    if claims:
        html += el("p", "unsupported claims:", class_="fail")
        html += el("ul", "".join(el("li", escape(c)) for c in claims))
    return html


def _repeats(q: dict[str, Any]) -> str:
    if not q.get("repeats"):
        return ""
    rows = [
        row(f"#{r['repeat']}", _verdict(r["passed"]), escape(r["answer"][:160]))
        for r in q["repeats"]
    ]
    return el("h3", "Repeats") + el("table", "".join(rows))
