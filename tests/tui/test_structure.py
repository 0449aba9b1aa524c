"""The dashboard's layout rules (ARCHITECTURE: tui/ by feature), checked on the source:

- a feature folder (projects, benchmark, detail, compare, optimize) imports no other
  feature folder; what features share lives in tui/kit, which imports no feature;
- a module that defines a screen is imported by tui/app.py only: screens move between each
  other through the app's verbs (`self.app.open_project(name)`), never by importing;
- no file of the dashboard is over 400 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import perftui.tui

TUI = Path(perftui.tui.__file__).parent
FEATURES = tuple(
    sorted(p.name for p in TUI.iterdir() if p.is_dir() and p.name not in ("kit", "__pycache__"))
)
"""Every folder of tui/ but kit/ is a feature (derived, so a new one is held to the rules)."""
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = path.relative_to(TUI.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module `path` imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def defines_screen(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                name = ast.unparse(base).split("[")[0].rsplit(".", 1)[-1]
                if name.endswith("Screen") and name != "FollowingScreen":
                    return True
    return False


def sources() -> list[Path]:
    return sorted(TUI.rglob("*.py"))


def feature_of(module: str) -> str | None:
    """The dashboard feature a module belongs to (perftui.domain.compare is no feature)."""
    parts = module.split(".")
    in_tui = parts[:2] == ["perftui", "tui"]
    return parts[2] if in_tui and len(parts) > 2 and parts[2] in FEATURES else None


def test_features_import_no_other_feature_and_kit_imports_none():
    for path in sources():
        module = module_name(path)
        own = feature_of(module)
        for imported in imports(path):
            other = feature_of(imported)
            if other is None or other == own:
                continue
            assert own is None and not module.startswith("perftui.tui.kit"), (
                f"{module} imports {imported}: features share through perftui.tui.kit"
            )


def test_only_the_app_imports_screens():
    screens = {
        module_name(path)
        for path in sources()
        if feature_of(module_name(path)) is not None and defines_screen(path)
    }
    assert "perftui.tui.detail.screen" in screens and "perftui.tui.compare.setup" in screens
    importers = [*sources(), *(TUI.parent / "cli").rglob("*.py")]
    for path in importers:
        module = module_name(path)
        if module == "perftui.tui.app":
            continue
        wrong = {i for i in imports(path) if i in screens or i.rsplit(".", 1)[0] in screens}
        assert not wrong, f"{module} imports the screen module(s) {sorted(wrong)}"


def test_no_dashboard_file_is_over_400_lines():
    for path in sorted(p for p in TUI.rglob("*") if p.suffix in (".py", ".tcss")):
        lines = len(path.read_text().splitlines())
        assert lines <= MAX_LINES, f"{path.relative_to(TUI)}: {lines} lines"


def test_field_rows_are_built_one_way():
    """A labelled field row (label, field, note) is built by kit/forms.field_row; the new
    project form alone lays out two fields a row (engine and device, name and target)."""
    allowed = {TUI / "kit" / "forms.py", TUI / "projects" / "new_project.py"}
    for path in sources():
        if path not in allowed:
            assert 'classes="form-label' not in path.read_text(), (
                f"{path.relative_to(TUI)} builds a field row: use kit/forms.field_row"
            )
