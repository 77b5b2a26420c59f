"""Shared fixtures: the real bundled embedding model, loaded once per test session, and an index
of the example site built once (incrementally, so a rerun embeds nothing new)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sitecite.config import Settings, load_settings
from sitecite.embed import Embedder, get_embedder
from sitecite.pipeline import Engine

REPO = Path(__file__).resolve().parents[1]


def run_module(module: str, *args: object, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    """`python -m MODULE ARGS` from the repository root, as the docs run it; it must succeed."""
    run = subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
        timeout=timeout,
    )
    assert run.returncode == 0, run.stderr
    return run


EXAMPLE_SITE = REPO / "examples" / "site"
EXAMPLE_QUESTIONS = REPO / "examples" / "questions.json"
CALIBRATION_QUESTIONS = REPO / "examples" / "calibration.json"
SHARED_DATA = (REPO / ".." / "shared" / "data").resolve()
ARTIFACTS = REPO / "test-artifacts"
INDEX_CACHE = REPO / ".sitecite" / "test-example-index"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def engine_for_pages(
    root: Path, pages: dict[str, str], embedder: Any, settings: Settings
) -> Engine:
    """An engine over a small site written for one test module: `pages` maps a path under
    `root` to its text; the index is built beside `root`."""
    from sitecite.index.build import build_index

    for name, text in pages.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    index = root.parent / f"{root.name}-index"
    build_index(root, index, embedder)
    return Engine.load(index, settings)


def shared_data(*parts: str) -> Path:
    """A folder of ../shared/data, or skip the test with a message saying what is missing."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"shared data not found at {path} (needs the ../shared/data folder beside the repo)"
        )
    return path


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return get_embedder("sentence-transformers/all-MiniLM-L6-v2", threads=2)


@pytest.fixture(scope="session")
def settings() -> Settings:
    """Defaults (no sitecite.toml, no SITECITE_* variables from the developer's shell), except
    that every answer the generator accepts is given directly: these tests check how answers
    are chosen, said, served and logged. Whether an answer is sure enough to be given
    directly (`direct_answers = "sure"`, the default) is tested on its own in test_answers and
    measured on real sites by `python -m bench.site_answers`."""
    return load_settings({"direct_answers": "any"}, config_file=None, environ={})


@pytest.fixture(scope="session")
def example_index(embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example site's index, calibrated on the dev question set, in a private temp copy."""
    from sitecite.calibrate import calibrate
    from sitecite.index.build import build_index
    from sitecite.index.store import read_manifest

    build_index(EXAMPLE_SITE, INDEX_CACHE, embedder)
    if embedder.id not in read_manifest(INDEX_CACHE).get("thresholds", {}):
        calibrate(Engine.load(INDEX_CACHE, load_settings({}, environ={})), CALIBRATION_QUESTIONS)
    target = tmp_path_factory.mktemp("example") / "index"
    shutil.copytree(INDEX_CACHE, target)
    return target


@pytest.fixture(scope="session")
def engine(example_index: Path, settings: Settings) -> Engine:
    return Engine.load(example_index, settings)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Debian's headless Chromium driven by Playwright (Playwright's own download cannot work
    here); skips with a message when either is missing."""
    if not CHROMIUM.exists():
        pytest.skip(f"headless Chromium not found at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright for Python")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
