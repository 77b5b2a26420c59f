"""The question log: one SQLite file beside the index (`<index dir>.questions.sqlite`).

    outcomes  what an answer said, once for every serving of the same answer: the question
              (redacted), the standalone question a follow-up was resolved to, answered or
              refused and why, the best retrieval score, the cited ids, the generator, the
              tokens it cost and whether it came from the cache
    asks      one row per answer served: its id, when, which outcome, latency, an optional
              daily visitor hash, and the visitor's feedback
    vectors   question embeddings per embedder, so `sitecite gaps` embeds each question once
    meta      small state (when the last digest was sent)

Cached answers are most of the traffic and repeat one outcome, so a served answer costs one
narrow row: 16 hex digits of id stored as the table's integer key (one B-tree insert), the
time as a number, the outcome's key. It never holds an IP address or a user agent: the
columns for them do not exist. Old rows are deleted (`delete_before`) with SQLite's
secure_delete on, and the write-ahead log is truncated afterwards, so deleted questions do not
linger in the files either.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.errors import ConfigError, SiteciteError

LOG_SUFFIX = ".questions.sqlite"
RATINGS = ("up", "down")
REASONS = ("wrong", "not_what_i_asked", "outdated", "other")
ORPHAN_GRACE_SECONDS = 86400.0  # an outcome no answer uses is kept this long (writers memoise)

SCHEMA = """
CREATE TABLE IF NOT EXISTS outcomes (
    key INTEGER PRIMARY KEY, created REAL NOT NULL, question TEXT NOT NULL,
    resolved TEXT NOT NULL, outcome TEXT NOT NULL, reason TEXT NOT NULL, best_score REAL,
    cited TEXT NOT NULL, generator TEXT NOT NULL, prompt_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL, cache TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS asks (
    id INTEGER PRIMARY KEY, at REAL NOT NULL, outcome INTEGER NOT NULL,
    latency_ms REAL NOT NULL, visitor TEXT,
    rating TEXT, feedback_reason TEXT, feedback_text TEXT, feedback_at TEXT);
CREATE TABLE IF NOT EXISTS vectors (
    embedder TEXT NOT NULL, question TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (embedder, question));
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_OUTCOME_COLUMNS = (
    "created, question, resolved, outcome, reason, best_score, cited, generator, "
    "prompt_tokens, output_tokens, cache"
)
_ASK_COLUMNS = "id, at, outcome, latency_ms, visitor"


class QuestionLogError(SiteciteError):
    """The question log cannot be opened or read."""


@dataclass(frozen=True)
class Outcome:
    """What one answer said, as the log keeps it (shared by every serving of it)."""

    question: str  # redacted
    outcome: str  # "answered", "pointed" or "refused" (types.Outcome)
    reason: str = ""  # why it was refused
    best_score: float | None = None
    cited: tuple[str, ...] = ()
    generator: str = ""
    prompt_tokens: int = 0
    output_tokens: int = 0
    cache: str = ""
    resolved: str = ""  # the standalone question a follow-up was resolved to (redacted)

    def row(self, created: float | None = None) -> tuple[Any, ...]:
        return (
            time.time() if created is None else created,
            self.question,
            self.resolved,
            self.outcome,
            self.reason,
            self.best_score,
            json.dumps(list(self.cited)),
            self.generator,
            self.prompt_tokens,
            self.output_tokens,
            self.cache,
        )


@dataclass(frozen=True)
class AskRecord:
    """One served answer: its id, when, what it said, how long it took, who (hashed) asked."""

    id: str
    at: datetime
    question: str
    outcome: str  # "answered", "pointed" or "refused" (types.Outcome)
    reason: str = ""
    best_score: float | None = None
    cited: tuple[str, ...] = ()
    generator: str = ""
    latency_ms: float = 0.0
    prompt_tokens: int = 0
    output_tokens: int = 0
    cache: str = ""
    visitor: str | None = None
    resolved: str = ""

    def outcome_of(self) -> Outcome:
        return Outcome(
            self.question,
            self.outcome,
            self.reason,
            self.best_score,
            self.cited,
            self.generator,
            self.prompt_tokens,
            self.output_tokens,
            self.cache,
            self.resolved,
        )


@dataclass(frozen=True)
class Feedback:
    """A visitor's thumbs up or down on one answer, with an optional reason and text."""

    answer_id: str
    rating: str
    at: datetime
    reason: str = ""
    text: str = ""


@dataclass(frozen=True)
class LoggedAsk:
    """A row read back for the lab and `sitecite gaps`."""

    id: str
    at: str
    question: str
    resolved: str
    outcome: str
    reason: str
    best_score: float | None
    cited: tuple[str, ...]
    generator: str
    latency_ms: float
    cache: str
    visitor: str | None
    rating: str | None = None
    feedback_reason: str | None = None
    feedback_text: str | None = None
    tokens: dict[str, int] = field(default_factory=dict)

    @property
    def topic(self) -> str:
        """The question as it should be grouped: a follow-up by its standalone form."""
        return self.resolved or self.question


def answer_number(answer_id: str) -> int:
    """An answer's id (16 hex digits) as the integer key it is stored under."""
    return int(answer_id, 16)


def log_path(setting: str | None, index_dir: str | Path) -> Path | None:
    """Where `serve.log` says the log lives: None (the default) beside the index, "" nowhere."""
    if setting is None:
        index_dir = Path(index_dir).resolve()
        return index_dir.with_name(index_dir.name + LOG_SUFFIX)
    if not setting.strip():
        return None
    if not setting.startswith("sqlite:///") or len(setting) == len("sqlite:///"):
        raise ConfigError(
            f"bad setting 'serve.log': '{setting}' is not 'sqlite:///PATH' (or '' for no log)"
        )
    return Path(setting.removeprefix("sqlite:///")).expanduser()


class QuestionLog:
    """The log file. One instance per thread: the server's writer owns one, readers open their
    own (WAL mode lets them read while it writes)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA secure_delete=ON")
            self.db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise QuestionLogError(
                f"{self.path}: cannot open the question log ({error})"
            ) from error

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> QuestionLog:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def add(self, records: Sequence[AskRecord], feedback: Sequence[Feedback] = ()) -> None:
        """Write answers, then feedback (which may be for those answers)."""
        keys: dict[Outcome, int] = {}
        rows = []
        for record in sorted(records, key=lambda r: r.at):
            outcome = record.outcome_of()
            at = record.at.timestamp()
            if outcome not in keys:
                keys[outcome] = self.add_outcome(outcome, created=at)
            rows.append(
                (answer_number(record.id), at, keys[outcome], record.latency_ms, record.visitor)
            )
        self.add_asks(rows, feedback)

    def add_outcome(self, outcome: Outcome, created: float | None = None) -> int:
        """Store what an answer said (first served at `created`, now by default); its key,
        for the answers that served it."""
        cursor = self.db.execute(
            f"INSERT INTO outcomes ({_OUTCOME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            outcome.row(created),
        )
        return int(cursor.lastrowid or 0)

    def add_asks(self, rows: Sequence[tuple[Any, ...]], feedback: Sequence[Feedback] = ()) -> None:
        """Answers served, as (id number, time, outcome key, latency ms, visitor hash), then
        feedback, in one transaction.

        Rows go in as multi-row INSERTs of up to 256 rows: executemany releases and retakes
        the GIL for every row, and on a busy server that tug of war with the event loop cost
        a third of the cached-answer throughput (bench/load.py --log-cost)."""
        with self._transaction():
            start = 0
            for size in _chunk_sizes(len(rows)):
                chunk = rows[start : start + size]
                start += size
                self.db.execute(_insert_sql(size), [value for row in chunk for value in row])
            self.db.executemany(
                "UPDATE asks SET rating = ?, feedback_reason = ?, feedback_text = ?, "
                "feedback_at = ? WHERE id = ?",
                [
                    (
                        f.rating,
                        f.reason,
                        f.text,
                        f.at.isoformat(timespec="seconds"),
                        answer_number(f.answer_id),
                    )
                    for f in feedback
                ],
            )

    def has_answer(self, answer_id: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM asks WHERE id = ?", (answer_number(answer_id),)
        ).fetchone()
        return row is not None

    def delete_before(self, cutoff: datetime) -> int:
        """Delete every answer older than `cutoff`, the outcomes (a day after their last
        answer) and the embeddings no answer needs any more; the number of answers deleted."""
        with self._transaction():
            deleted = self.db.execute(
                "DELETE FROM asks WHERE at < ?", (cutoff.timestamp(),)
            ).rowcount
            self.db.execute(
                "DELETE FROM outcomes WHERE created < ? "
                "AND key NOT IN (SELECT DISTINCT outcome FROM asks)",
                (min(cutoff.timestamp(), time.time() - ORPHAN_GRACE_SECONDS),),
            )
            self.db.execute(
                "DELETE FROM vectors WHERE question NOT IN (SELECT question FROM outcomes) "
                "AND question NOT IN (SELECT resolved FROM outcomes)"
            )
        if deleted:
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return deleted

    def asks(self, since: datetime | None = None) -> list[LoggedAsk]:
        """Every answer since `since` (all when None), oldest first."""
        query = (
            "SELECT a.id, a.at, o.question, o.resolved, o.outcome, o.reason, o.best_score, "
            "o.cited, o.generator, a.latency_ms, o.prompt_tokens, o.output_tokens, o.cache, "
            "a.visitor, a.rating, a.feedback_reason, a.feedback_text "
            "FROM asks a JOIN outcomes o ON o.key = a.outcome WHERE a.at >= ? ORDER BY a.id"
        )
        start = since.timestamp() if since else 0.0
        try:
            rows = self.db.execute(query, (start,)).fetchall()
        except sqlite3.Error as error:
            raise QuestionLogError(
                f"{self.path}: cannot read the question log ({error})"
            ) from error
        return [_logged(row) for row in rows]

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def vectors(self, embedder: str, questions: Iterable[str]) -> dict[str, np.ndarray]:
        """The stored embeddings of these questions by this embedder (those that exist)."""
        wanted = list(dict.fromkeys(questions))
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for question, blob in self.db.execute(
                "SELECT question, vector FROM vectors "
                f"WHERE embedder = ? AND question IN ({marks})",
                (embedder, *chunk),
            ):
                found[question] = np.frombuffer(blob, dtype=np.float32)
        return found

    def store_vectors(self, embedder: str, vectors: dict[str, np.ndarray]) -> None:
        with self._transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO vectors (embedder, question, vector) VALUES (?, ?, ?)",
                [
                    (embedder, q, np.asarray(v, dtype=np.float32).tobytes())
                    for q, v in vectors.items()
                ],
            )

    def _transaction(self) -> _Transaction:
        return _Transaction(self.db)


def _chunk_sizes(count: int, largest: int = 256) -> list[int]:
    """`count` as chunks of `largest`, then powers of two: few distinct statements to cache."""
    sizes = [largest] * (count // largest)
    rest = count % largest
    size = largest // 2
    while rest:
        if rest >= size:
            sizes.append(size)
            rest -= size
        size //= 2
    return sizes


@functools.lru_cache(maxsize=16)
def _insert_sql(rows: int) -> str:
    one = "(" + ", ".join("?" * len(_ASK_COLUMNS.split(","))) + ")"
    return f"INSERT OR IGNORE INTO asks ({_ASK_COLUMNS}) VALUES " + ", ".join([one] * rows)


class _Transaction:
    """BEGIN ... COMMIT, or ROLLBACK on an exception (the connection is in autocommit mode)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *_: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def _logged(row: tuple[Any, ...]) -> LoggedAsk:
    (id_, at, question, resolved, outcome, reason, best, cited, generator, latency) = row[:10]
    prompt, output, cache, visitor, rating, feedback_reason, feedback_text = row[10:]
    return LoggedAsk(
        id=f"{id_:016x}",
        at=datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds"),
        question=question,
        resolved=resolved,
        outcome=outcome,
        reason=reason,
        best_score=best,
        cited=tuple(json.loads(cited)),
        generator=generator,
        latency_ms=latency,
        cache=cache,
        visitor=visitor,
        rating=rating,
        feedback_reason=feedback_reason,
        feedback_text=feedback_text,
        tokens={"prompt": prompt, "output": output},
    )
