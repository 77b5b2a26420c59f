"""A provider's raw reply read into a `ModelReply`, whatever shape it came in.

Two contracts are read. The quoted reply the prompt asks for (sitecite.generate.prompts):

    {"sentences": [{"text": "...", "cites": [{"source": 2, "quote": "words of source 2"}]}],
     "not_on_site": false}

and the older `{"answer": "... [n]", "citations": [n]}`, still accepted and verified as before
(marked unquoted). Real models wrap JSON in code fences, add a comment or a note after it,
leave trailing commas or an unescaped quote inside a string, stop mid-object, or give a string
where a list belongs; the well-kept `json_repair` reads what `json.loads` cannot, and every
liberty taken is listed in `ModelReply.unread` for the Trace. None means the reply holds no
answer (the generator then asks once more, or moves on).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import json_repair

from sitecite.verify import NOT_ON_SITE, Cite, QuotedSentence
from sitecite.verify.draft import with_markers

# A reply with more brackets than any answer needs is not repaired (json_repair slows down on
# deep nesting and gives up past its own limit).
MAX_BRACKETS = 400
_CITED = re.compile(r"\[\s*(\d{1,6})\s*\]")
_MARKERS = re.compile(r"\s*\[\s*\d{1,6}(?:\s*[,;]\s*\d{1,6})*\s*\]")
_NUMBER = re.compile(r"\d+")
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


@dataclass(frozen=True)
class ModelReply:
    """The parsed reply. `answer` is its text with `[n]` markers (for a quoted reply, its
    sentences joined, each with its sources' markers); `sentences` is None for the older,
    unquoted reply; `unread` says what could not be read as asked (for the Trace)."""

    answer: str
    citations: tuple[int, ...]
    repaired: bool = False
    sentences: tuple[QuotedSentence, ...] | None = None
    declined: bool = False  # "not_on_site": true
    unread: tuple[str, ...] = ()

    @property
    def quoted(self) -> bool:
        return self.sentences is not None

    @property
    def not_on_site(self) -> bool:
        if self.sentences is not None:
            return not self.sentences or (
                self.declined and not any(s.cites for s in self.sentences)
            )
        return not self.answer.replace(NOT_ON_SITE, "").strip(" .\n\"'")


def parse_reply(raw: object) -> ModelReply | None:
    """The reply as asked for, or read from whatever came back; None if it holds no answer.

    JSON first; then the text repaired (fences, prose or a comment around the object, trailing
    commas, curly or unescaped quotes, a cut-off end); then, for text with `[n]` markers, the
    text itself as an unquoted answer.
    """
    text = raw.strip() if isinstance(raw, str) else ""
    if text.strip("\"'. ") == NOT_ON_SITE:
        return ModelReply(NOT_ON_SITE, (), repaired=text != NOT_ON_SITE)
    data, notes = _load(text), list[str]()
    if data is _INVALID:
        data, notes = _repaired(text)
    reply = _reply_of(data, bool(notes)) if data is not _INVALID else None
    if reply is None:
        markers = tuple(dict.fromkeys(int(n) for n in _CITED.findall(text)))
        if markers and not text.lstrip().startswith(("{", "[")):
            return ModelReply(text, markers, True, unread=("the reply is prose, not JSON",))
        return None
    unread = tuple(dict.fromkeys([*notes, *reply.unread]))
    return ModelReply(
        reply.answer, reply.citations, reply.repaired, reply.sentences, reply.declined, unread
    )


_INVALID = object()


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _INVALID


def _repaired(text: str) -> tuple[Any, list[str]]:
    """The JSON a model meant, and what had to be repaired to read it."""
    notes = []
    body = _FENCE.sub("", text)
    if body != text:
        notes.append("a code fence around the JSON")
    if '"' not in body:  # curly quotes for JSON's own
        body = body.replace("“", '"').replace("”", '"')
    starts = [i for i in (body.find("{"), body.find("[")) if i >= 0]
    if not starts or body.count("{") + body.count("[") > MAX_BRACKETS:
        return _INVALID, notes
    start = min(starts)  # an object, or a list around one
    try:
        value, end = json.JSONDecoder().raw_decode(body, start)
    except (ValueError, RecursionError):
        value, end = _INVALID, 0
    if value is not _INVALID:
        if body[:start].strip():
            notes.append("text before the JSON")
        if body[end:].strip():
            notes.append("text after the JSON")
        return value, notes
    try:
        value = json_repair.loads(body[start:])
    except (ValueError, RecursionError, TypeError):
        return _INVALID, notes
    notes.append("malformed JSON (repaired)")
    return value, notes


def _reply_of(data: Any, repaired: bool) -> ModelReply | None:
    """A reply of either contract from a parsed JSON value, or None."""
    if isinstance(data, list):
        data = next((item for item in data if isinstance(item, dict)), None)
    if isinstance(data, str):
        return ModelReply(data.strip(), (), True) if data.strip() else None
    if not isinstance(data, dict):
        return None
    fields = {str(k).strip().lower(): v for k, v in data.items()}
    if "sentences" in fields or "not_on_site" in fields:
        return _quoted(fields, repaired)
    answer = fields.get("answer")
    if isinstance(answer, list):
        answer = " ".join(str(a) for a in answer if isinstance(a, str | int | float)) or None
    elif isinstance(answer, int | float) and not isinstance(answer, bool):
        answer = str(answer)
    if not isinstance(answer, str):
        return None
    citations = tuple(dict.fromkeys(_numbers(fields.get("citations"))))
    return ModelReply(answer.strip(), citations, repaired)


def _quoted(fields: dict[str, Any], repaired: bool) -> ModelReply | None:
    """The quoted contract: each sentence with its cites, and what of it could not be read."""
    unread: list[str] = []
    declined = _truth(fields.get("not_on_site"))
    items = fields.get("sentences")
    if items is None:
        items = []
    elif isinstance(items, str | dict):
        unread.append(f"'sentences' is a {_kind(items)}, not a list")
        items = [items]
    elif not isinstance(items, list):
        unread.append(f"'sentences' is a {_kind(items)}, not a list")
        items = []
    sentences = []
    for number, item in enumerate(items, start=1):
        sentence = _sentence(item, number, unread)
        if sentence is not None:
            sentences.append(sentence)
    if declined and any(s.cites for s in sentences):
        unread.append("'not_on_site' is true but sentences cite sources; the sentences are read")
    if items and not sentences:
        return None  # nothing readable: asked again
    answer = " ".join(with_markers(s.text, [c.source for c in s.cites]) for s in sentences)
    cited = tuple(dict.fromkeys(c.source for s in sentences for c in s.cites if c.source))
    return ModelReply(answer, cited, repaired, tuple(sentences), declined, tuple(unread))


def _sentence(item: Any, number: int, unread: list[str]) -> QuotedSentence | None:
    where = f"sentence {number}"
    if isinstance(item, str):  # a bare sentence: its [n] markers are its (unquoted) cites
        text = item
        cites_value: Any = []
        unread.append(f"{where} is a string, not an object")
    elif isinstance(item, dict):
        fields = {str(k).strip().lower(): v for k, v in item.items()}
        given = fields.get("text", fields.get("sentence"))
        text = given if isinstance(given, str) else ""
        cites_value = fields.get("cites", fields.get("citations", []))
    else:
        unread.append(f"{where} is a {_kind(item)}, not an object")
        return None
    if not text.strip():
        unread.append(f"{where} has no text")
        return None
    cites = _cites(cites_value, where, unread)
    markers = [int(n) for n in _CITED.findall(text)]
    clean = " ".join(_MARKERS.sub("", text).split())
    if not cites and markers:
        cites = [Cite(n) for n in dict.fromkeys(markers)]
        unread.append(f"{where} cites by [n] markers only, without quotes")
    return QuotedSentence(clean, tuple(cites))


def _cites(value: Any, where: str, unread: list[str]) -> list[Cite]:
    """A sentence's cites from a list of objects, or whatever stands in for one: a single
    object, a bare quote, a list of numbers (cites without quotes)."""
    if value is None:
        return []
    if isinstance(value, dict | str | int) and not isinstance(value, bool):
        unread.append(f"{where}: 'cites' is a {_kind(value)}, not a list")
        value = [value]
    if not isinstance(value, list):
        unread.append(f"{where}: 'cites' is a {_kind(value)}, not a list")
        return []
    cites: list[Cite] = []
    for item in value:
        if isinstance(item, dict):
            fields = {str(k).strip().lower(): v for k, v in item.items()}
            source = _source(fields.get("source", fields.get("n")), where, unread)
            quotes = fields.get("quote", fields.get("quotes", ""))
            if isinstance(quotes, list):
                quotes = [q for q in quotes if isinstance(q, str) and q.strip()]
            elif isinstance(quotes, str):
                quotes = [quotes] if quotes.strip() else []
            else:
                unread.append(f"{where}: a quote is a {_kind(quotes)}, not text")
                quotes = []
            if not quotes and source is not None:
                unread.append(f"{where}: source {source} is cited without a quote")
            cites += [Cite(source, q.strip()) for q in quotes] or (
                [Cite(source)] if source is not None else []
            )
        elif isinstance(item, str) and not _NUMBER.fullmatch(item.strip(" []")):
            unread.append(f"{where}: a cite is a bare quote, without its source")
            cites.append(Cite(None, item.strip()))
        else:
            source = _source(item, where, unread)
            if source is not None:
                unread.append(f"{where}: source {source} is cited without a quote")
                cites.append(Cite(source))
    return cites


def _source(value: Any, where: str, unread: list[str]) -> int | None:
    numbers = _numbers(value)
    if len(numbers) == 1:
        return numbers[0]
    if value is not None:
        unread.append(f"{where}: source {json.dumps(value)[:20]} is not a source number")
    return None


def _numbers(value: Any) -> list[int]:
    """Cited numbers from a list, a number or a string ("[1], [3]"); anything else is none."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int | float):
        return [int(value)] if float(value).is_integer() and 0 < value < 10**6 else []
    if isinstance(value, str):
        return [int(n) for n in _NUMBER.findall(value) if len(n) < 7]
    if isinstance(value, list | tuple):
        return [n for item in value for n in _numbers(item) if not isinstance(item, list)]
    return []


def _truth(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1")
    return value is True


def _kind(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean"}.get(
        type(value), "number" if isinstance(value, int | float) else "null"
    )
