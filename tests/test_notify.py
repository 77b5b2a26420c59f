"""The daily digest of new content gaps, posted to a real receiver on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sitecite.config import load_settings
from sitecite.owner import AskRecord, QuestionLog, log_path
from sitecite.owner.digest import SENT_KEY, DigestNotifier
from sitecite.pipeline import Engine
from sitecite.serve.server import serve_in_thread

NOW = datetime(2026, 6, 2, 9, 30, tzinfo=UTC)


class Receiver:
    """A webhook endpoint that keeps every JSON body it is sent, or fails when told to."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.status = 204
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", "0"))
                receiver.bodies.append(json.loads(self.rfile.read(length)))
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hooks/sitecite"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver()
    yield running
    running.httpd.shutdown()


def _log(tmp_path: Path, questions: list[tuple[timedelta, str, str]]) -> Path:
    path = tmp_path / "questions.sqlite"
    with QuestionLog(path) as store:
        store.add(
            [
                AskRecord(f"{n:016x}", NOW - age, question, outcome, "low_support")
                for n, (age, question, outcome) in enumerate(questions)
            ]
        )
    return path


def test_the_digest_posts_new_gaps_once_a_day(
    tmp_path: Path, engine: Engine, receiver: Receiver
) -> None:
    path = _log(
        tmp_path,
        [
            (timedelta(hours=3), "Which university did Noor study at?", "refused"),
            (timedelta(hours=2), "Where did she go to university?", "refused"),
            (timedelta(hours=1), "Which city and country is she based in?", "answered"),
            (timedelta(days=3), "An old question about her salary", "refused"),
        ],
    )
    clock = [NOW]
    notifier = DigestNotifier(receiver.url, 8, path, clock=lambda: clock[0])
    sent = notifier.run_once(engine)
    assert sent is not None and receiver.bodies == [sent]
    body = receiver.bodies[0]
    assert body["type"] == "sitecite.digest" and body["site"] == "Noor Haddad"
    assert (body["asked"], body["answered"], body["refused"]) == (3, 1, 2), "since a day ago"
    [gap] = body["gaps"]
    assert sorted(gap["questions"]) == [
        "Where did she go to university?",
        "Which university did Noor study at?",
    ]
    assert "university" in gap["suggestion"] and gap["closest_section"]["id"]

    clock[0] = NOW + timedelta(hours=5)
    assert notifier.run_once(engine) is None and len(receiver.bodies) == 1, "once a day"
    clock[0] = NOW + timedelta(days=1)
    assert notifier.run_once(engine) is None, "nothing new: no digest"
    assert len(receiver.bodies) == 1


def test_a_failed_post_is_tried_again_later(
    tmp_path: Path, engine: Engine, receiver: Receiver
) -> None:
    path = _log(tmp_path, [(timedelta(hours=1), "Is Noor married?", "refused")])
    notifier = DigestNotifier(receiver.url, 8, path, clock=lambda: NOW)
    receiver.status = 500
    with pytest.raises(Exception, match="500"):
        notifier.run_once(engine)
    with QuestionLog(path) as store:
        assert store.get_meta(SENT_KEY) is None, "not marked as sent"
    receiver.status = 204
    assert notifier.run_once(engine) is not None
    assert len(receiver.bodies) == 2


def test_the_digest_waits_for_its_hour(tmp_path: Path) -> None:
    notifier = DigestNotifier("http://127.0.0.1:9/", 8, tmp_path / "log.sqlite")
    early = datetime(2026, 6, 2, 7, 59, tzinfo=UTC)
    assert not notifier.due(early, None)
    assert notifier.due(early.replace(hour=8), None)
    assert not notifier.due(early.replace(hour=23), early.replace(hour=8, minute=5))
    assert notifier.due(early + timedelta(days=1, hours=1), early.replace(hour=8))


def test_a_running_server_sends_the_digest(
    example_index: Path, engine: Engine, receiver: Receiver, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    shutil.copytree(example_index, index)
    path = log_path(None, index)
    assert path is not None
    with QuestionLog(path) as store:
        asked = datetime.now(UTC) - timedelta(hours=2)
        store.add([AskRecord("1a" * 8, asked, "Is Noor married?", "refused", "low_support")])
    settings = load_settings(
        {
            "serve.notify_url": receiver.url,
            "serve.notify_hour": 0,
            "serve.rate_limit_per_minute": 0,
        },
        config_file=None,
        environ={},
    )
    with serve_in_thread(index, settings, engine):
        deadline = time.monotonic() + 30
        while not receiver.bodies and time.monotonic() < deadline:
            time.sleep(0.1)
    [body] = receiver.bodies
    assert [gap["questions"] for gap in body["gaps"]] == [["Is Noor married?"]]
    with QuestionLog(path) as store:
        assert store.get_meta(SENT_KEY) is not None, "a restart sends no second digest today"
