"""Inline SVG charts for the lab page: no JavaScript, no external files, readable when printed.

Every mark carries a <title>, so hovering shows the exact figure in any browser.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import Any

BLUE, ORANGE, GREEN, RED, GREY, LIGHT = (
    "#2563eb",
    "#c2410c",
    "#15803d",
    "#b91c1c",
    "#6b7280",
    "#d1d5db",
)


def tag(name: str, content: str = "", **attributes: Any) -> str:
    """An SVG element; `font_size` becomes `font-size`, floats are rounded to 0.1."""
    parts = []
    for key, value in attributes.items():
        shown = f"{value:.1f}" if isinstance(value, float) else escape(str(value), quote=True)
        parts.append(f'{key.rstrip("_").replace("_", "-")}="{shown}"')
    opening = f"<{name} {' '.join(parts)}"
    return f"{opening}>{content}</{name}>" if content else f"{opening}/>"


def title(text: str) -> str:
    return f"<title>{escape(text)}</title>"


def _svg(width: int, height: int, body: str, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="{escape(label)}">{title(label)}{body}</svg>'
    )


def _label(
    x: float, y: float, text: str, anchor: str = "middle", colour: str = GREY, size: int = 11
) -> str:
    return tag("text", escape(text), x=x, y=y, text_anchor=anchor, font_size=size, fill=colour)


def interval_bar(
    value: float | None, low: float | None, high: float | None, width: int = 180, label: str = ""
) -> str:
    """A 0-1 track with the 95% interval as a band and the estimate as a dot."""
    pad = 6.0

    def x(v: float) -> float:
        return pad + (width - 2 * pad) * min(1.0, max(0.0, v))

    body = tag("line", x1=pad, y1=9, x2=width - pad, y2=9, stroke=LIGHT, stroke_width=2)
    body += "".join(
        tag("line", x1=x(t), y1=5, x2=x(t), y2=13, stroke=LIGHT) for t in (0.0, 0.5, 1.0)
    )
    if low is not None and high is not None:
        band = max(1.5, x(high) - x(low))
        body += tag("rect", x=x(low), y=5, width=band, height=8, rx=3, fill=BLUE, fill_opacity=0.25)
    if value is not None:
        body += tag("circle", cx=x(value), cy=9, r=4.5, fill=BLUE)
    if not label:
        known = value is not None and low is not None and high is not None
        label = f"{value:.3f} (95% interval {low:.3f}–{high:.3f})" if known else "no data"
    return _svg(width, 18, body, label)


def _value(point: Any) -> float | None:
    if isinstance(point, tuple | list):
        point = point[0]
    return None if point is None else float(point)


def history_chart(points: Sequence[dict[str, Any]], width: int = 860, height: int = 260) -> str:
    """Pass rate (with its Wilson interval), hit@8 and MRR of every run, oldest to newest.

    Each point: {"label", "passed": (value, low, high), "hit@8": value, "mrr": value, "note": str}.
    """
    left, right, top, bottom = 44, 16, 28, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    n = len(points)

    def x(i: int) -> float:
        return left + plot_w * (i + 0.5) / max(n, 1)

    def y(v: float) -> float:
        return top + plot_h * (1 - min(1.0, max(0.0, v)))

    body = ""
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        body += tag("line", x1=left, y1=y(tick), x2=width - right, y2=y(tick), stroke="#e5e7eb")
        body += _label(left - 6, y(tick) + 4, f"{tick:.2f}", anchor="end")
    series = (("passed", BLUE, "pass rate"), ("hit@8", GREEN, "hit@8"), ("mrr", ORANGE, "MRR"))
    for key, colour, name in series:
        known = [(i, v) for i, p in enumerate(points) if (v := _value(p.get(key))) is not None]
        if len(known) > 1:
            path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in known)
            body += tag("polyline", points=path, fill="none", stroke=colour, stroke_width=2)
        for i, value in known:
            interval = points[i].get(key)
            if key == "passed" and isinstance(interval, tuple | list) and interval[1] is not None:
                body += tag(
                    "line",
                    x1=x(i),
                    y1=y(interval[1]),
                    x2=x(i),
                    y2=y(interval[2]),
                    stroke=colour,
                    stroke_opacity=0.45,
                    stroke_width=5,
                    stroke_linecap="round",
                )
            mark = title(f"run {points[i]['label']}: {name} {value:.3f}")
            body += tag("circle", mark, cx=x(i), cy=y(value), r=4, fill=colour)
    step = max(1, math.ceil(n / 14))
    for i, point in enumerate(points):
        if i % step == 0 or i == n - 1:
            body += _label(x(i), height - bottom + 16, str(point["label"]))
        if point.get("note"):
            body += tag(
                "text",
                "✎" + title(point["note"]),
                x=x(i),
                y=top - 10,
                text_anchor="middle",
                font_size=13,
                fill=RED,
            )
    for position, (_, colour, name) in enumerate(series):
        body += tag("rect", x=left + 90 * position, y=height - 14, width=10, height=10, fill=colour)
        body += _label(
            left + 90 * position + 14, height - 5, name, anchor="start", colour="#111827"
        )
    body += _label(
        width - right,
        height - 5,
        "run →  (band: 95% interval of the pass rate; ✎ = note)",
        anchor="end",
    )
    return _svg(width, height, body, f"history of {n} runs: pass rate, hit@8 and MRR")


def histogram_chart(
    on_topic: Sequence[float],
    off_topic: Sequence[float],
    threshold: float | None,
    width: int = 860,
    height: int = 240,
    bin_width: float = 0.05,
) -> str:
    """On- and off-topic best-section cosines as bars (share of each group), and the threshold."""
    values = [*on_topic, *off_topic, *([threshold] if threshold is not None else [])]
    low = math.floor(min(values) / bin_width) * bin_width
    high = math.ceil(max(values) / bin_width + 1e-9) * bin_width
    bins = max(1, round((high - low) / bin_width))
    left, right, top, bottom = 44, 16, 14, 42
    plot_w, plot_h = width - left - right, height - top - bottom

    def shares(scores: Sequence[float]) -> list[float]:
        counts = [0] * bins
        for score in scores:
            counts[min(bins - 1, max(0, int((score - low) / bin_width)))] += 1
        return [c / len(scores) if scores else 0.0 for c in counts]

    groups = (
        (shares(on_topic), BLUE, "on-topic", len(on_topic)),
        (shares(off_topic), ORANGE, "off-topic", len(off_topic)),
    )
    peak = max([*groups[0][0], *groups[1][0], 0.01])

    def x(v: float) -> float:
        return left + plot_w * (v - low) / (high - low)

    body, bar = "", plot_w / bins / 2 - 1
    for i in range(bins):
        edge = low + i * bin_width
        for offset, (share, colour, name, count) in enumerate(groups):
            h = plot_h * share[i] / peak
            text = (
                f"{name}: {share[i] * count:.0f} of {count} questions with best cosine in "
                f"[{edge:.2f}, {edge + bin_width:.2f})"
            )
            body += tag(
                "rect",
                title(text),
                x=x(edge) + offset * (bar + 1) + 1,
                y=top + plot_h - h,
                width=bar,
                height=h,
                fill=colour,
                fill_opacity=0.8,
            )
    for i in range(0, bins + 1, 2):
        body += _label(x(low + i * bin_width), top + plot_h + 14, f"{low + i * bin_width:.2f}")
    body += tag("line", x1=left, y1=top + plot_h, x2=width - right, y2=top + plot_h, stroke=GREY)
    if threshold is not None:
        body += tag(
            "line",
            x1=x(threshold),
            y1=top,
            x2=x(threshold),
            y2=top + plot_h,
            stroke=RED,
            stroke_width=2,
            stroke_dasharray="5 3",
        )
        body += _label(x(threshold) + 4, top + 12, f"threshold {threshold:.3f}", "start", RED, 12)
    for position, (_, colour, name, count) in enumerate(groups):
        body += tag(
            "rect", x=left + 130 * position, y=height - 14, width=10, height=10, fill=colour
        )
        body += _label(
            left + 130 * position + 14, height - 5, f"{name} ({count})", "start", "#111827"
        )
    body += _label(
        width - right,
        height - 5,
        "best section cosine per question (bars: share of each group)",
        anchor="end",
    )
    return _svg(width, height, body, "calibration: on-topic and off-topic score distributions")


def svg(width: int, height: int, body: str, label: str) -> str:
    """An <svg> element around `body`, labelled for screen readers and on hover."""
    return _svg(width, height, body, label)


def label(
    x: float, y: float, text: str, anchor: str = "middle", colour: str = GREY, size: int = 11
) -> str:
    """A text mark (escaped)."""
    return _label(x, y, text, anchor, colour, size)
