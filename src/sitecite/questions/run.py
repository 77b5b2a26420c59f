"""`sitecite questions` as one library call: load the index, write, validate, save."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from sitecite.config import Settings
from sitecite.errors import InputError
from sitecite.eval.questions import index_source_ids, parse_question_set
from sitecite.pipeline import Engine
from sitecite.questions.generate import Plan, Writer, generate_questions
from sitecite.questions.model import GeneratedSet


def write_questions(
    index_dir: str | Path,
    out: str | Path,
    plan: Plan,
    settings: Settings,
    *,
    llm: bool = False,
    writer: Writer | None = None,
) -> GeneratedSet:
    """Write the question set for the index at `index_dir` to `out` (atomically), after
    checking it loads as `sitecite eval` loads it; returns it for the report."""
    plan.check()
    if writer is None and llm:
        from sitecite.questions.llm import writer_from_settings

        writer = writer_from_settings(settings)
    engine = Engine.load(index_dir, settings)
    try:
        made = generate_questions(engine, plan, writer)
        data = made.to_json()
        parse_question_set(data, index_source_ids(engine.index.sections), source=str(out))
    finally:
        close = getattr(writer, "close", None)
        if close is not None:
            close()
        engine.close()
    _write_atomic(Path(out), json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    return made


def _write_atomic(target: Path, text: str) -> None:
    """Write beside the target, then rename over it: a crash never leaves half a set."""
    if not target.parent.is_dir():
        raise InputError(f"{target}: the folder {target.parent} does not exist")
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, target)
