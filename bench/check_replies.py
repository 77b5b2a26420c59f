"""Check a writer's replies to sitecite's recorded prompts before they are used (WRITER-BRIEF.md).

    python bench/check_replies.py REPLIES.jsonl [MORE.jsonl ...] [--prompts PROMPTS.jsonl ...]

Errors (exit status 1), each naming the file, line and field:
- a line that is not a JSON object of the record format, or lacks a field;
- a reply that is not {"sentences": [{"text", "cites": [{"source", "quote"}]}], "not_on_site"},
  a source number outside the prompt's sources, a quote under 3 or over 25 words;
- labels that do not follow the reply's sentences one for one (same text, same order);
- a faithful reply with an unsupported sentence; a sloppy reply without exactly one, or whose
  one lacks an error kind a-i and a reason;
- a meta sentence that cites, a claim that cites nothing or cites without a quote;
- a quote without a slip that is not, word for word, in its cited source (whitespace aside);
  an unsupported sentence of kinds a-h whose quote is not word for word in some source; a
  kind i (fabricated) quote that is word for word in one;
- with --prompts: a record whose question, site or sources differ from its prompt's, a prompt
  without a faithful reply, a faithful answer without a sloppy one, a repeated id;
- error kinds not spread evenly over the sloppy replies checked together (each kind within
  two of its even share, and every kind used once there are nine sloppy replies).

Warnings: the share of faithful quotes with a slip outside 10-30%; a slipped quote whose words
are not in its source even loosely (it may be more than a slip); an answer of more than four
sentences. Standard library only: the checker never runs sitecite.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

KINDS = "abcdefghi"
SLIPS = (
    "case",
    "punctuation",
    "quote marks",
    "dash",
    "small word added",
    "small word dropped",
    "ellipsis",
    "list joined differently",
)
FIELDS = ("id", "site", "kind", "question", "sources", "reply", "sentences")
LABEL_FIELDS = {"text": str, "supported": bool, "meta": bool}
ELLIPSIS = re.compile(r"\.\.\.|…")


class Report:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def error(self, where: str, message: str) -> None:
        self.errors.append(f"{where}: {message}")

    def warn(self, where: str, message: str) -> None:
        self.warnings.append(f"{where}: {message}")


def squash(text: str) -> str:
    return " ".join(text.split())


def verbatim(quote: str, source: dict[str, Any]) -> bool:
    """The quote word for word in the source's text (line breaks and runs of spaces aside)."""
    return bool(squash(quote)) and squash(quote) in squash(str(source.get("text", "")))


def loosely(quote: str, source: dict[str, Any]) -> bool:
    """The quote's longer words in the source, in order, case and punctuation aside."""
    words = re.findall(r"\w+", source.get("text", "").lower())
    at = 0
    for word in re.findall(r"\w+", quote.lower()):
        if len(word) < 4:
            continue
        try:
            at = words.index(word, at) + 1
        except ValueError:
            return False
    return True


def load(path: Path, report: Report) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except ValueError as exc:
            report.error(where, f"not JSON ({exc})")
            continue
        if not isinstance(data, dict):
            report.error(where, "not a JSON object")
            continue
        out.append((where, data))
    return out


def check_record(where: str, data: dict[str, Any], report: Report) -> str | None:
    """Check one record; returns the error kind of a sloppy reply's unsupported sentence."""
    missing = [f for f in FIELDS if f not in data]
    if missing:
        report.error(where, f"missing field(s) {', '.join(missing)}")
        return None
    kind = data["kind"]
    if kind not in ("faithful", "sloppy"):
        report.error(where, f"kind is {kind!r}, not 'faithful' or 'sloppy'")
        return None
    if not str(data["id"]).endswith(f"-{kind}"):
        report.error(where, f"id {data['id']!r} should end with '-{kind}'")
    sources = data["sources"]
    if not isinstance(sources, list) or not all(isinstance(s, dict) for s in sources):
        report.error(where, "sources is not a list of objects")
        return None
    by_n = {s.get("n"): s for s in sources}
    reply = data["reply"]
    sentences = _reply_sentences(where, reply, len(sources), report)
    labels = data["sentences"]
    if sentences is None or not isinstance(labels, list):
        if not isinstance(labels, list):
            report.error(where, "sentences (the labels) is not a list")
        return None
    if [s.get("text") for s in sentences] != [
        label.get("text") if isinstance(label, dict) else None for label in labels
    ]:
        report.error(where, "labels do not follow the reply's sentences one for one (text, order)")
        return None
    if reply.get("not_on_site") and sentences:
        report.error(where, "not_on_site is true but the reply has sentences")
    if len(sentences) > 4:
        report.warn(where, f"{len(sentences)} sentences (asked: one to four)")
    unsupported = []
    for index, (sentence, label) in enumerate(zip(sentences, labels, strict=True), start=1):
        place = f"{where} sentence {index}"
        if not _label_ok(place, label, report):
            continue
        if not label["supported"]:
            unsupported.append((place, sentence, label))
        _check_quotes(place, sentence, label, by_n, sources, report)
    if kind == "faithful" and unsupported:
        report.error(where, "a faithful reply has an unsupported sentence")
        return None
    if kind == "sloppy":
        if len(unsupported) != 1:
            report.error(
                where,
                f"a sloppy reply needs exactly one unsupported sentence, not {len(unsupported)}",
            )
            return None
        return str(unsupported[0][2]["error"])
    return None


def _reply_sentences(
    where: str, reply: Any, count: int, report: Report
) -> list[dict[str, Any]] | None:
    if not isinstance(reply, dict) or set(reply) != {"sentences", "not_on_site"}:
        report.error(where, 'reply is not {"sentences": [...], "not_on_site": ...}')
        return None
    if not isinstance(reply["not_on_site"], bool) or not isinstance(reply["sentences"], list):
        report.error(where, "reply: not_on_site must be true or false, sentences a list")
        return None
    for index, sentence in enumerate(reply["sentences"], start=1):
        place = f"{where} reply sentence {index}"
        if not isinstance(sentence, dict) or set(sentence) != {"text", "cites"}:
            report.error(place, 'not {"text": ..., "cites": [...]}')
            return None
        if not isinstance(sentence["text"], str) or not sentence["text"].strip():
            report.error(place, "text is empty")
            return None
        if re.search(r"\[\d+\]", sentence["text"]):
            report.error(place, "text carries [n] markers (the cites say where it comes from)")
        if not isinstance(sentence["cites"], list):
            report.error(place, "cites is not a list")
            return None
        for cite in sentence["cites"]:
            if not isinstance(cite, dict) or set(cite) != {"source", "quote"}:
                report.error(place, 'a cite is not {"source": n, "quote": "..."}')
                return None
            if not isinstance(cite["source"], int) or not 1 <= cite["source"] <= count:
                report.error(place, f"source {cite['source']!r} is not 1..{count}")
                return None
            if not isinstance(cite["quote"], str):
                report.error(place, "a quote is not text")
                return None
            words = len(ELLIPSIS.sub(" ", cite["quote"]).split())
            if not 3 <= words <= 25:
                report.error(place, f"a quote of {words} words (3 to 25): {cite['quote']!r}")
    return reply["sentences"]


def _label_ok(place: str, label: Any, report: Report) -> bool:
    if not isinstance(label, dict):
        report.error(place, "the label is not an object")
        return False
    for name, kind in LABEL_FIELDS.items():
        if not isinstance(label.get(name), kind):
            report.error(place, f"label field {name!r} is not a {kind.__name__}")
            return False
    if not isinstance(label.get("why"), str | None):
        report.error(place, "label field 'why' is not text (or null)")
        return False
    error, slip = label.get("error"), label.get("quote_slip")
    if "error" not in label or "quote_slip" not in label:
        report.error(place, "the label needs 'error' and 'quote_slip' (null when none)")
        return False
    if label["supported"] and error is not None:
        report.error(place, "a supported sentence has an error kind")
    if not label["supported"]:
        if error not in tuple(KINDS):
            report.error(place, f"an unsupported sentence's error {error!r} is not one of a-i")
            return False
        if not (label.get("why") or "").strip():
            report.error(place, "an unsupported sentence needs its 'why'")
        if slip is not None:
            report.error(
                place, "an unsupported sentence has no quote_slip (its quote is the error)"
            )
    if label["meta"] and not label["supported"]:
        report.error(place, "a meta sentence is supported")
    if slip is not None and slip not in SLIPS:
        report.error(place, f"quote_slip {slip!r} is not one of {', '.join(SLIPS)}")
    return True


