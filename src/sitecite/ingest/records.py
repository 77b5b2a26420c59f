"""A record (a talk, a degree, a course, a position: a mapping of fields in front matter or in a
data file a listing shows) as one sentence: "Lead — key: value; key: value."

Only what reads as text is kept: addresses, icons, images and other markup fields go, HTML and
Markdown links keep their text, and a nested record (a talk's links, a course's semesters)
keeps its names ("links: Slides, Video").
"""

from __future__ import annotations

import re
from typing import Any

from sitecite.ingest.data import humanise
from sitecite.ingest.jsx import MARKUP_PROPS

RECORD_LEADS = (
    "title",
    "name",
    "school",
    "employer",
    "company",
    "organization",
    "event",
    "degree",
    "role",
    "position",
    "authority",
)
# Fields of a record that point at things rather than say anything.
POINTERS = MARKUP_PROPS | {"image", "logo", "thumbnail", "photo", "avatar", "local", "pdf"}
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"<[^<>]+>")
_ADDRESS = ("/", "http", "./", "../", "#", "mailto:")


def plain(text: str) -> str:
    """A field's value as text: Markdown links and HTML tags keep only their text."""
    if "<" in text:
        from html import unescape

        text = unescape(_TAG.sub("", text))
    return " ".join(_LINK.sub(lambda m: m.group(1), text).split())


def field_text(value: Any) -> str:
    """The text of a field's value ("" for an address or a record of addresses)."""
    if isinstance(value, dict):
        lead = next((value[k] for k in RECORD_LEADS if isinstance(value.get(k), str)), None)
        if lead is not None:
            return field_text(lead)
        parts = [field_text(v) for k, v in value.items() if str(k).lower() not in POINTERS]
        return ", ".join(p for p in parts if p)
    if isinstance(value, list):
        parts = [field_text(v) for v in value if v not in (None, "")]
        parts = [p for p in parts if p]
        return ("; " if any("," in p for p in parts) else ", ").join(parts)
    if isinstance(value, bool) or value is None:
        return ""
    text = plain(str(value))
    return "" if text.startswith(_ADDRESS) and " " not in text else text


def record_sentence(item: Any) -> str:
    """One record as a sentence (prose values only); "" when it holds no text."""
    if not isinstance(item, dict):
        return ""
    fields = {
        str(k): text
        for k, v in item.items()
        if str(k).lower() not in POINTERS and (text := field_text(v))
    }
    if not fields or not any(" " in v or v[:1].isupper() for v in fields.values()):
        return ""
    lead_key = next((k for k in RECORD_LEADS if fields.get(k)), next(iter(fields)))
    lead = fields.pop(lead_key)
    rest = "; ".join(f"{humanise(k)}: {v}" for k, v in fields.items())
    sentence = f"{lead} — {rest}" if rest else lead
    return sentence if sentence.endswith((".", "!", "?")) else sentence + "."
