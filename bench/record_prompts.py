"""Record the exact LLM prompts sitecite sends for a question set, for replies written elsewhere.

    python -m bench.record_prompts INDEX_DIR QUESTIONS.json [QUESTIONS.json ...] --site NAME \
        --out prompts.jsonl

A local OpenAI-compatible server on 127.0.0.1 answers every request with NOT_ON_SITE and saves
it; each question is answered through `answer` with `generator = "llm"`, so the saved prompt is
exactly what a production model would receive. One line per question that reached a model:
`{"id", "site", "category", "question", "sources": [{"n", "title", "heading", "text"}],
"messages"}`. Questions refused before any model call (the gate, the question screen) have no
line. This is how bench/replies/ was made: a model (or a person playing one) writes replies to
these prompts, and bench/verify_replies.py replays them through verification.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from sitecite.config import load_settings
from sitecite.pipeline import Engine, answer

_SOURCE = re.compile(r'<source n="(\d+)" title="(.*?)" heading="(.*?)">\n(.*?)\n</source>', re.S)
_QUESTION = re.compile(r"<question>\n(.*?)\n</question>", re.S)


class Recorder(ThreadingHTTPServer):
    """Saves every chat-completions request body and replies NOT_ON_SITE."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: Recorder

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        with self.server.lock:
            self.server.requests.append(body)
        reply = json.dumps({"answer": "NOT_ON_SITE", "citations": []})
        payload = json.dumps(
            {
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}}],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def prompt_record(body: dict[str, Any]) -> dict[str, Any]:
    """The question and numbered sources of one recorded request, and its messages."""
    user = next(
        m["content"]
        for m in body["messages"]
        if m.get("role") == "user" and "<sources>" in m.get("content", "")
    )
    question = _QUESTION.search(user)
    sources = [
        {"n": int(n), "title": title, "heading": heading, "text": text}
        for n, title, heading, text in _SOURCE.findall(user)
    ]
    return {
        "question": question.group(1) if question else "",
        "sources": sources,
        "messages": body["messages"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("index")
    parser.add_argument("questions", nargs="+", type=Path)
    parser.add_argument("--site", required=True)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    recorder = Recorder()
    threading.Thread(target=recorder.serve_forever, daemon=True).start()
    settings = load_settings(
        {
            "generator": "llm",
            "llm.base_url": recorder.base_url,
            "llm.model": "recorder",
            "llm.api_key": "local",
            "llm.retries": 0,
        },
        config_file=None,
        environ={},
    )
    engine = Engine.load(args.index, settings)
    written = 0
    with args.out.open("w", encoding="utf-8") as out:
        for path in args.questions:
            for question in json.loads(path.read_text())["questions"]:
                with recorder.lock:
                    recorder.requests.clear()
                answer(engine, question["question"])
                if not recorder.requests:
                    continue
                record = {
                    "id": question["id"],
                    "site": args.site,
                    "category": question["category"],
                    **prompt_record(recorder.requests[0]),
                }
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                written += 1
    recorder.shutdown()
    print(f"wrote {written} prompts to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
