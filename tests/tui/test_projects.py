"""Projects (home) screen: table, create/open/benchmark/rename/delete, samples, store errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static

from perftui.store.database import Store
from perftui.tui.app import create_app
from perftui.tui.benchmark.configure import BenchmarkConfigScreen
from perftui.tui.benchmark.live import LiveRunScreen
from perftui.tui.detail.screen import ProjectDetailScreen
from perftui.tui.kit.dialogs import ConfirmScreen, HelpScreen, PromptScreen, StoreErrorScreen
from perftui.tui.projects.new_project import NewProjectScreen
from perftui.tui.projects.screen import ProjectsScreen
from tests.store_helpers import build, folder_outside, missing_part, tree
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui


def rows(app) -> list[list[str]]:
    table = app.screen.query_one("#projects", DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def test_table_lists_projects_with_their_best_results(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ProjectsScreen)
        table = rows(app)
        names = [row[0].strip() for row in table]
        assert names == ["empty-project", "net-fp32", "net-int8"]
        fp32 = table[1]
        assert fp32[1] == "net_fp32.onnx" and fp32[2] == "openvino"
        assert fp32[4] == "FP32/I8"  # from the newest profile
        assert fp32[5] == "540" and fp32[8] == "5"
        assert fp32[6] == "~"  # the verdict of the run of the best throughput: noisy
        assert fp32[7] == "2.63 ±0%"  # the best median with its interval
        assert fp32[9] == "03-01 10:00"
        assert table[0][5] == "—" and table[0][8] == "0"


async def test_open_benchmark_and_back(app):
    async with app.run_test() as pilot:
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ProjectDetailScreen)
        assert app.screen.project_name == "net-fp32"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ProjectsScreen)
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, BenchmarkConfigScreen)
        assert app.screen.project.name == "net-fp32"
        await pilot.press("escape", "n")
        await pilot.pause()
        assert isinstance(app.screen, NewProjectScreen)


async def test_rename_with_a_clash_then_a_new_name(app, db: Path):
    async with app.run_test() as pilot:
        await pilot.press("down", "r")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        field = app.screen.query_one(Input)
        field.value = "net-int8"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)  # refused, the reason is shown
        assert "already exists" in str(app.screen.query_one("#prompt-error").render())
        field.value = "net-renamed"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ProjectsScreen)
        assert "net-renamed" in [row[0].strip() for row in rows(app)]
    store = Store(db)
    assert store.get_project("net-renamed") is not None
    assert len(store.runs("net-renamed")) == 5


async def test_delete_asks_first(app, db: Path):
    async with app.run_test() as pilot:
        await pilot.press("down", "d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert len(rows(app)) == 3 and len(rows(app)[0]) == 8  # no model column at 80 wide
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert [row[0].strip() for row in rows(app)] == ["empty-project", "net-int8"]
    assert Store(db).get_project("net-fp32") is None


async def test_mark_two_and_compare(app):
    async with app.run_test() as pilot:
        await pilot.press("down", "m", "down")
        await pilot.pause()
        assert app.screen.marked == ["net-fp32"]
        assert [row[0][0] for row in rows(app)] == [" ", "*", " "]
        await pilot.press("c")
        await pilot.pause()
        assert type(app.screen).__name__ == "CompareScreen"
        assert app.screen.state.names() == {"A": "net-fp32", "B": "net-int8"}


async def test_empty_database_offers_the_samples(empty_app, services):
    async with empty_app.run_test() as pilot:
        await pilot.pause()
        assert empty_app.screen.query_one("#empty").display
        assert not empty_app.screen.query_one("#projects").display
        await pilot.press("o")  # nothing to open: the key is off and the hint says what to do
        await pilot.pause()
        assert isinstance(empty_app.screen, ProjectsScreen)
        assert empty_app.screen.check_action("open", ()) is False
        hint = str(empty_app.screen.query_one("#empty", Static).render())
        assert "Press s to add the shipped sample models" in hint, hint
        assert "Press n to create a project from your own model" in hint, hint
        await pilot.press("s")
        await wait_for(
            pilot,
            lambda: isinstance(empty_app.screen, LiveRunScreen) and not empty_app.screen.running,
        )
        assert isinstance(empty_app.screen, LiveRunScreen)
        assert not empty_app.screen.running
        assert len(services.clients) == 4 and len(services.validated) == 4
        await pilot.press("escape")
        await pilot.pause()
        table = rows(empty_app)
        assert [row[0].strip() for row in table] == [
            "mobilenet-fp32-ort",
            "mobilenet-fp32-ov",
            "mobilenet-int8-ort",
            "mobilenet-int8-ov",
        ]
        assert all(row[7] == "1" for row in table)


async def test_help_lists_every_binding_with_its_id(app):
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        ids = {ident for _, _, ident in app.screen.keys}
        assert {
            "new",
            "open",
            "benchmark",
            "mark",
            "compare",
            "rename",
            "delete",
            "samples",
            "quit",
            "help",
            "command_palette",
        } <= ids
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ProjectsScreen)


async def test_command_palette_reaches_a_project(app):
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        for ch in "open project net-int8":
            await pilot.press("space" if ch == " " else ch)
        await settled(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ProjectDetailScreen)
        assert app.screen.project_name == "net-int8"


def not_json(tmp_path: Path) -> Path:
    path = tmp_path / "damaged.json"
    path.write_text("{ this is not json", encoding="utf-8")
    return path


def entry_outside(tmp_path: Path) -> Path:
    """An index whose entry names a folder outside: found when the home screen's data is
    read, it is the whole list's damage, not an empty database (whose `s` would have written
    into it)."""
    path = build(tmp_path)
    folder_outside(path)
    return path


@pytest.mark.parametrize(
    ("damaged", "said"),
    [(not_json, "damaged"), (entry_outside, "is malformed")],
)
async def test_a_damaged_database_gets_a_message_and_is_left_alone(
    tmp_path: Path, services, damaged, said: str
):
    path = damaged(tmp_path)
    before = tree(tmp_path)
    app = create_app(path, services)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StoreErrorScreen)
        assert said in app.screen.message
        await pilot.press("s")  # the samples of an empty database: not offered here
        await pilot.press("q")
    assert tree(tmp_path) == before


async def test_a_project_whose_runs_cannot_be_read_is_not_shown_as_empty(tmp_path: Path, services):
    path = build(tmp_path)
    missing_part(path)  # A's runs file gone; its index entry still lists its best
    app = create_app(path, services)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ProjectsScreen))
        app.open_project("A")
        said = lambda: [n.message for n in app._notifications]  # noqa: E731
        await wait_for(pilot, lambda: any("of project 'A' is missing" in line for line in said()))
        await wait_for(pilot, lambda: isinstance(app.screen, ProjectsScreen))
        assert not app.screen.query("#tabs")  # back, not a detail of "no runs yet"
        assert len([line for line in said() if "of project 'A' is missing" in line]) == 1


async def test_a_database_path_that_is_a_directory(tmp_path: Path, services):
    app = create_app(tmp_path, services)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StoreErrorScreen)
        assert "directory" in app.screen.message


async def test_what_another_process_stores_shows_within_two_seconds(tmp_path: Path, services):
    """A CLI bench in a second session stores runs: the open dashboard shows them without a
    key pressed (it polls the index's version)."""
    import subprocess
    import sys

    path = build(tmp_path)
    adder = (
        "import sys; import numpy as np; from perftui.store import Store;"
        " from tests.store_helpers import make_project, make_run;"
        " s = Store(sys.argv[1]); s.ensure_project(make_project('C', '/m/c'));"
        " s.add_run(make_run('C'), np.ones(9))"
    )
    app = create_app(path, services)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ProjectsScreen))
        assert [row[0] for row in rows(app)][-1] != "C"
        subprocess.run([sys.executable, "-c", adder, str(path)], check=True)
        await wait_for(pilot, lambda: any("C" in row[0] for row in rows(app)), seconds=2.0)
