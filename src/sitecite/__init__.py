"""sitecite: answer questions about a person from their own website, with a citation on every
claim, or say plainly that the site doesn't say.

The public API is small and loaded lazily, so `sitecite --help` never imports torch or numpy.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Answer": "sitecite.types",
    "Citation": "sitecite.types",
    "Hit": "sitecite.types",
    "Section": "sitecite.types",
    "Trace": "sitecite.types",
    "Turn": "sitecite.types",
    "SiteciteError": "sitecite.errors",
    "Settings": "sitecite.config",
    "load_settings": "sitecite.config",
    "load_site": "sitecite.ingest",
    "build_index": "sitecite.index.build",
    "load_index": "sitecite.index.store",
    "Engine": "sitecite.pipeline",
    "answer": "sitecite.pipeline",
    "calibrate": "sitecite.calibrate",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'sitecite' has no attribute '{name}'")
