"""The layers: domain/, store/, inspection/, engines/ and bench/ never import textual, start-up
stays light, domain/ imports no other layer, and perftui's packages import each other without
a cycle."""

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "perftui"

MODULES = [
    "perftui.domain.records",
    "perftui.domain.measurement.stats",
    "perftui.domain.forms.options",
    "perftui.domain.measurement.summary",
    "perftui.domain.model.model_info",
    "perftui.domain.model.profile",
    "perftui.store",
    "perftui.exchange.documents",
    "perftui.exchange.benchmark_app",
    "perftui.inspection",
    "perftui.engines",
    "perftui.bench.client",
    "perftui.bench.worker",
    "perftui.bench.plan",
    "perftui.cli",
]
"""Importing these (and the modules they import) must stay free of textual and engine libraries;
the engine modules (perftui.engines.ort_*, openvino_*) are loaded by `get_engine` only."""

DOMAIN_MUST_NOT_IMPORT = {
    "store",
    "exchange",
    "inspection",
    "engines",
    "bench",
    "optimize",
    "cli",
    "tui",
}


@cache
def loaded_after_import(module: str) -> frozenset[str]:
    code = f"import sys, {module}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return frozenset(out.stdout.split())


def test_core_layers_never_import_textual():
    for module in MODULES:
        loaded = loaded_after_import(module)
        assert not any(m == "textual" or m.startswith("textual.") for m in loaded), module


def test_engine_libraries_load_only_when_an_engine_is_asked_for():
    for module in MODULES:
        loaded = loaded_after_import(module)
        assert "openvino" not in loaded and "onnxruntime" not in loaded, module


def _module_name(path: Path) -> list[str]:
    parts = ["perftui", *path.relative_to(PACKAGE).with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imported_modules(path: Path) -> set[str]:
    """Every perftui module a file imports, at the top or inside functions (TYPE_CHECKING too),
    relative imports resolved."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return {m for m in found if m.split(".")[0] == "perftui"}


def _top_level(module: str) -> str | None:
    """The top-level package or module of perftui that `module` belongs to (None: perftui)."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    name = parts[1]
    exists = (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").is_file()
    return name if exists else None


def package_graph() -> dict[str, set[str]]:
    """Top-level package of perftui -> the other top-level packages it imports."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _top_level(".".join(_module_name(path)))
        if source is None:
            continue
        targets = {_top_level(m) for m in _imported_modules(path)}
        graph.setdefault(source, set()).update(t for t in targets if t and t != source)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path [a, b, ..., a], or None."""
    state: dict[str, str] = {}
    trail: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        trail.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return [*trail[trail.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        state[node] = "done"
        trail.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_import_cycle_between_packages():
    graph = package_graph()
    assert {"domain", "store", "inspection", "engines", "bench", "cli", "tui"} <= set(graph)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def store_graph() -> dict[str, set[str]]:
    """Module of perftui.store -> the modules of it that it imports when it runs (imports
    for type hints alone left out)."""
    graph: dict[str, set[str]] = {}
    for path in sorted((PACKAGE / "store").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hints = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
            for statement in node.body
            for inner in ast.walk(statement)
        }
        found = set()
        for node in ast.walk(tree):
            if id(node) in hints or not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            if node.module == "perftui.store":
                found.update(alias.name for alias in node.names)
            elif node.module.startswith("perftui.store."):
                found.add(node.module.split(".")[2])
        graph[path.stem] = found - {path.stem}
    return graph


def test_the_store_s_modules_import_each_other_without_a_cycle():
    graph = store_graph()
    assert {"database", "reader", "write", "convert"} <= set(graph)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_old_layout_is_known_to_the_converter_alone():
    """perftui.store.upgrade reads layout 7, perftui.store.convert stores what it reads; the
    reader asks it only to say which command converts a database."""
    users = {
        path.stem
        for path in (PACKAGE / "store").glob("*.py")
        if "upgrade" in path.read_text(encoding="utf-8") and path.stem != "upgrade"
    }
    assert users == {"convert", "reader"}


def test_the_write_path_lives_in_one_module():
    """Only perftui.store.write replaces the database's files (the lock aside)."""
    writers = {
        path.stem
        for path in (PACKAGE / "store").glob("*.py")
        if "os.replace(" in path.read_text(encoding="utf-8")
        or "atomic_write_bytes(" in path.read_text(encoding="utf-8")
    }
    assert writers <= {"write", "files", "convert"}


def test_domain_imports_no_other_layer():
    wrong = []
    for path in sorted((PACKAGE / "domain").rglob("*.py")):
        for module in sorted(_imported_modules(path)):
            if _top_level(module) in DOMAIN_MUST_NOT_IMPORT:
                wrong.append(f"{path.relative_to(PACKAGE.parent)} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_listing_loads_no_numpy(tmp_path: Path):
    """`perftui --help` and `perftui projects` (the parser, the store's reads, the text
    tables) run without numpy: it loads only where samples are computed with."""
    code = (
        "import sys; from perftui.cli.entry import main;"
        f" main(['projects', '--db', {str(tmp_path / 'db.json')!r}]);"
        " import perftui.exchange.documents, perftui.cli.textfmt;"
        " print('\\n'.join(sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "numpy" not in out.stdout.split()


def test_the_optimize_form_loads_only_the_domain_and_the_runner():
    """The dashboard imports perftui.optimize.form: nothing heavier than its docstring says
    (the runner reads its child's events through perftui.bench.protocol, which loads no
    numpy)."""
    loaded = loaded_after_import("perftui.optimize.form")
    ours = {m for m in loaded if m.split(".")[0] == "perftui"}
    allowed = {"perftui", "perftui.processes", "perftui.optimize", "perftui.optimize.runner"}
    allowed |= {"perftui.bench", "perftui.bench.protocol"}
    assert {m for m in ours if not m.startswith("perftui.domain")} == allowed | {
        "perftui.optimize.form"
    }
    assert not loaded & {"numpy", "onnx", "onnxruntime", "openvino", "textual"}


ENGINE_NAMES = ("openvino", "onnxruntime")
"""perftui.engines.ENGINES, spelled out: the scan must not depend on the code it checks."""

NAMES_AN_ENGINE = {
    "domain/compare/environments.py": "the environment record's stored keys: each engine's "
    "version under its name (tests/test_capabilities.py: a row per engine)",
    "domain/forms/quickstart.py": "data: which engine each shipped sample project runs on",
    "exchange/benchmark_app.py": "benchmark_app is OpenVINO's tool: its reports are OpenVINO runs",
}
"""The modules outside perftui/engines/ that name an engine in their code, each with its
reason; none of them decides by the name what an engine can do."""


def _engine_names(path: Path) -> list[int]:
    """The lines of `path` whose code (docstrings aside) spells an engine's name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return sorted(
        {
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and node.value in ENGINE_NAMES
            and id(node) not in docstrings
        }
    )


def test_no_code_outside_the_engines_decides_by_an_engine_s_name():
    """What an engine can do is asked of its capabilities (perftui.engines.capabilities): a
    module outside engines/ that spells an engine's name is one of NAMES_AN_ENGINE, for its
    reason, and each of those still does (the list stays true)."""
    found = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "engines" and (lines := _engine_names(path))
    }
    unexplained = {
        module: lines for module, lines in found.items() if module not in NAMES_AN_ENGINE
    }
    assert not unexplained, f"ask perftui.engines.capabilities instead: {unexplained}"
    stale = set(NAMES_AN_ENGINE) - set(found)
    assert not stale, f"no longer names an engine; take it off NAMES_AN_ENGINE: {stale}"
