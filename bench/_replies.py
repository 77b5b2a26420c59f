"""Model-written replies with labelled sentences (the format of
../shared/data/verification/README.md): reading them, splitting them into dev and test halves by
question, replaying each through the production reply path, and scoring what a visitor saw.

A record holds the reply as the model returned it: `"answer"` and `"citations"` (the older,
unquoted contract) or `"reply"` (the quoted one, docs/answer.md), with the same labels; a
quoted record's sentence labels may add `"quote_slip"` (what a faithful writer changed in
copying a quote), and its error kinds add i, a fabricated quote."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.embed import Embedder
from sitecite.eval.questions import missing_groups
from sitecite.generate.reply import ReplyContext, Shown, present
from sitecite.index.build import site_words
from sitecite.injection import quarantine_section
from sitecite.screen import answer_kind
from sitecite.tokens import names
from sitecite.types import Section
from sitecite.verify import Lexicon, Verifier, build_evidence

QUESTIONS = Path(__file__).resolve().parent / "questions"  # question sets split into halves
SITES = Path(__file__).resolve().parents[2] / "shared" / "data" / "sites"  # and the shared ones
EXAMPLE_QUESTIONS = Path(__file__).resolve().parents[1] / "examples" / "questions.json"
FIELDS = ("id", "kind", "question", "sources", "sentences")
KINDS = "abcdefghi"
_MARKER = re.compile(r"\s*\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]")


@dataclass(frozen=True)
class Record:
    """One labelled answer: its question, sources, the reply and each sentence's label, and
    the key facts a right answer to its question states (when its question set gives them)."""

    data: dict[str, Any]
    file: str
    split: str
    keys: tuple[tuple[str, ...], ...] = ()

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def quoted(self) -> bool:
        return "reply" in self.data

    @property
    def raw(self) -> str:
        """The reply exactly as the model returned it."""
        if self.quoted:
            reply = self.data["reply"]
            return reply if isinstance(reply, str) else json.dumps(reply)
        return json.dumps({"answer": self.data["answer"], "citations": self.data["citations"]})

    @property
    def written(self) -> str:
        """The reply's text as the model wrote it."""
        if not self.quoted:
            return str(self.data["answer"])
        return " ".join(str(s.get("text", "")) for s in self.data["sentences"])

    @property
    def question_id(self) -> str:
        return str(self.data["id"]).rsplit("-", 1)[0]


def split_of(question: str) -> str:
    """dev or test, from a hash of the question: both answers to one question share a half."""
    digest = hashlib.sha256(" ".join(question.lower().split()).encode()).hexdigest()
    return "dev" if int(digest[:8], 16) % 2 == 0 else "test"


def question_sets(site: str) -> dict[str, Path]:
    """The site's question set halves: bench/questions/<site>-dev.json and -test.json, or the
    shared site's questions-dev.json and questions-test.json."""
    found = {}
    for half in ("dev", "test"):
        for path in (QUESTIONS / f"{site}-{half}.json", SITES / site / f"questions-{half}.json"):
            if site and path.exists():
                found[half] = path
                break
    return found


def question_halves(site: str) -> dict[str, str]:
    """Question id -> half, from the site's question set when it is split (bench/replies/
    README.md); empty otherwise."""
    halves = {}
    for half, path in question_sets(site).items():
        halves.update({str(q["id"]): half for q in json.loads(path.read_text())["questions"]})
    return halves


def key_facts(site: str) -> dict[str, list[list[str]]]:
    """Question id -> its key facts (`must_contain` groups of alternatives), from the site's
    question set and the shared site's answer-keys.json."""
    keys: dict[str, list[list[str]]] = {}
    for path in question_sets(site).values():
        for question in json.loads(path.read_text())["questions"]:
            groups = question.get("must_contain") or []
            if groups:
                keys[str(question["id"])] = [g if isinstance(g, list) else [g] for g in groups]
    answers = SITES / site / "answer-keys.json"
    if site and answers.exists():
        for question_id, groups in json.loads(answers.read_text()).items():
            keys.setdefault(str(question_id), [g if isinstance(g, list) else [g] for g in groups])
    if site == "example":  # the example site's records are known by their question's words
        for question in json.loads(EXAMPLE_QUESTIONS.read_text())["questions"]:
            groups = question.get("must_contain") or []
            if groups:
                keys[_words(question["question"])] = [
                    g if isinstance(g, list) else [g] for g in groups
                ]
    return keys


def _words(question: str) -> str:
    return " ".join(question.lower().split())


def half_of(data: dict[str, Any], halves: dict[str, str]) -> str:
    """A record's half: its question set's, else the hash of its question."""
    question_id = str(data["id"]).rsplit("-", 1)[0]
    return halves.get(question_id) or split_of(str(data["question"]))


