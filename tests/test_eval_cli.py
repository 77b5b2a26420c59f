"""`sitecite eval` from the command line; a run killed with SIGKILL that `--resume` completes."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sitecite.cli import main
from sitecite.embed import HashEmbedder

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = str(REPO / "examples" / "questions.json")


@pytest.fixture(scope="module")
def hash_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sitecite.index.build import build_index

    target = tmp_path_factory.mktemp("cli") / "index"
    build_index(REPO / "examples" / "site", target, HashEmbedder(64))
    return target


@pytest.fixture()
def hash_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SITECITE_EMBEDDER", "hash-64")
    monkeypatch.chdir(tmp_path)  # no sitecite.toml from the developer's checkout


def test_help_lists_all_three_forms(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["eval", "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    for expected in (
        "sitecite eval Q.json --index DIR",
        "compare RUN_A RUN_B",
        'note RUN "TEXT"',
        "--fail-under",
        "--junit",
        "--resume",
        "--repeat",
        "--report",
    ):
        assert expected in text


def test_run_compare_note(
    hash_index: Path, hash_env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, lab, junit = tmp_path / "r.json", tmp_path / "lab.html", tmp_path / "r.xml"
    code = main(
        [
            "eval",
            QUESTIONS,
            "--index",
            str(hash_index),
            "--out",
            str(out),
            "--report",
            str(lab),
            "--junit",
            str(junit),
            "--fail-under",
            "adversarial=1.0",
            "--quiet",
        ]
    )
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "hit@8" in printed.out and "by category" in printed.out and "run 1:" in printed.out
    results = json.loads(out.read_text())
    assert set(results) >= {"run", "summary", "questions"}
    assert set(results["run"]) >= {
        "id",
        "started",
        "finished",
        "git_commit",
        "index",
        "embedder",
        "generator",
        "judge",
        "threshold",
        "k",
        "question_set",
    }
    assert set(results["summary"]) >= {
        "hit@8",
        "mrr",
        "ndcg@8",
        "recall@8",
        "by_category",
        "passed",
        "total",
        "refusal",
        "latency_ms",
        "tokens",
    }
    assert len(results["questions"]) == 66
    assert set(results["summary"]["attacks"]) == {
        "prompt-injection",
        "identity-override",
        "prompt-extraction",
        "false-premise",
        "private-data",
    }
    assert lab.read_text().startswith("<!doctype html>") and junit.exists()

    assert (
        main(
            [
                "eval",
                QUESTIONS,
                "--index",
                str(hash_index),
                "--out",
                str(tmp_path / "r2.json"),
                "--fail-under",
                "passed=1.0,hit@8=1.0",
                "--quiet",
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert "below the bar" in err and "passed" in err and len(err.strip().splitlines()) == 1

    assert main(["eval", "compare", "1", "2", "--index", str(hash_index)]) == 0
    assert "no question changed outcome" in capsys.readouterr().out
    assert main(["eval", "compare", str(out), str(tmp_path / "r2.json"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["paired"] == 66

    assert (
        main(
            [
                "eval",
                "note",
                "latest",
                "rerun after fixing the scoring rule",
                "--index",
                str(hash_index),
            ]
        )
        == 0
    )
    assert "noted on run 2" in capsys.readouterr().out
    from sitecite.eval import latest_lab_html

    assert "rerun after fixing the scoring rule" in (latest_lab_html(hash_index) or "")


def test_errors_are_one_line_with_a_status(
    hash_index: Path, hash_env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", QUESTIONS]) == 2
    assert "--index DIR is required" in capsys.readouterr().err
    assert main(["eval", "compare", "1"]) == 2
    assert "compare needs two runs" in capsys.readouterr().err
    assert main(["eval", "note", "99", "text", "--index", str(hash_index)]) == 2
    assert "no run '99'" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "questions": [
                    {
                        "id": "g-1",
                        "question": "q?",
                        "category": "grounding",
                        "expected_sources": ["nowhere"],
                    }
                ]
            }
        )
    )
    assert main(["eval", str(bad), "--index", str(hash_index)]) == 2
    assert "question 'g-1': unknown source 'nowhere'" in capsys.readouterr().err
    assert main(["eval", QUESTIONS, "--index", str(hash_index), "--fail-under", "hit@8"]) == 2
    assert "NAME=VALUE" in capsys.readouterr().err


def _rows(database: Path) -> dict[tuple[str, int], str]:
    if not database.exists():
        return {}
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as db:
            return {
                (q, r): stamp
                for q, r, stamp in db.execute("SELECT question_id, repeat, finished FROM results")
            }
    except sqlite3.OperationalError:
        return {}  # the schema is not written yet


@pytest.mark.slow
def test_kill_9_loses_nothing_and_resume_completes(hash_index: Path, tmp_path: Path) -> None:
    import shutil

    index = tmp_path / "index"
    shutil.copytree(hash_index, index)
    database = tmp_path / "index.runs.sqlite"
    env = {**os.environ, "SITECITE_EMBEDDER": "hash-64", "SITECITE_EVAL_REQUESTS_PER_MINUTE": "900"}
    command = [
        sys.executable,
        "-m",
        "sitecite.cli",
        "eval",
        QUESTIONS,
        "--index",
        str(index),
        "--quiet",
    ]
    victim = subprocess.Popen(
        command, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while len(_rows(database)) < 8:
        assert victim.poll() is None, victim.stderr.read().decode() if victim.stderr else "exited"
        assert time.monotonic() < deadline, "the run never got going"
        time.sleep(0.02)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(timeout=10)
    assert victim.returncode == -signal.SIGKILL
    before = _rows(database)
    assert 8 <= len(before) < 66

    env.pop("SITECITE_EVAL_REQUESTS_PER_MINUTE")
    out = tmp_path / "r.json"
    finished = subprocess.run(
        [*command, "--resume", "--out", str(out)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert finished.returncode == 0, finished.stderr
    assert "resumed run 1" in finished.stdout
    after = _rows(database)
    assert len(after) == 66
    assert all(
        after[key] == stamp for key, stamp in before.items()
    )  # finished questions were not redone
    results = json.loads(out.read_text())
    assert results["run"]["id"] == "1" and len(results["questions"]) == 66
    assert [q["id"] for q in results["questions"]] == [
        q["id"] for q in json.loads(Path(QUESTIONS).read_text())["questions"]
    ]
