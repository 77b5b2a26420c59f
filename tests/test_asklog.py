"""The question log is private by design: no IP address or user agent ever reaches it,
personal numbers and addresses are redacted, old rows are deleted (and gone from the file),
and a log that cannot be written never costs an answer."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from sitecite.config import load_settings
from sitecite.errors import ConfigError
from sitecite.owner import AskRecord, QuestionLog, VisitorHasher, log_path, redact
from sitecite.owner.writer import LogWriter
from sitecite.pipeline import Engine
from sitecite.serve.server import serve_in_thread

ADDRESS = "203.0.113.77"
AGENT = "Mozilla/5.0 (X11; Linux x86_64) SecretAgent/9.9.1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mail me at noor.h+x@example.co.uk please", "mail me at [email] please"),
        ("write to noor (at) example (dot) com", "write to [email]"),
        ("or noor at example dot com", "or [email]"),
        ("call +351 912 345 678 now", "call [phone] now"),
        ("my number is (555) 123-4567", "my number is [phone]"),
        ("ring 0612345678", "ring [phone]"),
        ("card 4111 1111 1111 1111 exp 12/29", "card [card number] exp 12/29"),
        ("4111-1111-1111-1111", "[card number]"),
        ("pay 378282246310005 now", "pay [card number] now"),
    ],
)
def test_personal_details_are_redacted(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "What did she do in 2019-2021?",
        "Which talk did she give on 2024-01-15 or 15/01/2024?",
        "Does the site work on Windows 10.0.19045?",
        "Did the ferry site reach 1000000 bookings or 1,000,000 views?",
        "Is the 75th-percentile LCP under 2.5 seconds, and how many of the 62 components?",
        "What changed in version 1.2.3 of Lumen?",
    ],
)
def test_years_dates_versions_and_quantities_are_kept(text: str) -> None:
    assert redact(text) == text


def test_the_visitor_hash_is_daily_and_says_nothing_about_the_address() -> None:
    day = ["2026-03-01"]
    hasher = VisitorHasher(today=lambda: day[0])
    first = hasher.hash(ADDRESS)
    assert first == hasher.hash(ADDRESS), "the same visitor on the same day"
    assert first != hasher.hash("203.0.113.78")
    assert ADDRESS not in first and len(first) == 16
    day[0] = "2026-03-02"
    assert hasher.hash(ADDRESS) != first, "a new day's salt: not linkable to yesterday"
    assert VisitorHasher(today=lambda: "2026-03-02").hash(ADDRESS) != hasher.hash(ADDRESS), (
        "the salt is random and lives in memory only"
    )


def _record(answer_id: str, at: datetime, question: str) -> AskRecord:
    return AskRecord(answer_id, at, question, "refused", "below_threshold", 0.2)


def _file_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def test_retention_deletes_old_rows_and_their_text_from_the_file(tmp_path: Path) -> None:
    now = datetime(2026, 6, 1, 12, tzinfo=UTC)
    path = tmp_path / "log.sqlite"
    with QuestionLog(path) as store:
        store.add(
            [
                _record("1a" * 8, now - timedelta(days=120), "OLDQUESTION about her university"),
                _record("1b" * 8, now - timedelta(days=91), "ANOTHEROLD one about her age"),
                _record("1c" * 8, now - timedelta(days=2), "RECENT question about her rates"),
            ]
        )
        store.store_vectors("e", {"OLDQUESTION about her university": [1.0, 0.0]})
        assert store.delete_before(now - timedelta(days=90)) == 2
        assert [a.question for a in store.asks()] == ["RECENT question about her rates"]
        assert store.vectors("e", ["OLDQUESTION about her university"]) == {}
    stored = _file_bytes(path)
    assert b"RECENT" in stored
    assert b"OLDQUESTION" not in stored and b"ANOTHEROLD" not in stored, "secure_delete"


def test_the_writer_enforces_retention(tmp_path: Path) -> None:
    now = datetime.now(UTC)
    path = tmp_path / "log.sqlite"
    with QuestionLog(path) as store:
        store.add([_record("1d" * 8, now - timedelta(days=8), "a week-old question")])
    writer = LogWriter(path, keep_days=7)
    try:
        writer.record_ask("1e" * 8, "today's question", b'{"refused":false}', "miss", 1.0)
        assert writer.flush()
    finally:
        writer.close()
    with QuestionLog(path) as store:
        assert [a.question for a in store.asks()] == ["today's question"]


def test_the_log_setting_names_its_problem(tmp_path: Path) -> None:
    assert log_path(None, tmp_path / "index") == (tmp_path / "index.questions.sqlite").resolve()
    assert log_path("", tmp_path / "index") is None
    assert log_path("sqlite:///" + str(tmp_path / "q.db"), "x") == tmp_path / "q.db"
    with pytest.raises(ConfigError, match="serve.log"):
        log_path("postgres://db", tmp_path)


@pytest.fixture
def private_index(example_index: Path, tmp_path: Path) -> Path:
    """A copy of the example index, so this test's question log is its own."""
    target = tmp_path / "index"
    shutil.copytree(example_index, target)
    return target


