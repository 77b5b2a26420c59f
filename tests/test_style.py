"""Lint, format and types, as STYLE.md asks: ruff on src and tests, mypy on src."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import REPO


def run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed (pip install -e '.[test]')")
    return subprocess.run([tool, *args], cwd=REPO, capture_output=True, text=True)


def test_ruff_lint_and_format() -> None:
    lint = run("ruff", "check", "src", "tests", "bench", "training")
    assert lint.returncode == 0, lint.stdout
    form = run("ruff", "format", "--check", "src", "tests", "bench", "training")
    assert form.returncode == 0, form.stdout


@pytest.mark.slow
def test_mypy_on_src() -> None:
    result = run("mypy", "src")
    assert result.returncode == 0, result.stdout
