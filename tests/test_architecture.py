"""The layering of STYLE.md holds (import-linter), and the public API is what __all__ says."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import REPO

import sitecite


def test_lower_layers_never_import_higher_ones() -> None:
    lint = shutil.which("lint-imports")
    if lint is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    run = subprocess.run([lint], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_public_api_is_exported() -> None:
    for name in sitecite.__all__:
        assert getattr(sitecite, name) is not None
    with pytest.raises(AttributeError):
        sitecite.not_a_thing  # noqa: B018
