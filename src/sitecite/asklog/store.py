"""The question log: one SQLite file beside the index (`<index dir>.questions.sqlite`).

An answer's id is 16 hex digits; stored as the table's integer key, a row costs one B-tree
insert (measured: 3.5 us against 9.2 us for a text key with an index on the time), which
matters at thousands of cached answers a second.

    asks     one row per answer served: when, the question (redacted), the standalone question
             a follow-up was resolved to, the outcome (answered / refused and why), the best
             retrieval score, the cited ids, the generator, latency, tokens, whether the answer
             came from the cache, an optional daily visitor hash, and the visitor's feedback
    vectors  question embeddings per embedder, so `sitecite gaps` embeds each question once
    meta     small state (when the last digest was sent)

It never holds an IP address or a user agent: the columns for them do not exist. Old rows
are deleted (`delete_before`) with SQLite's secure_delete on, and the write-ahead log is
truncated afterwards, so deleted questions do not linger in the files either.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from sitecite.errors import ConfigError, SiteciteError

LOG_SUFFIX = ".questions.sqlite"
RATINGS = ("up", "down")
REASONS = ("wrong", "not_what_i_asked", "outdated", "other")

SCHEMA = """
CREATE TABLE IF NOT EXISTS asks (
    id INTEGER PRIMARY KEY, at TEXT NOT NULL, question TEXT NOT NULL, resolved TEXT NOT NULL,
    outcome TEXT NOT NULL, reason TEXT NOT NULL, best_score REAL, cited TEXT NOT NULL,
    generator TEXT NOT NULL, latency_ms REAL NOT NULL, prompt_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL, cache TEXT NOT NULL, visitor TEXT,
    rating TEXT, feedback_reason TEXT, feedback_text TEXT, feedback_at TEXT);
CREATE TABLE IF NOT EXISTS vectors (
    embedder TEXT NOT NULL, question TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (embedder, question));
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_ASK_COLUMNS = (
    "id, at, question, resolved, outcome, reason, best_score, cited, generator, latency_ms, "
    "prompt_tokens, output_tokens, cache, visitor"
)


class QuestionLogError(SiteciteError):
    """The question log cannot be opened or read."""


@dataclass(frozen=True)
class AskRecord:
    """One served answer as the log keeps it; `question` is already redacted."""

    id: str
    at: datetime
    question: str
    outcome: str  # "answered" or "refused"
    reason: str = ""  # why it was refused
    best_score: float | None = None
    cited: tuple[str, ...] = ()
    generator: str = ""
    latency_ms: float = 0.0
    prompt_tokens: int = 0
    output_tokens: int = 0
    cache: str = ""
    visitor: str | None = None
    resolved: str = ""  # the standalone question a follow-up was resolved to (redacted)

    def row(self) -> tuple[Any, ...]:
        return (
            answer_number(self.id),
            self.at.isoformat(timespec="milliseconds"),
            self.question,
            self.resolved,
            self.outcome,
            self.reason,
            self.best_score,
            json.dumps(list(self.cited)),
            self.generator,
            round(self.latency_ms, 3),
            self.prompt_tokens,
            self.output_tokens,
            self.cache,
            self.visitor,
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
        """Write answers, then feedback, in one transaction (feedback may be for those answers)."""
        self.add_rows([record.row() for record in records], feedback)

    def add_rows(self, rows: Sequence[tuple[Any, ...]], feedback: Sequence[Feedback] = ()) -> None:
        """`add` for rows already in `AskRecord.row()` form (the server's writer builds them).

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
        """Delete every answer older than `cutoff` and the embeddings no answer needs any more."""
        with self._transaction():
            deleted = self.db.execute(
                "DELETE FROM asks WHERE at < ?", (cutoff.isoformat(timespec="milliseconds"),)
            ).rowcount
            self.db.execute(
                "DELETE FROM vectors WHERE question NOT IN (SELECT question FROM asks) "
                "AND question NOT IN (SELECT resolved FROM asks)"
            )
        if deleted:
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return deleted

    def asks(self, since: datetime | None = None) -> list[LoggedAsk]:
        """Every answer since `since` (all when None), oldest first."""
        query = (
            f"SELECT {_ASK_COLUMNS}, rating, feedback_reason, feedback_text FROM asks "
            "WHERE at >= ? ORDER BY at"
        )
        start = since.isoformat(timespec="milliseconds") if since else ""
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
    return f"INSERT OR REPLACE INTO asks ({_ASK_COLUMNS}) VALUES " + ", ".join([one] * rows)


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
        at=at,
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
