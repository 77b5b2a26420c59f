"""Settings from parsed arguments, shared by the commands (a leaf: it imports no command)."""

from __future__ import annotations

import argparse
from typing import Any

from sitecite.config import Settings, load_settings


def settings_for(args: argparse.Namespace, **flags: Any) -> Settings:
    """The settings a command runs with: the given flags (None = not given) and the common
    `--k`, `--threshold` and `--generator` over sitecite.toml, SITECITE_* and the defaults."""
    given = {key: value for key, value in flags.items() if value is not None}
    for key in ("k", "threshold", "generator"):
        if getattr(args, key, None) is not None:
            given[key] = getattr(args, key)
    return load_settings(given, getattr(args, "config", None))
