"""The dashboard on a database of perftui 0.1 (layout 7, the fixture its own store wrote):
it says it will convert and asks; yes converts and lists every project, no writes nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from perftui.tui.app import create_app
from perftui.tui.kit.dialogs import ConfirmScreen, StoreErrorScreen
from perftui.tui.projects.screen import ProjectsScreen
from tests.store_helpers import tree
from tests.tui.waiting import wait_for

FIXTURE = Path(__file__).parents[1] / "fixtures" / "layout7"


def old_database(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "db", symlinks=True)
    return tmp_path / "db" / "perftui.json"


async def test_yes_converts_and_lists_every_project(tmp_path: Path, services) -> None:
    path = old_database(tmp_path)
    manifest = json.loads((FIXTURE / "manifest.json").read_text())
    expected = sorted(entry["project"]["name"] for entry in manifest["projects"])
    app = create_app(path, services)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "Convert this database?" in app.screen.question
        assert "perftui 0.1" in app.screen.detail
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, ProjectsScreen))
        await wait_for(pilot, lambda: app.screen.query_one("#projects").row_count > 0)
        table = app.screen.query_one("#projects")
        shown = sorted(str(table.get_row_at(i)[0]).strip() for i in range(table.row_count))
    assert shown == expected
    assert (path.parent / "perftui.json.layout7").is_dir()  # the old files, kept


async def test_no_leaves_every_file_as_it_was(tmp_path: Path, services) -> None:
    path = old_database(tmp_path)
    before = tree(tmp_path)
    app = create_app(path, services)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, StoreErrorScreen))
    assert tree(tmp_path) == before
