"""One question-length limit for every entry point: `sitecite ask`, `POST /api/ask` and
`sitecite eval` hold a question to `serve.max_question_chars` with the same error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx
import pytest
from conftest import EXAMPLE_QUESTIONS

from sitecite.cli import main
from sitecite.config import load_settings
from sitecite.pipeline import Engine
from sitecite.serve.server import serve_in_thread

LONG = "Where did she work before she went freelance, " * 120  # about 5,500 characters


def test_cli_and_server_give_the_same_error(
    example_index: Path, engine: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", LONG, "--index", str(example_index), "--json"]) == 2
    captured = capsys.readouterr()
    printed = json.loads(captured.out)
    assert printed["error"]["code"] == "question_too_long"
    assert captured.err.strip() == (
        f"sitecite: error: question_too_long: {printed['error']['message']}"
    )
    assert main(["ask", LONG, "--index", str(example_index)]) == 2
    assert "question_too_long" in capsys.readouterr().err
    settings = load_settings({"serve.rate_limit_per_minute": 0}, config_file=None, environ={})
    with serve_in_thread(example_index, settings, engine) as url:
        served = httpx.post(f"{url}/api/ask", json={"question": LONG})
    assert served.status_code == 422 and served.json() == printed


def test_a_lower_limit_holds_everywhere(
    example_index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "sitecite.toml"
    config.write_text("[serve]\nmax_question_chars = 30\n")
    question = "Which city and country is she based in?"  # 39 characters
    assert main(["--config", str(config), "ask", question, "--index", str(example_index)]) == 2
    assert "the limit is 30" in capsys.readouterr().err


def test_eval_records_the_refusal_a_visitor_would_get(example_index: Path, tmp_path: Path) -> None:
    questions = json.loads(EXAMPLE_QUESTIONS.read_text())
    chosen = [q for q in questions["questions"] if q["expect"] == "answer"][:1]
    too_long = {**chosen[0], "id": "long-1", "question": LONG, "expect": "refuse"}
    subset = tmp_path / "questions.json"
    subset.write_text(json.dumps({**questions, "questions": [*chosen, too_long]}))
    index = tmp_path / "index"
    shutil.copytree(example_index, index)
    out = tmp_path / "results.json"
    assert main(["eval", str(subset), "--index", str(index), "--out", str(out), "--quiet"]) == 0
    results = {q["id"]: q for q in json.loads(out.read_text())["questions"]}
    long_result = results["long-1"]
    assert long_result["refused"] and long_result["outcome"] == "refused"
    assert long_result["refusal_reason"] == "question_too_long"
    assert long_result["passed"], "a question set may expect the refusal"
    assert "the limit is 500" in long_result["answer"]
    assert results[chosen[0]["id"]]["outcome"] in ("answered", "pointed", "refused")
