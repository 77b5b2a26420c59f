"""`sitecite serve`: argument parsing for the HTTP server (issue 5 fills this in)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def add_serve_parser(sub: Any, command: Callable[[str], Callable[..., Any]]) -> None:
    parser = sub.add_parser("serve", help="serve the HTTP API, the Cmd-K widget and the lab page",
                            description="Serve an index over HTTP on 127.0.0.1.")
    parser.add_argument("--index", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)

    @command("serve")
    def cmd_serve(args: argparse.Namespace) -> int:
        from sitecite.errors import SiteciteError

        raise SiteciteError("sitecite serve is not available yet in this build")
