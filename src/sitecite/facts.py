"""Facts a sentence states with figures: numbers with their units, money, versions, ordinals,
times and dates, read the same way from an answer and from its sources.

Each becomes a (value, unit) pair: "1,240 ms" and "1240 milliseconds" are ("1240", "ms"),
"$5/month" is ("5", "$"), "€1.2k" is ("1200", "€"), "24-year-old" is ("24", "year"), "third"
and "3rd" are ("3", ""), "22 January 2026" is ("22", ""), ("1", MONTH_OF_YEAR) and ("2026", "").
A digit inside a word is part of a name, not a figure ("B2", "GPT-4o" are names; see
sitecite.tokens), except a percentile: "p75" and "75th percentile" are ("75",
"percentile"). "98.1%" is never "98%" and "WCAG 2" never "WCAG 2.2": values are compared
exactly, units only when both sides give one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from sitecite.tokens import CARDINALS, ORDINALS

# Words that are figures only sometimes ("one of them", "a second click", "at first"): read
# on both sides, but an answer is not held to them.
WEAK = frozenset({"zero", "one", "first", "second", "twice", "hundred", "thousand", "dozen"})
MONTH_OF_YEAR = "month of the year"  # a unit of its own: "February" is not "2 months"
MONTHS = {
    name: n
    for n, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
UNITS = {
    "%": "%",
    "percent": "%",
    "per cent": "%",
    "ms": "ms",
    "millisecond": "ms",
    "milliseconds": "ms",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "min": "min",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "month": "month",
    "months": "month",
    "year": "year",
    "years": "year",
    "kb": "kb",
    "mb": "mb",
    "gb": "gb",
    "tb": "tb",
    "px": "px",
    "x": "x",
    "×": "x",
    "times": "x",
    "inch": "inch",
    "inches": "inch",
}
CURRENCIES = {
    "$": "$",
    "€": "€",
    "£": "£",
    "¥": "¥",
    "usd": "$",
    "dollar": "$",
    "dollars": "$",
    "eur": "€",
    "euro": "€",
    "euros": "€",
    "gbp": "£",
    "pound": "£",
    "pounds": "£",
}
SCALES = {"k": 1000, "thousand": 1000, "m": 1_000_000, "million": 1_000_000, "bn": 10**9}
SCALES |= {"billion": 10**9}

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)*"
_UNIT = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
_CUR_WORD = "|".join(sorted((re.escape(c) for c in CURRENCIES if c.isalpha()), key=len))
_FIGURE = re.compile(
    rf"(?<![\w.])(?<![A-Za-z]-)(?P<cur>[$€£¥]|(?:USD|EUR|GBP)\s?)?v?(?P<num>{_NUM})"
    rf"(?P<ord>st|nd|rd|th)?"
    rf"(?:\s?(?P<scale>k|bn|million|billion|thousand|m(?=\s*[$€£¥]|\s+(?:{_CUR_WORD})\b)))?"
    rf"(?:[\s-]?(?P<unit>{_UNIT})(?![\w%]))?"
    rf"(?:\s?(?P<cur2>[$€£¥]|(?:{_CUR_WORD})\b))?"
    rf"(?![A-Za-z\d])",
    re.IGNORECASE,
)
# A number fused to a unit nobody lists: "16vCPU", "2.3GHz".
_FUSED = re.compile(r"(?<![\w.])(?<![A-Za-z]-)(?P<num>\d+(?:\.\d+)?)(?P<unit>[A-Za-z]{2,8})\b")
_PERCENTILE = re.compile(
    r"(?<![\w.])p(?P<p>\d{1,2}(?:\.\d+)?)\b|\b(?P<n>\d{1,2})(?:st|nd|rd|th)\s+percentile\b",
    re.IGNORECASE,
)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_TIME = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])")
_WORD_FIGURE = re.compile(
    r"\b(?P<word>"
    + "|".join(sorted([*CARDINALS, *ORDINALS], key=len, reverse=True))
    + r")(?:-(?P<unit_word>"
    + "|".join(sorted([*CARDINALS], key=len, reverse=True))
    + r"))?(?:[\s-](?P<unit>"
    + _UNIT
    + r")(?![\w%]))?\b",
    re.IGNORECASE,
)
_ONE_UNIT = re.compile(
    r"\b(?:a|an|one|per)\s+(?P<unit>second|minute|hour|day|week|month|year)\b", re.IGNORECASE
)
_MONTH = re.compile(
    r"\b(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Fact:
    """One figure: its normalised value and unit, where it stands, and whether it is weak."""

    value: str
    unit: str
    start: int
    end: int
    weak: bool = False

    @property
    def key(self) -> tuple[str, str]:
        return (self.value, self.unit)


@lru_cache(maxsize=16384)
def facts(text: str) -> tuple[Fact, ...]:
    """Every figure in `text`, in order of position (cached: texts are read many times)."""
    found: list[Fact] = []
    taken: list[tuple[int, int]] = []

    def add(fact: Fact) -> None:
        if not any(s < fact.end and fact.start < e for s, e in taken):
            found.append(fact)
            taken.append((fact.start, fact.end))

    for match in _ISO_DATE.finditer(text):
        year, month, day = match.groups()
        add(Fact(year, "", match.start(1), match.end(1)))
        add(Fact(str(int(month)), MONTH_OF_YEAR, match.start(2), match.end(2)))
        add(Fact(str(int(day)), "", match.start(3), match.end(3)))
    for match in _PERCENTILE.finditer(text):  # "p75" is "the 75th percentile"
        add(Fact(match.group("p") or match.group("n"), "percentile", match.start(), match.end()))
    for match in _TIME.finditer(text):
        add(Fact(f"{int(match.group(1))}:{match.group(2)}", "", match.start(), match.end()))
    for match in _ONE_UNIT.finditer(text):  # "over a second" is one second, not a second one
        unit = UNITS[match.group("unit").lower()]  # but "$5 a month" is a rate: never required
        add(Fact("1", unit, match.start(), match.end(), weak=True))
    for match in _FIGURE.finditer(text):
        add(_figure(match))
    for match in _FUSED.finditer(text):
        add(
            Fact(
                _value(match.group("num")), match.group("unit").lower(), match.start(), match.end()
            )
        )
    for match in _WORD_FIGURE.finditer(text):
        add(_word_figure(match))
    for match in _MONTH.finditer(text):
        fact = _month(text, match)
        if fact is not None:
            add(fact)
    return tuple(sorted(found, key=lambda f: f.start))


def _figure(match: re.Match[str]) -> Fact:
    raw = match.group("num").replace(",", "")
    scale = SCALES.get((match.group("scale") or "").lower(), 1)
    currency = match.group("cur") or match.group("cur2") or ""
    unit = CURRENCIES.get(currency.strip().lower(), "") or UNITS.get(
        re.sub(r"\s+", " ", (match.group("unit") or "").lower()), ""
    )
    return Fact(_value(raw, scale), unit, match.start(), match.end())


def _value(raw: str, scale: int = 1) -> str:
    """A canonical value: "09" -> "9", "1.5" with scale 1000 -> "1500"; versions stay as typed."""
    if raw.count(".") > 1:
        return raw  # a version: 2.10.1
    if scale != 1:
        number = float(raw) * scale
        return str(int(number)) if number.is_integer() else str(number)
    if "." not in raw and len(raw) < 6:
        return str(int(raw))  # long digit strings (phone numbers) stay as written
    return raw


def _word_figure(match: re.Match[str]) -> Fact:
    word = match.group("word").lower()
    value = CARDINALS.get(word, ORDINALS.get(word, 0))
    if match.group("unit_word"):
        value += CARDINALS[match.group("unit_word").lower()]  # twenty-five
    unit = UNITS.get((match.group("unit") or "").lower(), "")
    weak = word in WEAK and not match.group("unit_word") and not unit
    return Fact(str(value), unit, match.start(), match.end(), weak)


def _month(text: str, match: re.Match[str]) -> Fact | None:
    """A month name, written with a capital; "May" and abbreviations only beside a number."""
    name = match.group("month")
    if not name[:1].isupper():
        return None
    near = text[max(0, match.start() - 4) : match.end() + 5]
    if (name.lower() == "may" or len(name.rstrip(".")) == 3) and not re.search(r"\d", near):
        return None
    return Fact(str(MONTHS[name.lower().rstrip(".")]), MONTH_OF_YEAR, match.start(), match.end())


def holds(fact: Fact, others: Sequence[Fact]) -> bool:
    """Whether `others` state `fact`: the same value, and the same unit where both give one (a
    month of the year only ever matches a month of the year; a figure that is only sometimes
    one, "a second click", proves nothing); a number of years may be the span between two
    years ("from 2018 to 2021" holds "three years")."""
    if fact.unit == "year" and fact.value in _spans(others):
        return True
    for other in others:
        if other.value != fact.value or other.weak:
            continue
        if MONTH_OF_YEAR in (fact.unit, other.unit):
            if fact.unit == other.unit:
                return True
        elif not fact.unit or not other.unit or fact.unit == other.unit:
            return True
    return False


def _spans(others: Sequence[Fact]) -> set[str]:
    years = sorted({int(f.value) for f in others if not f.unit and _is_year(f.value)})
    return {str(b - a) for i, a in enumerate(years) for b in years[i + 1 :]}


def _is_year(value: str) -> bool:
    return value.isdigit() and 1900 <= int(value) <= 2100


_FROM = re.compile(r"\bfrom\s*$", re.IGNORECASE)
_TO = re.compile(r"\s*(?:to|→|->|–)\s*", re.IGNORECASE)
_BEFORE = re.compile(r"\bbefore\s*(?:was|:|,)?\s*$", re.IGNORECASE)
_AFTER = re.compile(r"\bafter\s*(?:was|:|,)?\s*$", re.IGNORECASE)
_BACK_FROM = re.compile(r",?\s*(?:down|up)\s+from\s*$", re.IGNORECASE)
_TO_THEN_FROM = re.compile(r",?\s*from\s*", re.IGNORECASE)


def changes(text: str) -> list[tuple[Fact, Fact]]:
    """Changes a sentence states, as (from, to) pairs of figures in one unit: "from 4.1 s to
    1.3 s", "before was 412 KB and after was 146 KB", "86 ms at p95, down from 1,240 ms",
    "fell to 6 from 19"."""
    found = [f for f in facts(text) if not f.weak]
    pairs = []
    for i, first in enumerate(found):
        second = next((f for f in found[i + 1 :] if _same_kind(first, f)), None)
        if second is None:
            continue
        before = text[max(0, first.start - 16) : first.start]
        between = text[first.end : second.start]
        if len(between) > 40:
            continue
        if (_FROM.search(before) and _TO.fullmatch(between)) or (
            _BEFORE.search(before) and _AFTER.search(between)
        ):
            pairs.append((first, second))
        elif _BACK_FROM.search(between) or (
            re.search(r"\bto\s*$", before, re.IGNORECASE) and _TO_THEN_FROM.fullmatch(between)
        ):
            pairs.append((second, first))
    return pairs


def _same_kind(first: Fact, second: Fact) -> bool:
    return first.unit == second.unit or not first.unit or not second.unit


def reversed_change(claim: str, sources: Sequence[str]) -> str:
    """A change the claim states in the opposite direction to its sources ("rose from 86 ms to
    1,240 ms" against "before was 1,240 ms and after was 86 ms"), or ""."""
    stated = [pair for text in sources for pair in changes(text)]
    for start, end in changes(claim):
        forward = any(holds(start, [a]) and holds(end, [b]) for a, b in stated)
        backward = any(holds(start, [b]) and holds(end, [a]) for a, b in stated)
        if backward and not forward:
            return f"from {claim[start.start : start.end]} to {claim[end.start : end.end]}"
    return ""