def _shape(data: Any) -> list[str]:
    """What a record lacks: the common fields, and a reply of one contract or the other."""
    if not isinstance(data, dict):
        return ["(a JSON object)"]
    missing = [f for f in FIELDS if f not in data]
    if "reply" not in data:
        missing += [f for f in ("answer", "citations") if f not in data]
        if len(missing) == 2 and missing == ["answer", "citations"]:
            missing = ["reply (or answer and citations)"]
    return missing


def load(path: Path) -> list[Record]:
    """The records of one JSONL file; a bad line is an error naming the file, line and field."""
    records = []
    halves: dict[str, dict[str, str]] = {}
    keys: dict[str, dict[str, list[list[str]]]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise SystemExit(f"{path}:{number}: not JSON ({exc})") from exc
        missing = _shape(data)
        if missing:
            raise SystemExit(f"{path}:{number}: missing field(s) {', '.join(missing)}")
        site = str(data.get("site", ""))
        if site not in halves:
            halves[site] = question_halves(site) if site else {}
            keys[site] = key_facts(site)
        groups = keys[site].get(str(data["id"]).rsplit("-", 1)[0]) or keys[site].get(
            _words(str(data["question"])), []
        )
        record = Record(data, path.name, half_of(data, halves[site]), _groups(groups))
        records.append(record)
    return records


def _groups(groups: list[list[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(str(v) for v in g) for g in groups)


def sections_of(record: Record) -> list[Section]:
    """The record's sources as the sections of a context, one sentence per line; a section is
    known by what it holds, as in an index (the same section answers many questions)."""
    return [
        Section(
            _digest(s),
            _digest(s),
            str(s.get("title", "")),
            str(s.get("heading", "")),
            "",
            str(s["text"]),
            "",
            tuple(line.strip() for line in str(s["text"]).splitlines() if line.strip()),
        )
        for s in record.data["sources"]
    ]


def _digest(source: dict[str, Any]) -> str:
    text = "\n".join(str(source.get(k, "")) for k in ("title", "heading", "text"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def subject_of(records: Iterable[Record]) -> str:
    """The site owner's name, as an index would know it: from a profile source's title ("Noor
    Haddad (profile)"); for a site without a profile, the name most of its visitors' questions
    use ("How much has Jake made...?"), when at least a fifth of them do; else ""."""
    records = list(records)
    titles = Counter(
        str(s.get("title", "")).removesuffix(" (profile)")
        for r in records
        for s in r.data["sources"]
        if str(s.get("title", "")).endswith(" (profile)")
    )
    if titles:
        return titles.most_common(1)[0][0]
    questions = {str(r.data["question"]) for r in records}
    asked = Counter(n for q in questions for n in {t.lower for t in names(q)})
    if asked:
        name, count = asked.most_common(1)[0]
        if count >= max(3, len(questions) / 5):
            return name
    return ""


def lexicon_for(records: list[Record], embedder: Embedder) -> Lexicon:
    """The vocabulary vectors an index of these sources would hold (set-up, not timed)."""
    vocabulary = site_words([s for r in records for s in sections_of(r)])
    vectors = embedder.embed(vocabulary) if vocabulary else np.zeros((0, embedder.dim))
    return Lexicon({w: i for i, w in enumerate(vocabulary)}, vectors)


@dataclass
class Replayed:
    """One record after the production path: what was shown, and what it cost."""

    record: Record
    shown: Shown
    prepare_ms: float
    verify_ms: float
    verify_cpu_ms: float  # this thread's CPU time: the cost without waiting for a busy machine


def replay(
    record: Record, lexicon: Lexicon, subject: frozenset[str], verifier: Verifier, policy: str
) -> Replayed:
    """The record's reply through `present`, as the LLM generator calls it in production."""
    started = time.perf_counter()
    sections = [quarantine_section(s)[0] for s in sections_of(record)]
    question = str(record.data["question"])
    evidence = build_evidence(sections, lexicon, subject, question)
    context = ReplyContext(question, sections, evidence, answer_kind(question))
    prepared, cpu = time.perf_counter(), time.thread_time()
    shown = present(record.raw, context, verifier, policy)
    done, cpu_done = time.perf_counter(), time.thread_time()
    return Replayed(
        record,
        shown,
        (prepared - started) * 1000,
        (done - prepared) * 1000,
        (cpu_done - cpu) * 1000,
    )


def plain(text: str) -> str:
    """A sentence for matching: markers removed, whitespace normalised."""
    return " ".join(_MARKER.sub("", text).split())


@dataclass
class Score:
    """The README's scoring over a set of replayed records."""

    supported: int = 0
    dropped: int = 0
    faithful_supported: int = 0
    faithful_dropped: int = 0
    unsupported: int = 0
    caught: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    caught_by_kind: Counter[str] = field(default_factory=Counter)
    faithful_answers: int = 0
    degraded: int = 0
    refused_faithful: int = 0
    replaced: int = 0
    declines: int = 0  # faithful replies that only say the sources do not cover the question
    declines_refused: int = 0
    slipped: int = 0  # supported sentences whose quote the writer copied with a slip
    slipped_dropped: int = 0
    facts_held: int = 0  # faithful answers stating every key fact as written...
    facts_kept: int = 0  # ...and still after verification
    quoted: int = 0  # answers in the quoted contract
    drops: list[tuple[str, str, str]] = field(default_factory=list)
    misses: list[tuple[str, str, str]] = field(default_factory=list)

    def add(self, replayed: Replayed) -> None:
        data, shown = replayed.record.data, replayed.shown
        visible = plain(shown.text)
        problems = _problems(replayed)
        lost = False
        for sentence in data["sentences"]:
            key = plain(sentence["text"])
            reached = bool(key) and key in visible
            if sentence.get("meta"):
                continue
            if sentence["supported"]:
                self.supported += 1
                self.faithful_supported += data["kind"] == "faithful"
                slipped = bool(sentence.get("quote_slip"))
                self.slipped += slipped
                self.slipped_dropped += slipped and not reached
                if not reached:
                    lost = True
                    self.dropped += 1
                    self.faithful_dropped += data["kind"] == "faithful"
                    self.drops.append((replayed.record.id, key, problems.get(key, shown.reason)))
            else:
                kind = str(sentence.get("error") or "?")
                self.unsupported += 1
                self.by_kind[kind] += 1
                if reached:
                    self.misses.append((replayed.record.id, key, kind))
                else:
                    self.caught += 1
                    self.caught_by_kind[kind] += 1
        claims = [s for s in data["sentences"] if not s.get("meta")]
        if data["kind"] == "faithful" and not claims:
            # the model said the site does not cover it: refusing is what it meant
            self.declines += 1
            self.declines_refused += shown.refused
        elif data["kind"] == "faithful":
            self.faithful_answers += 1
            self.degraded += lost or shown.refused
            self.refused_faithful += shown.refused
            keys = replayed.record.keys
            if keys and not missing_groups(keys, replayed.record.written):
                self.facts_held += 1
                self.facts_kept += not shown.refused and not missing_groups(keys, shown.text)
        self.quoted += replayed.record.quoted
        own = plain(replayed.record.written)
        if data["kind"] == "faithful" and not shown.refused:
            self.replaced += any(p not in own for p in _shown_sentences(shown.text))

    def summary(self) -> dict[str, Any]:
        def rate(part: int, whole: int) -> float:
            return round(part / whole, 4) if whole else 0.0

        return {
            "supported_sentences": self.supported,
            "supported_dropped": self.dropped,
            "drop_rate": rate(self.dropped, self.supported),
            "faithful_answer_sentences": self.faithful_supported,
            "faithful_answer_sentences_dropped": self.faithful_dropped,
            "unsupported_sentences": self.unsupported,
            "unsupported_caught": self.caught,
            "catch_rate": rate(self.caught, self.unsupported),
            "caught_by_kind": {
                k: [self.caught_by_kind[k], self.by_kind[k]] for k in sorted(self.by_kind)
            },
            "faithful_answers": self.faithful_answers,
            "faithful_answers_degraded": self.degraded,
            "faithful_answers_refused": self.refused_faithful,
            "faithful_answers_replaced_by_other_text": self.replaced,
            "faithful_declines": self.declines,
            "faithful_declines_refused": self.declines_refused,
            "slipped_quotes": self.slipped,
            "slipped_quotes_dropped": self.slipped_dropped,
            "faithful_answers_holding_key_facts": self.facts_held,
            "faithful_answers_keeping_key_facts": self.facts_kept,
            "keep_rate": rate(self.facts_kept, self.facts_held),
            "quoted_answers": self.quoted,
        }


def _problems(replayed: Replayed) -> dict[str, str]:
    """Why each dropped sentence went, by its plain text."""
    verification = replayed.shown.verification
    if verification is None:
        return {}
    return {
        plain(v.text): "; ".join(f"{k}: {p}" for k, p in v.problems.items())
        for v in verification.sentences
        if v.problems
    }


def _shown_sentences(text: str) -> list[str]:
    from sitecite.verify import draft_sentences

    return [plain(s.text) for s in draft_sentences(text)]
