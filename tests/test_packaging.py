"""pyproject.toml declares what perftui imports, and the version is written once
(perftui/__init__.py), which the package's metadata takes."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import warnings
from pathlib import Path

import pytest

import perftui

tomllib = pytest.importorskip("tomllib")
ROOT = Path(__file__).resolve().parents[1]


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _imported_top_names() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "perftui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"perftui"}


def test_every_library_perftui_imports_is_a_declared_dependency() -> None:
    declared = {
        re.split(r"[<>=!~ \[;]", spec, maxsplit=1)[0].lower().replace("_", "-")
        for spec in _project()["project"]["dependencies"]
    }
    distributions = importlib.metadata.packages_distributions()
    missing = {}
    for name in sorted(_imported_top_names()):
        dists = {d.lower().replace("_", "-") for d in distributions.get(name, [name])}
        if not dists & declared:
            missing[name] = sorted(dists)
    assert "rich" in _imported_top_names()
    assert not missing, f"imported but not in pyproject's dependencies: {missing}"


def test_the_version_is_written_once() -> None:
    project = _project()
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "perftui.__version__"
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", perftui.__version__)
    source = (ROOT / "perftui" / "__init__.py").read_text(encoding="utf-8")
    assert f'__version__ = "{perftui.__version__}"' in source


def test_the_build_takes_the_version_from_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    config = pytest.importorskip("setuptools.config.pyprojecttoml")
    with warnings.catch_warnings():  # "[tool.setuptools] is still beta"
        warnings.simplefilter("ignore")
        monkeypatch.chdir(ROOT)  # the attribute is found from the project's folder
        read = config.read_configuration(ROOT / "pyproject.toml", expand=True)
    assert read["project"]["version"] == perftui.__version__
