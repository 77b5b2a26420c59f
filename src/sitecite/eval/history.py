"""Run history: one SQLite file beside the index (`<index dir>.runs.sqlite`).

It lives outside the index directory because that directory is replaced atomically on every
rebuild. Every question's result is committed the moment it is graded, so a run killed at any
point (even with SIGKILL) keeps what it finished and `--resume` continues from there.

    runs     id, status (running | finished), started, finished, pid, question set, settings
             fingerprint, repeat, run info JSON, summary JSON
    results  (run, question id, repeat) -> position, passed, result JSON
    notes    run -> text (e.g. "the scoring rule was wrong, not the answer")
"""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from sitecite.errors import SiteciteError
from sitecite.procs import pid_alive

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, status TEXT NOT NULL, started TEXT NOT NULL,
    finished TEXT, pid INTEGER, question_set TEXT NOT NULL, question_set_digest TEXT NOT NULL,
    fingerprint TEXT NOT NULL, repeat INTEGER NOT NULL, info TEXT NOT NULL, summary TEXT);
CREATE TABLE IF NOT EXISTS results (
    run_id INTEGER NOT NULL REFERENCES runs(id), question_id TEXT NOT NULL, repeat INTEGER NOT NULL,
    position INTEGER NOT NULL, passed INTEGER NOT NULL, finished TEXT NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (run_id, question_id, repeat));
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT, run_id INTEGER NOT NULL REFERENCES runs(id),
    created TEXT NOT NULL, text TEXT NOT NULL);
