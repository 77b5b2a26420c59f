"""A real static web server on 127.0.0.1 for the live-site tests: files from a folder,
`dir/` -> `dir/index.html`, ETag and Last-Modified with 304 answers to conditional GETs, and
a log of every request (path, status, User-Agent) for the tests to check politeness."""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Request:
    path: str
    status: int
    user_agent: str
    at: float


class StaticSite:
    """Serve `root`; use as a context manager; `url` is the origin, `log` the requests."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.log: list[Request] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> StaticSite:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def requests(self, status: int | None = None) -> list[Request]:
        with self._lock:
            return [r for r in self.log if status is None or r.status == status]

    def clear(self) -> None:
        with self._lock:
            self.log.clear()

    def _record(self, path: str, status: int, agent: str, at: float) -> None:
        with self._lock:
            self.log.append(Request(path, status, agent, at))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            arrived = 0.0

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (the http.server API)
                self.arrived = time.monotonic()
                path = self.path.split("?", 1)[0]
                file = site.root / path.lstrip("/")
                if file.is_dir():
                    file = file / "index.html"
                if not file.is_file():
                    self._send(404, b"not found", "text/plain")
                    return
                body = file.read_bytes()
                etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
                modified = formatdate(int(file.stat().st_mtime), usegmt=True)
                if self._unchanged(etag, file.stat().st_mtime):
                    self._send(304, b"", "", {"ETag": etag, "Last-Modified": modified})
                    return
                kind = {".html": "text/html; charset=utf-8", ".xml": "application/xml"}.get(
                    file.suffix, "text/plain; charset=utf-8"
                )
                self._send(200, body, kind, {"ETag": etag, "Last-Modified": modified})

            def _unchanged(self, etag: str, mtime: float) -> bool:
                if self.headers.get("If-None-Match"):
                    return self.headers["If-None-Match"] == etag
                since = self.headers.get("If-Modified-Since")
                return bool(since) and int(mtime) <= parsedate_to_datetime(since).timestamp()

            def _send(
                self, status: int, body: bytes, kind: str, headers: dict[str, str] | None = None
            ) -> None:
                agent = self.headers.get("User-Agent", "")
                site._record(self.path, status, agent, self.arrived)
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                if kind:
                    self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler
