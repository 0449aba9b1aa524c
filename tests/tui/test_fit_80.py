"""At 80x24 nothing wraps or scrolls sideways: long names are cut in table cells and shown
whole elsewhere, headers keep to one line, the F1 help shows keys as typed, and brackets in
names are text, not markup."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from rich.table import Table
from textual.widgets import DataTable, Static

from perftui.domain.records import Project
from perftui.store.database import Store
from perftui.tui.app import create_app
from perftui.tui.kit.dialogs import ConfirmScreen, HelpScreen
from perftui.tui.projects.screen import ProjectsScreen
from tests.tui.conftest import make_run
from tests.tui.test_detail import open_detail
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui

LONG = "mobilenet-fp32-int8-2"


def add_project(db: Path, name: str, model: str, fps: float = 212.0) -> None:
    store = Store(db)
    store.add_project(Project(name, model, "openvino", "CPU"))
    store.add_run(replace(make_run(name, 1, 1, fps, 30), id=""), np.full(10, 4.0))


def line(widget: Static) -> str:
    return str(widget.render())


def fits(table: DataTable) -> bool:
    return table.virtual_size.width <= table.size.width


async def test_long_project_names_are_cut_in_the_table_not_scrolled(app, db):
    add_project(db, LONG, "/models/mobilenet_fp32_int8_2.onnx")
    add_project(db, "a-very-long-project-name-for-the-int8-version", "/models/x.onnx")
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        table = app.screen.query_one("#projects", DataTable)
        assert fits(table) and table.size.width == 80
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        assert any(name.startswith("a-very") and "…" in name for name in names)
        # the end of a name tells versions apart, so the cut goes in the middle
        assert any(name.startswith("a-very") and name.endswith("version") for name in names)
        assert app.screen.names[0] == "a-very-long-project-name-for-the-int8-version"
        # the full name is in the detail screen
        await pilot.press("enter")
        await settled(pilot)
        assert "a-very-long-project-name-for-the-int8-version" in line(
            app.screen.query_one("#detail-head", Static)
        )


async def test_engine_is_shortened_only_when_the_names_need_the_room(app, db, services):
    async with app.run_test(size=(90, 24)) as pilot:
        await settled(pilot)
        table = app.screen.query_one("#projects", DataTable)
        assert "openvino" in [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
    add_project(db, LONG, "/models/m.onnx")
    app = create_app(db, services)
    async with app.run_test(size=(90, 24)) as pilot:
        await settled(pilot)
        table = app.screen.query_one("#projects", DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert [r[1] for r in rows] == ["ov", "ov", "ov", "ort"]
        # 'ov' gave the name the 6 more cells it needed
        assert LONG in [r[0].strip() for r in rows]
        assert fits(table)


async def test_the_table_refits_when_the_terminal_is_resized(app, db):
    add_project(db, LONG, "/models/m.onnx")
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        table = app.screen.query_one("#projects", DataTable)
        assert "Model" in [str(c.label) for c in table.columns.values()]
        await pilot.resize_terminal(64, 24)
        await settled(pilot)
        assert fits(table) and table.size.width == 64
        assert "Model" not in [str(c.label) for c in table.columns.values()]


async def test_detail_header_keeps_to_one_line_at_80_columns(app, db, services):
    add_project(db, "mobilenet-fp32-ov-q", "/models/mobilenet_fp32_with_a_long_name.xml")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_detail(app, pilot, "mobilenet-fp32-ov-q")
        head = screen.query_one("#detail-head", Static)
        text = line(head)
        assert "\n" not in text and len(text) <= 78 and head.size.height == 1
        # the model file (also in Summary) gives way first; name, engine and best stay
        assert text.startswith("mobilenet-fp32-ov-q  openvino/CPU")
        assert text.endswith("best 212 items/s ~ at b1 t1") and ".xml" not in text
    app = create_app(db, services)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_detail(app, pilot, "mobilenet-fp32-ov-q")
        assert "mobilenet_fp32_with_a_long_name.xml" in line(screen.query_one("#detail-head"))


async def test_layer_and_flops_tables_fit_80_columns(app, db):
    long_layer = "encoder/layer.11/attention/self/query/MatMul_with_a_long_tail"
    store = Store(db)
    run = next(r for r in store.runs("net-fp32") if r.layers)
    layers = (replace(run.layers[0], name=long_layer), *run.layers[1:])
    store.add_run(replace(run, id="", layers=layers, started_at="2025-03-02T00:00:00+00:00"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_detail(app, pilot)
        for tab, table_id in (("5", "layers"), ("6", "flops")):
            await pilot.press(tab)
            await settled(pilot)
            table = screen.query_one(f"#{table_id}", DataTable)
            assert fits(table), table_id
        await pilot.press("5")
        await settled(pilot)
        table = screen.query_one("#layers", DataTable)
        names = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert any("…" in n and n.endswith("long_tail") for n in names)
        statuses = [str(table.get_row_at(i)[6]) for i in range(table.row_count)]
        assert "not_run" in statuses  # the last column is on screen


async def test_help_shows_bracket_keys_verbatim(app, db):
    async with app.run_test(size=(80, 24)) as pilot:
        await open_detail(app, pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = app.screen.query_one(".help-keys", Static).content
        assert isinstance(keys, Table)
        key_cells = [str(cell) for cell in keys.columns[0]._cells]
        descriptions = [str(cell) for cell in keys.columns[1]._cells]
        assert "[" in key_cells and "]" in key_cells
        assert descriptions[key_cells.index("[")].startswith("Previous tab")
        assert not any("[/]" in cell for cell in key_cells + descriptions)


async def test_brackets_in_names_and_errors_are_text_not_markup(app, db):
    odd = "net[b]-v2[/]"
    add_project(db, odd, "/models/odd[1.onnx")
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        table = screen.query_one("#projects", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        assert odd in names
        table.move_cursor(row=names.index(odd))
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert str(app.screen.query_one(".dialog-title").render()) == f"Delete project {odd}?"
        await pilot.press("n")
        await pilot.press("enter")
        await settled(pilot)
        assert line(app.screen.query_one("#detail-head", Static)).startswith(odd)
        app.notify("cannot read shape 'input_ids[1,64'; [b]really[/b]")
        await pilot.pause()
        assert app._notifications  # shown as plain text (markup would fail to parse)


async def test_live_runs_table_fits_80_columns_with_several_projects(app, db):
    from perftui.domain.records import BenchmarkRequest, Budget, RunConfig
    from perftui.tui.benchmark.live import LiveRunScreen

    names = ["mobilenet-fp32-ov-long", "mobilenet-int8-ov-long", "mobilenet-int8-ort-long"]
    for name in names:
        add_project(db, name, "/models/m.onnx")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        requests = [
            BenchmarkRequest(app.store.get_project(n), (RunConfig(4, 2),), Budget()) for n in names
        ]
        screen = LiveRunScreen(requests, validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        table = screen.query_one("#live-runs", DataTable)
        assert table.row_count == 3 and fits(table)
        labels = [str(table.get_row_at(i)[1]) for i in range(3)]
        assert all(label.endswith("b4 t2") for label in labels)
        assert [str(table.get_row_at(i)[0]) for i in range(3)] == ["1 ▞", "2 •", "3 x"]
        assert "\n" not in line(screen.query_one("#live-head", Static))
