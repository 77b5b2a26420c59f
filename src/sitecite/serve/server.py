"""Run the app on uvicorn: blocking, and telling the caller its URL once it is listening.

uvicorn's own proxy-header handling is turned off: it would believe X-Forwarded-For from any
local peer, and the rate limiter must decide who the client is from `serve.trusted_proxies`.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import uvicorn

from sitecite.config import Settings
from sitecite.pipeline import Engine
from sitecite.serve.app import create_app


class _Server(uvicorn.Server):
    """A uvicorn server that reports its URL (with the real port, if 0 was asked for)."""

    def __init__(self, config: uvicorn.Config, on_ready: Callable[[str], None] | None) -> None:
        super().__init__(config)
        self.on_ready = on_ready
        self.url = ""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.should_exit or not self.servers:
            return
        host, port = self.servers[0].sockets[0].getsockname()[:2]
        self.url = f"http://{f'[{host}]' if ':' in host else host}:{port}"
        if self.on_ready is not None:
            self.on_ready(self.url)


def make_server(
    index_dir: Path,
    settings: Settings,
    host: str,
    port: int,
    on_ready: Callable[[str], None] | None = None,
    engine: Engine | None = None,
    log_level: str = "info",
) -> _Server:
    """A server ready to `run()`; tests run it in a thread with `engine` already loaded."""
    app = create_app(index_dir, settings, engine)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        proxy_headers=False,
        server_header=False,
        log_level=log_level,
        access_log=False,
        timeout_graceful_shutdown=5,
    )
    return _Server(config, on_ready)


def run_server(
    index_dir: Path,
    settings: Settings,
    host: str,
    port: int,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve `index_dir` until interrupted; `on_ready(url)` is called once, when listening."""
    make_server(Path(index_dir), settings, host, port, on_ready).run()


@contextlib.contextmanager
def serve_in_thread(
    index_dir: Path,
    settings: Settings,
    engine: Engine | None = None,
    host: str = "127.0.0.1",
    timeout: float = 60.0,
) -> Iterator[str]:
    """Serve on a free port in a background thread while the `with` block runs; yields the URL."""
    ready = threading.Event()
    server = make_server(
        Path(index_dir),
        settings,
        host,
        0,
        on_ready=lambda _: ready.set(),
        engine=engine,
        log_level="warning",
    )
    thread = threading.Thread(target=server.run, name="sitecite-server", daemon=True)
    thread.start()
    try:
        waited = 0.0
        while not ready.wait(0.05):
            waited += 0.05
            if not thread.is_alive() or waited > timeout:
                raise RuntimeError(f"the server on {host} did not start listening")
        yield server.url
    finally:
        server.should_exit = True
        thread.join(timeout)
