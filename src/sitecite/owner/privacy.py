"""What the question log may keep about a visitor: their question with personal numbers and
addresses taken out, and, if the owner asks for it, a hash that counts visitors for one day.

Redaction replaces e-mail addresses, phone numbers and card-like numbers (13 to 19 digits)
with a marker, before anything is written. Years, year ranges, dates, versions and ordinary
quantities are left alone: "what did she do in 2019-2021?" is a content question, not a
phone number.

The visitor hash is keyed with a random salt that lives in memory only and is replaced every
UTC day, so a hash says "the same visitor as earlier today" and nothing else: it cannot be
reversed into an address (the salt is never written), nor linked to the same visitor on
another day.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections.abc import Callable

EMAIL_MARK = "[email]"
PHONE_MARK = "[phone]"
CARD_MARK = "[card number]"

_EMAIL = re.compile(
    r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+"  # noor@example.com
    r"|[\w.+-]+\s*(?:\(at\)|\[at\])\s*[\w-]+(?:\s*(?:\(dot\)|\[dot\]|\.)\s*[\w-]+)+"  # a (at) b
    r"|[\w.+-]+\s+at\s+[\w-]+(?:\s+dot\s+[a-z]{2,})+\b",  # noor at example dot com
    re.IGNORECASE,
)
# A run of digits with the separators people type in phone and card numbers.
_NUMBER = re.compile(r"(?<![\w.,])\+?\(?\d(?:[\d \t().\-/]*\d)?\)?(?![\w])")
_YEAR = r"(?:1[89]|20)\d\d"
_NOT_PERSONAL = re.compile(
    rf"{_YEAR}\s*[-/–]\s*(?:{_YEAR}|\d\d)"  # 2019-2021, 2019/20
    rf"|{_YEAR}[-/.]\d{{1,2}}[-/.]\d{{1,2}}"  # 2024-01-15
    rf"|\d{{1,2}}[-/.]\d{{1,2}}[-/.](?:{_YEAR}|\d\d)"  # 15/01/2024
    r"|\d+(?:\.\d+){1,3}"  # versions and decimals: 1.2.3, 10.0.19045
)


_MAYBE_PERSONAL = re.compile(r"[@\d]|\bat\b|\(at\)|\[at\]", re.IGNORECASE)


def redact(text: str) -> str:
    """The text with e-mail addresses, phone numbers and card-like numbers replaced."""
    if not _MAYBE_PERSONAL.search(text):  # most questions: no digit, no "@", no "at"
        return text
    text = _EMAIL.sub(EMAIL_MARK, text)
    return _NUMBER.sub(_number_mark, text)


def _number_mark(match: re.Match[str]) -> str:
    found = match.group(0)
    digits = sum(c.isdigit() for c in found)
    if 13 <= digits <= 19:
        return CARD_MARK
    if digits < 7 or digits > 15 or _NOT_PERSONAL.fullmatch(found.strip("()")):
        return found
    separated = found.startswith("+") or any(not c.isdigit() for c in found)
    # A bare run of 7 or 8 digits is more often an amount than a phone number.
    return PHONE_MARK if separated or digits >= 9 else found


MEMO = 100_000  # addresses whose hash is kept for the rest of the day


def _utc_day() -> int:
    return int(time.time() // 86400)


class VisitorHasher:
    """`hash(address)`: 16 hex digits, stable for one UTC day, unlinkable across days."""

    def __init__(self, today: Callable[[], object] = _utc_day) -> None:
        self._today = today
        self._day: object = None
        self._salt = b""
        self._seen: dict[str, str] = {}  # today's hashes, dropped with the salt
        self._lock = threading.Lock()

    def hash(self, address: str) -> str:
        day = self._today()
        if day != self._day:
            with self._lock:
                if day != self._day:  # a new day: forget yesterday's salt (and hashes) for good
                    self._salt, self._seen, self._day = secrets.token_bytes(32), {}, day
        known = self._seen.get(address)
        if known is None:
            digest = hashlib.blake2b(address.encode("utf-8"), key=self._salt, digest_size=8)
            known = digest.hexdigest()
            if len(self._seen) < MEMO:
                self._seen[address] = known
        return known
