"""Inline SVG charts for the lab page: no JavaScript, no external files, readable when printed.

Every mark carries a <title>, so hovering shows the exact figure in any browser.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import Any

BLUE, ORANGE, GREEN, RED, GREY = "#2563eb", "#c2410c", "#15803d", "#b91c1c", "#6b7280"


def _svg(width: int, height: int, body: str, label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-label="{escape(label)}"><title>{escape(label)}</title>'
            f"{body}</svg>")


def interval_bar(value: float | None, low: float | None, high: float | None, width: int = 180,
                 label: str = "") -> str:
    """A 0-1 track with the 95% interval as a band and the estimate as a dot."""
    height, pad = 18, 6
    span = width - 2 * pad

    def x(v: float) -> float:
        return pad + span * min(1.0, max(0.0, v))

    body = f'<line x1="{pad}" y1="9" x2="{width - pad}" y2="9" stroke="#d1d5db" stroke-width="2"/>'
    for tick in (0.0, 0.5, 1.0):
        body += f'<line x1="{x(tick):.1f}" y1="5" x2="{x(tick):.1f}" y2="13" stroke="#d1d5db"/>'
    if low is not None and high is not None:
        body += (f'<rect x="{x(low):.1f}" y="5" width="{max(1.5, x(high) - x(low)):.1f}" height="8" rx="3" '
                 f'fill="{BLUE}" fill-opacity="0.25"/>')
    if value is not None:
        body += f'<circle cx="{x(value):.1f}" cy="9" r="4.5" fill="{BLUE}"/>'
    text = label or (f"{value:.3f} (95% interval {low:.3f}–{high:.3f})" if value is not None
                     and low is not None and high is not None else "no data")
    return _svg(width, height, body, text)


def history_chart(points: Sequence[dict[str, Any]], width: int = 860, height: int = 260) -> str:
    """Pass rate (with its Wilson interval), hit@8 and MRR of every run, oldest to newest.

    Each point: {"label", "passed": (value, low, high), "hit@8": value, "mrr": value, "note": str}.
    """
    left, right, top, bottom = 44, 16, 28, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    n = len(points)

    def x(i: int) -> float:
        return left + (plot_w * (i + 0.5) / n if n else 0)

    def y(v: float) -> float:
        return top + plot_h * (1 - min(1.0, max(0.0, v)))

    body = ""
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        body += (f'<line x1="{left}" y1="{y(tick):.1f}" x2="{width - right}" y2="{y(tick):.1f}" stroke="#e5e7eb"/>'
                 f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" font-size="11" '
                 f'fill="{GREY}">{tick:.2f}</text>')
    series = (("passed", BLUE, "pass rate"), ("hit@8", GREEN, "hit@8"), ("mrr", ORANGE, "MRR"))
    for key, colour, name in series:
        coords = [(x(i), y(_value(p.get(key)))) for i, p in enumerate(points) if _value(p.get(key)) is not None]
        if len(coords) > 1:
            path = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in coords)
            body += f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
        for i, point in enumerate(points):
            value = _value(point.get(key))
            if value is None:
                continue
            if key == "passed" and isinstance(point.get(key), (tuple, list)) and point[key][1] is not None:
                _, low, high = point[key]
                body += (f'<line x1="{x(i):.1f}" y1="{y(low):.1f}" x2="{x(i):.1f}" y2="{y(high):.1f}" '
                         f'stroke="{colour}" stroke-opacity="0.45" stroke-width="5" stroke-linecap="round"/>')
            body += (f'<circle cx="{x(i):.1f}" cy="{y(value):.1f}" r="4" fill="{colour}">'
                     f'<title>run {escape(str(point["label"]))}: {name} {value:.3f}</title></circle>')
    step = max(1, math.ceil(n / 14))
    for i, point in enumerate(points):
        if i % step == 0 or i == n - 1:
            body += (f'<text x="{x(i):.1f}" y="{height - bottom + 16}" text-anchor="middle" font-size="11" '
                     f'fill="{GREY}">{escape(str(point["label"]))}</text>')
        if point.get("note"):
            body += (f'<text x="{x(i):.1f}" y="{top - 10}" text-anchor="middle" font-size="13" fill="{RED}">✎'
                     f'<title>{escape(point["note"])}</title></text>')
    legend_x = left
    for _, colour, name in series:
        body += (f'<rect x="{legend_x}" y="{height - 14}" width="10" height="10" fill="{colour}"/>'
                 f'<text x="{legend_x + 14}" y="{height - 5}" font-size="11">{name}</text>')
        legend_x += 90
    body += (f'<text x="{width - right}" y="{height - 5}" text-anchor="end" font-size="11" fill="{GREY}">'
             f'run →  (band: 95% interval of the pass rate; ✎ = note)</text>')
    return _svg(width, height, body, f"history of {n} runs: pass rate, hit@8 and MRR")


def _value(point: Any) -> float | None:
    if isinstance(point, (tuple, list)):
        point = point[0]
    return None if point is None else float(point)


def histogram_chart(on_topic: Sequence[float], off_topic: Sequence[float], threshold: float | None,
                    width: int = 860, height: int = 240, bin_width: float = 0.05) -> str:
    """On- and off-topic best-section cosines as share-of-questions bars, with the gate threshold."""
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

    on, off = shares(on_topic), shares(off_topic)
    peak = max([*on, *off, 0.01])

    def x(v: float) -> float:
        return left + plot_w * (v - low) / (high - low)

    body = ""
    bar = plot_w / bins / 2 - 1
    for i in range(bins):
        edge = low + i * bin_width
        for offset, share, colour, name, count in ((0, on[i], BLUE, "on-topic", len(on_topic)),
                                                   (bar + 1, off[i], ORANGE, "off-topic", len(off_topic))):
            h = plot_h * share / peak
            body += (f'<rect x="{x(edge) + offset + 1:.1f}" y="{top + plot_h - h:.1f}" width="{bar:.1f}" '
                     f'height="{h:.1f}" fill="{colour}" fill-opacity="0.8"><title>{name}: '
                     f'{share * count:.0f} of {count} questions with best cosine in '
                     f'[{edge:.2f}, {edge + bin_width:.2f})</title></rect>')
    for i in range(bins + 1):
        edge = low + i * bin_width
        if i % 2 == 0:
            body += (f'<text x="{x(edge):.1f}" y="{top + plot_h + 14}" text-anchor="middle" font-size="11" '
                     f'fill="{GREY}">{edge:.2f}</text>')
    body += (f'<line x1="{left}" y1="{top + plot_h}" x2="{width - right}" y2="{top + plot_h}" stroke="{GREY}"/>')
    if threshold is not None:
        body += (f'<line x1="{x(threshold):.1f}" y1="{top}" x2="{x(threshold):.1f}" y2="{top + plot_h}" '
                 f'stroke="{RED}" stroke-width="2" stroke-dasharray="5 3"/>'
                 f'<text x="{x(threshold) + 4:.1f}" y="{top + 12}" font-size="12" fill="{RED}">'
                 f'threshold {threshold:.3f}</text>')
    body += (f'<rect x="{left}" y="{height - 14}" width="10" height="10" fill="{BLUE}"/>'
             f'<text x="{left + 14}" y="{height - 5}" font-size="11">on-topic ({len(on_topic)})</text>'
             f'<rect x="{left + 130}" y="{height - 14}" width="10" height="10" fill="{ORANGE}"/>'
             f'<text x="{left + 144}" y="{height - 5}" font-size="11">off-topic ({len(off_topic)})</text>'
             f'<text x="{width - right}" y="{height - 5}" text-anchor="end" font-size="11" fill="{GREY}">'
             f'best section cosine per question (bars: share of each group)</text>')
    return _svg(width, height, body, "calibration: on-topic and off-topic score distributions")
