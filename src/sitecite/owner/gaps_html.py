"""The lab's section on visitors: questions asked, answer and refusal rates by day (inline
SVG), content gaps, feedback and the most cited pages. Everything from the log is escaped.

`traffic_section` is inserted into the evaluation lab page at /lab; `traffic_page` is the
whole page when no evaluation has been run yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from sitecite.eval.charts import BLUE, GREEN, ORANGE, label, svg, tag, title
from sitecite.eval.html import el, header, href, num, pct, row, standalone
from sitecite.owner.gaps import DayCount, GapGroup, GapsReport

REASON_LABELS = {
    "wrong": "wrong",
    "not_what_i_asked": "not what I asked",
    "outdated": "outdated",
    "other": "other",
    "": "no reason",
}


def traffic_section(report: GapsReport, budget: dict[str, Any] | None = None) -> str:
    """The section for one period of the question log."""
    period = f"{report.since:%Y-%m-%d %H:%M} to {report.until:%Y-%m-%d %H:%M} UTC"
    parts = [
        el("h2", "Visitors' questions", id="visitors"),
        el("p", f"From the question log, {escape(period)}.", class_="meta"),
        _cards(report, budget),
        daily_chart(report.days) if report.days else "",
        _gaps(report.groups),
        _recent(report),
        _feedback(report),
        _top_cited(report.top_cited),
    ]
    return el("section", "".join(parts), id="traffic")


def traffic_page(report: GapsReport, budget: dict[str, Any] | None = None, note: str = "") -> str:
    """A whole lab page holding only the visitors' section (and a note, e.g. no run yet)."""
    body = el("h1", "Lab") + (el("p", note, class_="meta") if note else "")
    body += traffic_section(report, budget)
    return standalone("sitecite lab · visitors", body)


def insert_section(page: str, section: str) -> str:
    """The evaluation lab page with the visitors' section after its navigation."""
    marker = "</nav>"
    at = page.find(marker)
    if at < 0:
        at, marker = page.find("<main>"), "<main>"
    if at < 0:
        return page
    at += len(marker)
    return page[:at] + section + page[at:]


def _card(name: str, value: str, detail: str = "") -> str:
    return el(
        "div",
        el("div", escape(name), class_="name")
        + el("div", value, class_="value")
        + el("div", detail, class_="ci"),
        class_="card",
    )


def _cards(report: GapsReport, budget: dict[str, Any] | None) -> str:
    asked = report.asked
    down = report.feedback.get("down", 0)
    cards = [
        _card("questions asked", str(asked), f"{report.followups} follow-ups"),
        _card(
            "answered",
            pct(report.answered / asked) if asked else "–",
            f"{report.answered} of {asked}",
        ),
        _card(
            "pointed",
            pct(report.pointed / asked) if asked else "–",
            f"{report.pointed} of {asked}: the closest sections, no direct answer",
        ),
        _card(
            "refused",
            pct(report.refused / asked) if asked else "–",
            f"{report.refused} of {asked}",
        ),
        _card(
            "feedback",
            f"{report.feedback.get('up', 0)} up · {down} down",
            _reasons(report.feedback) if down else "thumbs on answers",
        ),
        _card("content gaps", str(len(report.groups)), "groups of unanswered questions"),
    ]
    if report.visitors is not None:
        cards.append(_card("visitors", str(report.visitors), "distinct per day, summed"))
    if budget and budget.get("limit"):
        state = "spent: extractive answers" if budget.get("exhausted") else "left today"
        cards.append(
            _card(
                "LLM budget today",
                f"{budget['used']:,} / {budget['limit']:,}",
                f"{escape(str(budget['unit']))}; {state}",
            )
        )
    return el("div", "".join(cards), class_="cards")


def _reasons(feedback: dict[str, int]) -> str:
    found = [
        (key.removeprefix("down:"), n) for key, n in feedback.items() if key.startswith("down:")
    ]
    return escape(", ".join(f"{REASON_LABELS.get(r, r)} {n}" for r, n in sorted(found)))


