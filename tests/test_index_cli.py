"""`sitecite index` output: progress that never sits silent, a summary with retention,
warnings naming file and line, machine-friendly `--json` and `--quiet`."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from sitecite.cli.progress import LineReporter

LOSSY = "## Start\n\nKept.\n\n<video src='/a.mp4'>\n\n" + "Lost prose words here, many.\n\n" * 20


def run_index(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    site = tmp_path / "site"
    if not site.exists():
        site.mkdir()
        (site / "about.md").write_text("# About\n\n## Work\n\nI build bridges in Porto.\n")
        (site / "lossy.mdx").write_text(LOSSY)
    env = {**os.environ, "SITECITE_EMBEDDER": "hash-32"}
    env.pop("SITECITE_PROGRESS", None)
    command = [sys.executable, "-m", "sitecite.cli", "index", str(site)]
    command += ["--index", str(tmp_path / "index"), *flags]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)


def test_summary_progress_and_warnings(tmp_path: Path) -> None:
    run = run_index(tmp_path)
    assert run.returncode == 0, run.stderr
    assert "prose words kept" in run.stdout and "1 warning(s)" in run.stdout
    assert "warning: lossy.mdx:7: only" in run.stderr
    for stage in ("reading 2 files", "embedding 2 new sections", "new sentences"):
        assert stage in run.stderr, stage


def test_json_is_one_object_with_per_file_retention(tmp_path: Path) -> None:
    run = run_index(tmp_path, "--json")
    report = json.loads(run.stdout)  # the whole of stdout: progress stays on stderr
    files = {f["file"]: f for f in report["files"]}
    assert files["about.md"]["retention"] == 1.0
    assert files["lossy.mdx"]["retention"] < 0.6
    assert files["lossy.mdx"]["words_read"] > files["lossy.mdx"]["words_kept"]
    assert report["warnings"] == [w for w in report["warnings"] if w.startswith("lossy.mdx:7:")]


def test_quiet_prints_only_problems(tmp_path: Path) -> None:
    run = run_index(tmp_path, "--quiet")
    assert run.returncode == 0 and run.stdout == ""
    assert run.stderr.splitlines() == [
        line for line in run.stderr.splitlines() if "warning" in line
    ]


def test_plain_progress_lines_have_count_rate_and_eta() -> None:
    out = io.StringIO()
    with LineReporter(out, every=0.0) as progress:
        progress.start("embedding 10 new sentences", 10)
        progress.advance(4)
    lines = out.getvalue().splitlines()
    assert lines[0] == "sitecite: embedding 10 new sentences ..."
    assert lines[1].startswith("sitecite: embedding 10 new sentences: 4/10 (")
    assert "/s, ETA " in lines[1]
    assert lines[-1].startswith("sitecite: embedding 10 new sentences: done, 4 in ")


def test_a_bad_route_rule_fails_before_anything_is_read(tmp_path: Path) -> None:
    run = run_index(tmp_path, "--route", "notes/(?P<slug>.+) => /{title}")
    assert run.returncode == 2
    assert "bad route rule 'notes/(?P<slug>.+) => /{title}': {title} is not a named group" in (
        run.stderr
    )
    assert not (tmp_path / "index").exists()


def test_the_owner_found_at_ingestion_is_kept_in_the_index(tmp_path: Path) -> None:
    """The owner's names let questions say "Tim" without it being what they ask about; an
    index built by the command must record them as one built by the library does."""
    site = tmp_path / "site"
    (site / "data" / "authors").mkdir(parents=True)
    (site / "data" / "authors" / "default.md").write_text(
        "---\nname: Timothy Lin\noccupation: Product Manager\n---\n\nI write about data.\n"
    )
    (site / "post.md").write_text("---\ntitle: A post\nauthors: [default]\n---\n\nHello.\n")
    run = run_index(tmp_path, "--quiet")
    assert run.returncode == 0, run.stderr
    manifest = json.loads((tmp_path / "index" / "manifest.json").read_text())
    assert manifest["identity"]["owner"] == "Timothy Lin"


def test_the_preset_and_the_files_left_out_are_printed(tmp_path: Path) -> None:
    import shutil

    from conftest import REPO

    shutil.copytree(REPO / "tests" / "data" / "sites" / "docusaurus", tmp_path / "site")
    run = run_index(tmp_path)
    assert run.returncode == 0, run.stderr
    assert "route preset docusaurus (website/docusaurus.config.js" in run.stderr
    assert "left out website/docs/wip.md: a draft (front matter draft: true)" in run.stderr
    assert "2 left out (not published)" in run.stdout
    quiet = run_index(tmp_path, "--json")
    report = json.loads(quiet.stdout.strip().splitlines()[-1])
    assert any(item.startswith("website/docs/wip.md: a draft") for item in report["skipped"])
    assert "left out" not in quiet.stderr


def test_a_folder_no_preset_recognises_is_warned_about_even_when_quiet(tmp_path: Path) -> None:
    run = run_index(tmp_path, "--quiet")
    assert "warning: no route preset matched" in run.stderr
