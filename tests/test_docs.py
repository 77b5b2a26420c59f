"""docs/ is the contract: every command-line flag and every setting is described there, and
the README and `--help` point to it. The README's quick start runs: its commands parse, name
files that exist, and its questions get the outcome and first citation it shows."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

from conftest import REPO

from sitecite.cli import build_parser
from sitecite.config import all_keys, load_settings
from sitecite.generate.pointer import CLOSEST_SAYS, NO_DIRECT_ANSWER
from sitecite.pipeline import REFUSAL, Engine, answer
from sitecite.types import Outcome

DOCS = REPO / "docs"


def docs_text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_flag_of_every_command_is_in_the_cli_docs() -> None:
    cli = docs_text("cli.md")
    parser = build_parser()
    missing = [f for f in parser._actions for f in f.option_strings if f.startswith("--")]
    missing = [flag for flag in missing if flag != "--help" and f"`{flag}" not in cli]
    for name, sub in subparsers(parser).items():
        section = cli.split(f"## `sitecite {name}`", 1)
        assert len(section) == 2, f"docs/cli.md has no section for `sitecite {name}`"
        body = section[1].split("\n## ", 1)[0]
        for action in sub._actions:
            for flag in action.option_strings:
                if flag.startswith("--") and flag != "--help" and f"`{flag}" not in body:
                    missing.append(f"{name} {flag}")
    assert not missing, f"flags missing from docs/cli.md: {missing}"


def test_every_setting_is_in_the_settings_docs() -> None:
    documented = set(re.findall(r"`([a-z_]+(?:\.[a-z_]+)?)`", docs_text("settings.md")))
    missing = sorted(set(all_keys()) - documented)
    assert not missing, f"settings missing from docs/settings.md: {missing}"


def test_readme_and_help_point_to_the_docs() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "DESIGN.md" not in readme
    for page in ("docs/cli.md", "docs/settings.md", "docs/answer.md", "docs/http.md"):
        assert page in readme, page
        assert (REPO / page).exists(), page
    assert "docs/" in build_parser().format_help()
    links = re.findall(r"\]\(([a-z-]+\.md)\)", docs_text("README.md"))
    assert links and all((DOCS / link).exists() for link in links)


def readme_section(heading: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    parts = readme.split(f"\n## {heading}\n", 1)
    assert len(parts) == 2, f"the README has no section '{heading}'"
    return parts[1].split("\n## ", 1)[0]


def test_readme_links_land_and_it_stays_short() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert readme.count("\n") <= 250, "the README is the installing user's page: 250 lines at most"
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    missing = [link for link in links if "://" not in link and not (REPO / link).exists()]
    assert links and not missing, f"README links to missing files: {missing}"


def test_every_setting_in_the_readme_table_exists() -> None:
    rows = [line for line in readme_section("Settings").splitlines() if line.startswith("| `")]
    keys = [key for row in rows for key in re.findall(r"`([a-z_.]+)`", row.split(" | ")[0])]
    assert len(keys) >= 10
    unknown = sorted(set(keys) - set(all_keys()))
    assert not unknown, f"the README's settings table names unknown settings: {unknown}"


def quick_start() -> list[tuple[list[str], list[str]]]:
    """Each `$ sitecite ...` line of the README's quick start, split as a shell would, with
    the output lines shown under it."""
    session: list[tuple[list[str], list[str]]] = []
    for line in readme_section("Quick start").splitlines():
        if line.startswith("    $ "):
            session.append((shlex.split(line[6:]), []))
        elif line.startswith("    ") and session:
            session[-1][1].append(line[4:])
    return session


def test_the_quick_start_commands_parse_and_name_real_files() -> None:
    session = quick_start()
    commands = [argv[1] for argv, _ in session]
    assert commands[:2] == ["index", "calibrate"] and {"ask", "eval", "serve"} <= set(commands)
    parser = build_parser()
    for argv, _ in session:
        assert argv[0] == "sitecite", argv
        parser.parse_args(argv[1:])  # an unknown flag exits with status 2
        for arg in argv[2:]:
            if arg.startswith("examples/"):
                assert (REPO / arg).exists(), arg


def test_the_quick_start_questions_get_the_answers_shown(example_index: Path) -> None:
    """The README shows an answer, a pointed reply and a refusal: each question gets that
    outcome, citing first the section shown (the example index has no base URL)."""
    engine = Engine.load(example_index, load_settings({}, config_file=None, environ={}))
    asked = [(argv[2], out) for argv, out in quick_start() if argv[1] == "ask"]
    shown = set()
    for question, out in asked:
        if out[0] == REFUSAL:
            expected = Outcome.REFUSED
        elif out[0] == NO_DIRECT_ANSWER or out[0].startswith(CLOSEST_SAYS):
            expected = Outcome.POINTED
        else:
            expected = Outcome.ANSWERED
        shown.add(expected)
        result, _ = answer(engine, question)
        assert result.outcome == expected, (question, result.answer)
        first = next((line for line in out if line.startswith("[1] ")), None)
        if expected != Outcome.REFUSED:
            assert first is not None and result.citations, question
            url = first.rsplit(" — ", 1)[1].removeprefix("https://noorhaddad.example")
            assert result.citations[0].url == url, (question, result.citations[0].url)
    assert shown == set(Outcome), "the quick start shows an answer, a pointed reply and a refusal"
