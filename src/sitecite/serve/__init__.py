"""Serving: the HTTP API, the Cmd-K widget, the demo, lab and how-it-works pages.

create_app(index_dir, settings)   the ASGI app (Starlette)
run_server(index_dir, settings, host, port, on_ready)   blocking; on_ready(url) once listening
"""

from __future__ import annotations

from sitecite.serve.app import create_app
from sitecite.serve.server import run_server

__all__ = ["create_app", "run_server"]
