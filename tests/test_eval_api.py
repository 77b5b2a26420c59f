"""The public API of sitecite.eval: what `__all__` promises exists, and the import stays light."""

from __future__ import annotations

import subprocess
import sys

import sitecite.eval


def test_exported_members() -> None:
    assert sitecite.eval.__all__ == sorted(
        sitecite.eval.__all__, key=lambda n: (not n.isupper(), n)
    )
    for name in sitecite.eval.__all__:
        assert getattr(sitecite.eval, name) is not None, name


def test_importing_the_harness_does_not_import_torch() -> None:
    code = "import sys, sitecite.eval, sitecite.cli.eval; print('torch' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