def _check_quotes(
    place: str,
    sentence: dict[str, Any],
    label: dict[str, Any],
    by_n: dict[Any, dict[str, Any]],
    sources: list[dict[str, Any]],
    report: Report,
) -> None:
    cites = sentence["cites"]
    if label["meta"]:
        if cites:
            report.error(place, "a meta sentence (what the sources don't cover) has cites")
        return
    if not cites:
        report.error(place, "a claim without cites")
        return
    if any(not c["quote"].strip() for c in cites):
        report.error(place, "a cite without a quote")
        return
    if not label["supported"]:
        kind = label["error"]
        anywhere = [any(verbatim(c["quote"], s) for s in sources) for c in cites]
        if kind == "i" and all(anywhere):
            report.error(place, "kind i (fabricated quote) but every quote is in a source")
        elif kind == "e" and not all(anywhere):
            report.error(place, "kind e: the quote must be copied from a real source")
        elif kind not in ("e", "i"):
            for cite in cites:
                if not verbatim(cite["quote"], by_n[cite["source"]]):
                    report.error(
                        place,
                        f"kind {kind}: quote not word for word in source {cite['source']}: "
                        f"{cite['quote']!r}",
                    )
        return
    exact = [verbatim(c["quote"], by_n[c["source"]]) for c in cites]
    if label["quote_slip"] is None:
        for cite, ok in zip(cites, exact, strict=True):
            if not ok:
                report.error(
                    place,
                    f"quote not word for word in source {cite['source']} (label a slip, or "
                    f"copy it): {cite['quote']!r}",
                )
        return
    slipped = [c for c, ok in zip(cites, exact, strict=True) if not ok]
    if len(slipped) != 1:
        report.error(
            place,
            f"quote_slip {label['quote_slip']!r} needs exactly one quote that differs from its "
            f"source, not {len(slipped)}",
        )
        return
    if not loosely(slipped[0]["quote"], by_n[slipped[0]["source"]]):
        report.warn(place, f"slipped quote's words are not in its source: {slipped[0]['quote']!r}")


def check_prompts(
    records: list[tuple[str, dict[str, Any]]], prompts: dict[str, dict[str, Any]], report: Report
) -> None:
    seen: Counter[str] = Counter(str(d.get("id")) for _, d in records)
    for record_id, count in seen.items():
        if count > 1:
            report.error(record_id, f"id used {count} times")
    faithful: dict[str, dict[str, Any]] = {}
    sloppy: set[str] = set()
    for where, data in records:
        question_id = str(data.get("id", "")).rsplit("-", 1)[0]
        prompt = prompts.get(question_id)
        if prompt is None:
            report.error(where, f"no prompt has id {question_id!r}")
            continue
        for name in ("site", "question", "sources"):
            if data.get(name) != prompt.get(name):
                report.error(where, f"{name} differs from prompt {question_id}'s")
        if data.get("kind") == "faithful":
            faithful[question_id] = data
        elif data.get("kind") == "sloppy":
            sloppy.add(question_id)
    for question_id in prompts:
        data = faithful.get(question_id)
        if data is None:
            report.error(question_id, "the prompt has no faithful reply")
        elif data.get("reply", {}).get("sentences") and question_id not in sloppy:
            report.error(question_id, "a faithful answer without its sloppy reply")


def check_spread(kinds: Counter[str], report: Report) -> None:
    total = sum(kinds.values())
    if not total:
        return
    share = total / len(KINDS)
    for kind in KINDS:
        count = kinds.get(kind, 0)
        if abs(count - share) > 2 or (total >= len(KINDS) and not count):
            report.error(
                "kinds",
                f"kind {kind} used {count} times of {total} sloppy replies (even: {share:.1f})",
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("replies", nargs="+", type=Path)
    parser.add_argument("--prompts", nargs="*", type=Path, default=[])
    args = parser.parse_args(argv)
    report = Report()
    records = [r for path in args.replies for r in load(path, report)]
    kinds: Counter[str] = Counter()
    for where, data in records:
        kind = check_record(where, data, report)
        if kind:
            kinds[kind] += 1
    check_spread(kinds, report)
    if args.prompts:
        prompts = {str(d["id"]): d for path in args.prompts for _, d in load(path, report)}
        check_prompts(records, prompts, report)
    faithful_quotes = [
        (label.get("quote_slip") is not None)
        for _, data in records
        if data.get("kind") == "faithful" and isinstance(data.get("sentences"), list)
        for label in data["sentences"]
        if isinstance(label, dict) and not label.get("meta")
    ]
    quotes = sum(
        len(s.get("cites", []))
        for _, data in records
        if data.get("kind") == "faithful" and isinstance(data.get("reply"), dict)
        for s in data["reply"].get("sentences", [])
        if isinstance(s, dict)
    )
    slips = sum(faithful_quotes)
    if quotes and not 0.10 <= slips / quotes <= 0.30:
        report.warn("slips", f"{slips} of {quotes} faithful quotes slipped (aim: about 1 in 5)")
    for warning in report.warnings:
        print(f"warning: {warning}")
    for error in report.errors:
        print(f"error: {error}")
    counts = Counter(str(d.get("kind")) for _, d in records)
    print(
        f"{len(records)} records ({counts['faithful']} faithful, {counts['sloppy']} sloppy); "
        f"slipped quotes {slips}/{quotes}; kinds "
        + " ".join(f"{k} {kinds.get(k, 0)}" for k in KINDS)
        + f"; {len(report.errors)} error(s), {len(report.warnings)} warning(s)"
    )
    return 1 if report.errors else 0


if __name__ == "__main__":
    sys.exit(main())
