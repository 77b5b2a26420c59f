"""The index directory: incremental rebuilds, atomic swaps that survive kill -9, embedder checks."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLE_SITE

from sitecite.embed import Embedder, HashEmbedder
from sitecite.errors import EmbedderMismatchError, IndexDirError
from sitecite.index.build import build_index
from sitecite.index.store import MANIFEST, load_index, store_thresholds


def copy_site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    shutil.copytree(EXAMPLE_SITE, site)
    return site


def copy_index(example_index: Path, tmp_path: Path) -> Path:
    """A private copy of the session's example index (built from the same content)."""
    target = tmp_path / "index"
    shutil.copytree(example_index, target)
    return target


def test_index_directory_holds_the_designed_files(example_index: Path) -> None:
    names = {p.name for p in example_index.iterdir()}
    assert {"manifest.json", "sections.jsonl", "vectors.npy", "bm25"} <= names
    manifest = json.loads((example_index / MANIFEST).read_text())
    assert manifest["embedder"] == {"id": "sentence-transformers/all-MiniLM-L6-v2", "dim": 384}
    assert {"format_version", "chunker_version", "created", "updated", "thresholds"} <= set(
        manifest
    )
    index = load_index(example_index)
    assert index.vectors.dtype == np.float32 and index.vectors.shape == (len(index.sections), 384)
    assert np.allclose(np.linalg.norm(index.vectors, axis=1), 1.0, atol=1e-4)
    first = json.loads((example_index / "sections.jsonl").read_text().splitlines()[0])
    assert {"id", "page_id", "title", "heading", "url", "text", "hash", "metadata"} <= set(first)


def test_rebuild_embeds_only_what_changed(
    tmp_path: Path, embedder: Embedder, example_index: Path
) -> None:
    site = copy_site(tmp_path)
    target = copy_index(example_index, tmp_path)
    before = load_index(target)

    again = build_index(site, target, embedder)
    assert (again.embedded, again.sentences_embedded, again.removed) == (0, 0, 0)
    assert again.reused == again.sections == len(before.sections)
    assert again.index_id != before.id

    page = site / "awards.md"
    page.write_text(page.read_text() + "\n## Community prize\n\nA new award, given in 2026.\n")
    (site / "uses.md").unlink()
    changed = build_index(site, target, embedder)
    after = load_index(target)
    assert changed.embedded == 1 and changed.removed > 0
    new_ids = {s.id for s in after.sections} - {s.id for s in before.sections}
    assert new_ids == {"awards#community-prize"}
    # reused rows are bit-identical to the old ones
    old_rows = {s.hash: before.vectors[i] for i, s in enumerate(before.sections)}
    for row, section in enumerate(after.sections):
        if section.hash in old_rows:
            assert np.array_equal(after.vectors[row], old_rows[section.hash])


def test_thresholds_survive_rebuilds_and_a_mismatched_embedder_is_refused(tmp_path: Path) -> None:
    site = copy_site(tmp_path)
    target = tmp_path / "index"
    small = HashEmbedder(32)
    build_index(site, target, small)
    store_thresholds(target, small.id, {"section": 0.42})
    build_index(site, target, small)
    assert load_index(target).thresholds(small.id) == {"section": 0.42}
    with pytest.raises(EmbedderMismatchError, match="built with embedder 'hash-32'.*'hash-16'"):
        load_index(target, "hash-16")
    with pytest.raises(EmbedderMismatchError, match="--rebuild"):
        build_index(site, target, HashEmbedder(16))
    assert build_index(site, target, HashEmbedder(16), rebuild=True).embedded > 0


def test_missing_or_corrupt_index_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(IndexDirError, match="no index at .*run `sitecite index`"):
        load_index(tmp_path / "nowhere")
    site = copy_site(tmp_path)
    build_index(site, tmp_path / "index", HashEmbedder(8))
    (tmp_path / "index" / "vectors.npy").write_bytes(b"garbage")
    with pytest.raises(IndexDirError, match="corrupt"):
        load_index(tmp_path / "index")


@pytest.mark.slow
def test_kill_9_mid_build_leaves_the_previous_index_loadable(
    tmp_path: Path, embedder: Embedder, example_index: Path
) -> None:
    site = copy_site(tmp_path)
    target = copy_index(example_index, tmp_path)
    previous = load_index(target)
    # a new page of 300 sections: seconds of embedding, however many cores the build uses
    notes = "\n".join(
        f"## Note {n}\n\nField note {n} mentions tram line {n * 7}.\n" for n in range(300)
    )
    (site / "notes.md").write_text(notes)

    process = subprocess.Popen(
        [sys.executable, "-m", "sitecite.cli", "index", str(site), "--index", str(target)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "SITECITE_PROGRESS": ""},
    )
    deadline = time.monotonic() + 180
    started = []  # the temporary index once its sections are written, before any embedding
    while not started and time.monotonic() < deadline:
        assert process.poll() is None, "the build finished before it could be killed"
        started = [p for p in tmp_path.glob(".index.tmp-*") if (p / "sections.jsonl").exists()]
        time.sleep(0.02)
    assert started, "the build never started writing"
    assert process.poll() is None and not (started[0] / "manifest.json").exists()
    process.send_signal(signal.SIGKILL)
    process.wait()

    survivor = load_index(target)
    assert survivor.id == previous.id
    assert [s.id for s in survivor.sections] == [s.id for s in previous.sections]
    assert np.array_equal(survivor.vectors, previous.vectors)

    report = build_index(site, target, embedder)
    assert not list(tmp_path.glob(".index.tmp-*")), (
        "the dead build's temporary directory is cleaned up"
    )
    assert load_index(target).id == report.index_id != previous.id
