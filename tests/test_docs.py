"""docs/ is the contract: every command-line flag and every setting is described there, and
the README and `--help` point to it."""

from __future__ import annotations

import argparse
import re

from conftest import REPO

from sitecite.cli import build_parser
from sitecite.config import all_keys

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
