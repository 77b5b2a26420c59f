"""The layering of STYLE.md holds (import-linter), and the public API is what __all__ says."""

from __future__ import annotations

import ast
import shutil
import subprocess

import pytest
from conftest import REPO

import sitecite


def test_lower_layers_never_import_higher_ones() -> None:
    lint = shutil.which("lint-imports")
    if lint is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    run = subprocess.run([lint], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_no_module_imports_itself_through_others() -> None:
    """No import cycle between any two modules of sitecite, a package and its own modules
    included (import-linter's acyclic_siblings contract sees siblings only)."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("sitecite")
    cycles = set()
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back:
                cycles.add(" -> ".join((importer, *back)))
    assert not cycles, "import cycles:\n" + "\n".join(sorted(cycles))


def test_public_api_is_exported() -> None:
    for name in sitecite.__all__:
        assert getattr(sitecite, name) is not None
    with pytest.raises(AttributeError):
        sitecite.not_a_thing  # noqa: B018


def test_scripts_import_as_packages_without_path_tricks() -> None:
    """bench/ and training/ run as modules (`python -m bench.speed`): no `sys.path` edits and
    nothing imported from tests/ (what both need lives in bench/ or the package)."""
    test_modules = {path.stem for path in (REPO / "tests").glob("*.py")}
    found = []
    for folder in ("bench", "training"):
        for path in sorted((REPO / folder).glob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr == "path"
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "sys"
                ):
                    found.append(f"{folder}/{path.name}:{node.lineno}: sys.path")
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                for name in names:
                    if name.split(".")[0] in test_modules | {"tests"}:
                        found.append(f"{folder}/{path.name}:{node.lineno}: imports {name}")
    assert not found, "\n".join(found)
