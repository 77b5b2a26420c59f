"""A real HTTP server on 127.0.0.1 speaking OpenAI chat completions, replaying scripted behaviours.

Tests queue behaviours (`server.push(...)`); each request consumes one, and when the queue is
empty the server's `default` answers (a behaviour, or a function of the request body that
returns one). Behaviours: `Reply` (a completion, optionally without `usage`), `Status` (an
HTTP error, optionally with Retry-After), `Hang` (sleep past the client's timeout) and `Drop`
(close the connection without a response). Every request body is kept in `requests`.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    content: str
    usage: bool = True
    prompt_tokens: int = 321
    output_tokens: int = 45


@dataclass(frozen=True)
class Status:
    code: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "scripted failure"


@dataclass(frozen=True)
class Hang:
    seconds: float = 5.0


@dataclass(frozen=True)
class Drop:
    pass


Behaviour = Reply | Status | Hang | Drop
Responder = Callable[[dict[str, Any]], Behaviour]


def answer_json(answer: str, citations: list[int] | None = None) -> str:
    """The JSON object the LLM generator asks for."""
    if citations is None:
        citations = sorted({int(n) for n in re.findall(r"\[(\d+)\]", answer)})
    return json.dumps({"answer": answer, "citations": citations})


def sources_of(body: dict[str, Any]) -> dict[int, str]:
    """The numbered source texts of the prompt the generator sent (for responders quoting them)."""
    user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    found = re.findall(r'<source n="(\d+)"[^>]*>\n(.*?)\n</source>', user, flags=re.S)
    return {int(n): text for n, text in found}


def question_of(body: dict[str, Any]) -> str:
    user = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    match = re.search(r"<question>\n(.*?)\n</question>", user, flags=re.S)
    return match.group(1) if match else ""


class ScriptedLLM:
    """Start with `with ScriptedLLM() as server:`; `server.base_url` ends in /v1."""

    def __init__(self, default: Behaviour | Responder | None = None) -> None:
        self.script: deque[Behaviour | Responder] = deque()
        self.default: Behaviour | Responder = default or Reply(answer_json("NOT_ON_SITE", []))
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def push(self, *behaviours: Behaviour | Responder) -> ScriptedLLM:
        with self._lock:
            self.script.extend(behaviours)
        return self

    def reset(self, default: Behaviour | Responder | None = None) -> None:
        with self._lock:
            self.script.clear()
            self.requests.clear()
            self.headers.clear()
            if default is not None:
                self.default = default

    def __enter__(self) -> ScriptedLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    def _next(self, body: dict[str, Any]) -> Behaviour:
        with self._lock:
            self.requests.append(body)
            step = self.script.popleft() if self.script else self.default
        return step(body) if callable(step) else step

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.headers.append(dict(self.headers))
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                behaviour = server._next(body)
                if isinstance(behaviour, Hang):
                    server._stop.wait(behaviour.seconds)
                    self._send(200, _completion(body, Reply(answer_json("too late", []))))
                elif isinstance(behaviour, Drop):
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.connection.close()
                    self.close_connection = True
                elif isinstance(behaviour, Status):
                    self._send(
                        behaviour.code, {"error": {"message": behaviour.message}}, behaviour.headers
                    )
                else:
                    self._send(200, _completion(body, behaviour))

            def _send(
                self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (timeout test)

        return Handler


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": body.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": reply.content},
            }
        ],
    }
    if reply.usage:
        payload["usage"] = {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.output_tokens,
            "total_tokens": reply.prompt_tokens + reply.output_tokens,
        }
    return payload
