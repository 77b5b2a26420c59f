"""`sitecite serve`: argument parsing only; `sitecite.serve.run_server` does the work."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def add_serve_parser(sub: Any, command: Callable[[str], Callable[..., Any]]) -> None:
    parser = sub.add_parser(
        "serve",
        help="serve the HTTP API, the Cmd-K widget and the lab page",
        description="Serve an index over HTTP: POST /api/ask, GET /api/health, the Cmd-K widget "
        "(/widget.js), a demo page (/), the evaluation lab (/lab) and a how-it-works page "
        "(/how). The index is reloaded when `sitecite index` replaces it.",
    )
    parser.add_argument("--index", help="index directory to serve (required to serve)")
    parser.add_argument("--host", help="address to listen on (default: serve.host, 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, help="port (default: serve.port, 8000; 0 picks a free one)"
    )
    parser.add_argument(
        "--rate-limit",
        type=float,
        metavar="PER_MINUTE",
        help="questions per minute per address (default 20; 0 for no limit)",
    )
    parser.add_argument("--workers", type=int, help="threads answering questions (default 2)")
    parser.add_argument(
        "--cors-origin",
        action="append",
        metavar="ORIGIN",
        help="a site allowed to call the API from the browser (repeatable)",
    )
    parser.add_argument(
        "--print-settings",
        action="store_true",
        help="print the settings in force as TOML (secrets hidden) and exit",
    )

    @command("serve")
    def cmd_serve(args: argparse.Namespace) -> int:
        from sitecite.config import load_settings
        from sitecite.serve import run_server

        settings = load_settings(
            {
                "serve.host": args.host,
                "serve.port": args.port,
                "serve.rate_limit_per_minute": args.rate_limit,
                "serve.workers": args.workers,
                "serve.cors_origins": args.cors_origin,
            },
            getattr(args, "config", None),
        )
        if args.print_settings:
            from sitecite.serve.public_settings import settings_toml

            print(settings_toml(settings), end="")
            return 0
        if not args.index:
            parser.error("the following arguments are required: --index")

        def ready(url: str) -> None:
            print(
                f"sitecite: serving {args.index} at {url} (Ctrl-C to stop)",
                file=sys.stderr,
                flush=True,
            )

        run_server(
            Path(args.index), settings, settings.serve.host, settings.serve.port, on_ready=ready
        )
        return 0