"""


class RunNotFoundError(SiteciteError):
    """A run reference that matches no run in the history."""

    exit_code = 2


def history_path(index_dir: str | Path) -> Path:
    """Where the run history of an index lives: beside it, not inside it."""
    index_dir = Path(index_dir).resolve()
    return index_dir.with_name(index_dir.name + ".runs.sqlite")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class RunStore:
    """The run history of one index."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        self._db.commit()

    @classmethod
    def for_index(cls, index_dir: str | Path) -> RunStore:
        return cls(history_path(index_dir))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # runs -------------------------------------------------------------------------------------

    def create_run(
        self, info: dict[str, Any], question_set: str, digest: str, fingerprint: str, repeat: int
    ) -> str:
        cursor = self._db.execute(
            "INSERT INTO runs (status, started, pid, question_set, question_set_digest,"
            " fingerprint, repeat, info) VALUES ('running', ?, ?, ?, ?, ?, ?, ?)",
            (
                info.get("started") or now_iso(),
                os.getpid(),
                question_set,
                digest,
                fingerprint,
                repeat,
                json.dumps(info),
            ),
        )
        self._db.commit()
        return str(cursor.lastrowid)

    def claim(self, run_id: str) -> None:
        """Mark a resumed run as ours (so a second resumer leaves it alone)."""
        self._db.execute("UPDATE runs SET pid = ? WHERE id = ?", (os.getpid(), int(run_id)))
        self._db.commit()

    def resumable(self, digest: str, fingerprint: str) -> dict[str, Any] | None:
        """The newest unfinished run of this question set and settings whose process is gone."""
        rows = self._db.execute(
            "SELECT * FROM runs WHERE status = 'running' AND question_set_digest = ?"
            " AND fingerprint = ? "
            "ORDER BY id DESC",
            (digest, fingerprint),
        ).fetchall()
        for row in rows:
            if row["pid"] == os.getpid() or not pid_alive(row["pid"]):
                return self._run(row)
        return None

    def finish(self, run_id: str, summary: dict[str, Any], info: dict[str, Any]) -> None:
        self._db.execute(
            "UPDATE runs SET status = 'finished', finished = ?, summary = ?, info = ? WHERE id = ?",
            (info.get("finished") or now_iso(), json.dumps(summary), json.dumps(info), int(run_id)),
        )
        self._db.commit()

    def runs(
        self, *, finished_only: bool = True, question_set: str | None = None
    ) -> list[dict[str, Any]]:
        """Runs oldest first."""
        query = "SELECT * FROM runs WHERE 1 = 1"
        params: list[Any] = []
        if finished_only:
            query += " AND status = 'finished'"
        if question_set is not None:
            query += " AND question_set = ?"
            params.append(question_set)
        return [
            self._run(row) for row in self._db.execute(query + " ORDER BY id", params).fetchall()
        ]

    def get(self, reference: str) -> dict[str, Any]:
        """A run by id, or `latest` / `previous` (finished runs), or `-N` (N-th newest finished)."""
        reference = str(reference).strip()
        finished = self.runs()
        aliases = {"latest": -1, "last": -1, "previous": -2, "prev": -2}
        position = aliases.get(reference)
        if position is None and reference.startswith("-") and reference[1:].isdigit():
            position = -int(reference[1:])
        if position is not None:
            if len(finished) < -position:
                raise RunNotFoundError(
                    f"no run '{reference}': the history at {self.path} has "
                    f"{len(finished)} finished run(s)"
                )
            return finished[position]
        row = (
            self._db.execute("SELECT * FROM runs WHERE id = ?", (int(reference),)).fetchone()
            if reference.isdigit()
            else None
        )
        if row is None:
            known = ", ".join(r["id"] for r in finished[-5:]) or "none"
            raise RunNotFoundError(f"no run '{reference}' in {self.path} (recent runs: {known})")
        return self._run(row)

    def previous(self, run: dict[str, Any]) -> dict[str, Any] | None:
        """The finished run of the same question set just before this one."""
        earlier = [
            r for r in self.runs(question_set=run["question_set"]) if int(r["id"]) < int(run["id"])
        ]
        return earlier[-1] if earlier else None

    def _run(self, row: sqlite3.Row) -> dict[str, Any]:
        return {
            "id": str(row["id"]),
            "status": row["status"],
            "started": row["started"],
            "finished": row["finished"],
            "question_set": row["question_set"],
            "question_set_digest": row["question_set_digest"],
            "fingerprint": row["fingerprint"],
            "repeat": row["repeat"],
            "info": json.loads(row["info"]),
            "summary": json.loads(row["summary"]) if row["summary"] else None,
            "pid": row["pid"],
        }

    # results ----------------------------------------------------------------------------------

    def add_result(self, run_id: str, position: int, result: dict[str, Any]) -> None:
        """Commit one graded question immediately (this is what makes a killed run resumable)."""
        self._db.execute(
            "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                int(run_id),
                result["id"],
                int(result.get("repeat", 0)),
                position,
                int(bool(result["passed"])),
                now_iso(),
                json.dumps(result, ensure_ascii=False),
            ),
        )
        self._db.commit()

    def results(self, run_id: str) -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT data FROM results WHERE run_id = ? ORDER BY position, repeat", (int(run_id),)
        ).fetchall()
        return [json.loads(row["data"]) for row in rows]

    def finished_at(self, run_id: str) -> dict[tuple[str, int], str]:
        """When each (question, repeat) of a run was committed."""
        rows = self._db.execute(
            "SELECT question_id, repeat, finished FROM results WHERE run_id = ?", (int(run_id),)
        ).fetchall()
        return {(row["question_id"], row["repeat"]): row["finished"] for row in rows}

    # notes ------------------------------------------------------------------------------------

    def add_note(self, reference: str, text: str) -> dict[str, Any]:
        if not text.strip():
            raise SiteciteError("a note needs some text")
        run = self.get(reference)
        self._db.execute(
            "INSERT INTO notes (run_id, created, text) VALUES (?, ?, ?)",
            (int(run["id"]), now_iso(), text.strip()),
        )
        self._db.commit()
        return run

    def notes(self, run_id: str | None = None) -> list[dict[str, Any]]:
        query, params = "SELECT * FROM notes", cast(tuple[Any, ...], ())
        if run_id is not None:
            query, params = query + " WHERE run_id = ?", (int(run_id),)
        return [
            {"run_id": str(r["run_id"]), "created": r["created"], "text": r["text"]}
            for r in self._db.execute(query + " ORDER BY id", params).fetchall()
        ]