def _serve(**serve: Any) -> Any:
    values = {"serve.rate_limit_per_minute": 0, **{f"serve.{k}": v for k, v in serve.items()}}
    return load_settings(values, config_file=None, environ={})


def test_no_address_or_user_agent_reaches_the_log(private_index: Path, engine: Engine) -> None:
    settings = _serve(log_visitors=True, trusted_proxies=["127.0.0.1"])
    headers = {"User-Agent": AGENT, "X-Forwarded-For": ADDRESS}
    questions = [
        "Which city and country is she based in? Reply to noor.fan@example.org",
        "Can she call me on +44 20 7946 0958 about an audit?",
        "How old is Noor?",
    ]
    with (
        serve_in_thread(private_index, settings, engine) as url,
        httpx.Client(base_url=url, headers=headers, timeout=30) as client,
    ):
        ids = [client.post("/api/ask", json={"question": q}).json()["id"] for q in questions]
        response = client.post(
            "/api/feedback",
            json={"id": ids[0], "rating": "down", "reason": "other", "text": "I am at 10.1.2.3"},
        )
        assert response.status_code == 202
    path = log_path(None, private_index)
    assert path is not None
    stored = _file_bytes(path)
    for secret in (ADDRESS, "127.0.0.1", "SecretAgent", "Mozilla", "noor.fan", "7946"):
        assert secret.encode() not in stored, f"{secret} reached the log file"
    with sqlite3.connect(path) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(asks)")}
    assert not {c for c in columns if "ip" in c.split("_") or "agent" in c or "addr" in c}
    with QuestionLog(path) as store:
        rows = {a.id: a for a in store.asks()}
    assert [rows[i].question for i in ids] == [
        "Which city and country is she based in? Reply to [email]",
        "Can she call me on [phone] about an audit?",
        "How old is Noor?",
    ]
    visitors = {rows[i].visitor for i in ids}
    assert len(visitors) == 1 and None not in visitors, "one visitor, counted by a daily hash"
    assert rows[ids[0]].rating == "down" and rows[ids[0]].feedback_reason == "other"


def test_a_log_that_cannot_be_written_never_costs_an_answer(
    private_index: Path, engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        serve_in_thread(private_index, _serve(), engine) as url,
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        assert client.post("/api/ask", json={"question": "How old is Noor?"}).status_code == 200
        app_log = log_path(None, private_index)
        assert app_log is not None
        for stale in app_log.parent.glob(app_log.name + "*"):
            stale.unlink()
        app_log.mkdir()  # the log's path is now a directory: every write fails
        for question in ("Which city is she in?", "What time zone is she in?", "How old is she?"):
            response = client.post("/api/ask", json={"question": question})
            assert response.status_code == 200 and "id" in response.json()
        client.get("/lab")  # the lab reads the log: it must still answer
    assert any("question log" in r.getMessage() for r in caplog.records), "the failure is logged"