def daily_chart(days: Sequence[DayCount], width: int = 860, height: int = 220) -> str:
    """Answered, pointed and refused questions per day as stacked bars, the answer rate as a
    line."""
    left, right, top, bottom = 44, 44, 16, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max(d.asked for d in days) or 1
    slot = plot_w / len(days)
    bar = max(2.0, min(28.0, slot * 0.7))

    def x(i: int) -> float:
        return left + slot * (i + 0.5)

    def y(count: float) -> float:
        return top + plot_h * (1 - count / peak)

    body = tag("line", x1=left, y1=top + plot_h, x2=width - right, y2=top + plot_h, stroke="#999")
    body += label(left - 6, top + 4, str(peak), anchor="end")
    body += label(width - right + 6, top + 4, "100%", anchor="start")
    points = []
    for i, day in enumerate(days):
        info = (
            f"{day.day}: {day.asked} asked, {day.answered} answered, {day.pointed} pointed, "
            f"{day.refused} refused"
        )
        base = 0
        for count, colour in ((day.answered, GREEN), (day.pointed, BLUE), (day.refused, ORANGE)):
            if count:
                body += tag(
                    "rect",
                    title(info),
                    x=x(i) - bar / 2,
                    y=y(base + count),
                    width=bar,
                    height=y(base) - y(base + count),
                    fill=colour,
                )
            base += count
        points.append(f"{x(i):.1f},{top + plot_h * (1 - day.answer_rate):.1f}")
        if len(days) <= 14 or i % max(1, len(days) // 10) == 0:
            body += label(x(i), height - bottom + 16, day.day[5:])
    if len(points) > 1:
        body += tag("polyline", points=" ".join(points), fill="none", stroke="#111827")
    legend = (
        (GREEN, "answered"),
        (BLUE, "pointed"),
        (ORANGE, "refused"),
        ("#111827", "answer rate (right axis)"),
    )
    for position, (colour, name) in enumerate(legend):
        body += tag(
            "rect", x=left + 110 * position, y=height - 14, width=10, height=10, fill=colour
        )
        body += label(left + 110 * position + 14, height - 5, name, "start", "#111827")
    return svg(width, height, body, f"questions per day over {len(days)} days")


def _gaps(groups: Sequence[GapGroup]) -> str:
    head = el("h3", "Content gaps: what the site could not answer", id="gaps")
    if not groups:
        return head + el("p", "No refused or thumbs-down questions in this period.")
    rows = []
    for number, group in enumerate(groups, start=1):
        examples = el("ul", "".join(el("li", escape(q)) for q in group.examples))
        more = len(group.questions) - len(group.examples)
        if more > 0:
            examples += el("span", f"and {more} more", class_="meta")
        closest = el(
            "a", escape(group.closest_title or group.closest_id), href=href(group.closest_url)
        )
        rows.append(
            el(
                "tr",
                el("td", str(number), class_="num")
                + el("td", f"{group.size}", class_="num")
                + el("td", examples)
                + el(
                    "td",
                    f"{closest}<br>{el('code', escape(group.closest_id))} "
                    f"cosine {num(group.closest_score)}",
                )  # fmt: skip
                + el("td", el("b", escape(group.suggestion))),
                class_="gap",
            )
        )
    names = ("#", "asked", "example questions", "closest section", "suggestion")
    return head + el("table", header(*names, numeric=(0, 1)) + "".join(rows), class_="gaps")


def _recent(report: GapsReport) -> str:
    head = el("h3", "Latest questions", id="recent")
    if not report.recent:
        return head + el("p", "No questions in this period.")
    rows = []
    for ask in report.recent:
        question = escape(ask.question)
        if ask.resolved:
            question += el("div", f"follow-up, read as: {escape(ask.resolved)}", class_="meta")
        if ask.outcome == "answered":
            outcome = el("span", "answered", class_="pass")
        elif ask.outcome == "pointed":
            outcome = el("span", "pointed: closest sections", class_="pointed")
        else:
            outcome = el("span", f"refused ({escape(ask.reason)})", class_="warn")
        cited = ", ".join(el("code", escape(c)) for c in ask.cited[:3])
        rows.append(
            row(
                escape(ask.at[:16].replace("T", " ")),
                question,
                outcome,
                cited,
                escape(ask.rating or ""),
            )
        )
    names = ("when (UTC)", "question", "outcome", "cited", "feedback")
    return head + el("table", header(*names) + "".join(rows), class_="recent")


def _feedback(report: GapsReport) -> str:
    head = el("h3", "Feedback on answers", id="feedback")
    if not report.recent_feedback:
        return head + el("p", "No feedback in this period.")
    rows = "".join(
        row(
            escape(a.at[:16].replace("T", " ")),
            escape(a.question),
            el("span", "up", class_="pass")
            if a.rating == "up"
            else el("span", "down", class_="fail"),
            escape(REASON_LABELS.get(a.feedback_reason or "", a.feedback_reason or "")),
            escape(a.feedback_text or ""),
        )
        for a in report.recent_feedback
    )
    names = ("when (UTC)", "question", "rating", "reason", "comment")
    return head + el("table", header(*names) + rows, class_="feedback")


def _top_cited(top: Sequence[tuple[str, int]]) -> str:
    head = el("h3", "Most cited pages", id="cited")
    if not top:
        return head + el("p", "No answers with citations in this period.")
    rows = "".join(row(el("code", escape(page)), str(n), numeric=(1,)) for page, n in top)
    return head + el("table", header("page", "answers", numeric=(1,)) + rows)
