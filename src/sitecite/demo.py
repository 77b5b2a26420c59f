"""`sitecite demo`: index the bundled example site if needed, calibrate it, then serve it (or
ask three example questions and print the answers with their citations)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

from sitecite.config import Settings, load_settings
from sitecite.errors import SiteciteError

# an answer, an answer from the profile, a question the site is near but does not answer (the
# closest sections are pointed at), and one it is nowhere near (the site doesn't say)
EXAMPLE_QUESTIONS = (
    "How did she stop shoppers from getting charged twice when they double-clicked pay?",
    "Which city and country is she based in?",
    "Which university did Noor study computer science at?",
    "What is the boiling point of tungsten?",
)


def example_dir() -> Path:
    """The repository's examples/ folder (the demo runs from a checkout of the project)."""
    candidates = [Path(__file__).resolve().parents[2] / "examples", Path.cwd() / "examples"]
    for candidate in candidates:
        if (candidate / "site").is_dir():
            return candidate
    raise SiteciteError(
        "the example site (examples/site) was not found; run the demo from a checkout "
        "of the sitecite repository"
    )


def prepare_example_index(index_dir: str | Path, settings: Settings, out: TextIO) -> Path:
    """Build (incrementally) and calibrate the example site's index; returns its path."""
    from sitecite.calibrate import calibrate
    from sitecite.embed import embedder_for
    from sitecite.index.build import build_index
    from sitecite.index.store import read_manifest
    from sitecite.pipeline import Engine

    examples = example_dir()
    index_path = Path(index_dir)
    embedder = embedder_for(settings, os.cpu_count() or 1)
    print(f"indexing {examples / 'site'} into {index_path} ...", file=out, flush=True)
    report = build_index(examples / "site", index_path, embedder, base_url=settings.index.base_url)
    print(
        f"  {report.sections} sections ({report.embedded} embedded, {report.reused} unchanged) "
        f"in {report.seconds:.1f} s",
        file=out,
        flush=True,
    )
    if embedder.id not in read_manifest(index_path).get("thresholds", {}):
        print("calibrating thresholds on examples/calibration.json ...", file=out, flush=True)
        engine = Engine.load(index_path, settings)
        result = calibrate(engine, examples / "calibration.json")
        print(
            f"  section gate {result.section:.3f}, coverage {result.coverage:.2f}",
            file=out,
            flush=True,
        )
    return index_path


def run_demo(
    index_dir: str | Path,
    host: str,
    port: int,
    serve: bool,
    out: TextIO,
    settings: Settings | None = None,
) -> int:
    settings = settings or load_settings({})
    index_path = prepare_example_index(index_dir, settings, out)
    bait_example(index_path, settings, out)
    if serve:
        from sitecite.serve import run_server

        def ready(url: str) -> None:
            print(
                f"sitecite is serving the example site at {url}  (press Ctrl+C to stop)",
                file=out,
                flush=True,
            )

        run_server(index_path, settings, host, port, on_ready=ready)
        return 0
    from sitecite.pipeline import Engine, answer

    engine = Engine.load(index_path, settings)
    for question in EXAMPLE_QUESTIONS:
        result, _ = answer(engine, question)
        print(f"\nQ: {question}\n{result.to_text()}", file=out, flush=True)
    return 0


def bait_example(index_path: Path, settings: Settings, out: TextIO, count: int = 6) -> None:
    """Write bait for the example site (`sitecite questions`), ask it, and print what it did."""
    from sitecite.pipeline import Engine, answer
    from sitecite.questions import Plan, generate_questions

    engine = Engine.load(index_path, settings)
    made = generate_questions(engine, Plan(answerable=0, bait=count, adversarial=0))
    print(f"baiting it with {len(made.questions)} questions the site does not answer:", file=out)
    answered = 0
    for candidate in made.questions:
        result, _ = answer(engine, candidate.question)
        answered += not result.refused  # a pointed reply gives no answer: the bait was refused
        outcome = str(result.outcome) if result.refused else "ANSWERED"
        print(f"  {outcome:<8}  {candidate.question}", file=out, flush=True)
    print(f"  baited {len(made.questions)} times, answered {answered}", file=out, flush=True)
