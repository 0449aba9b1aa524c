"""One way to write the precision run (issue 40, item 8): an FP32 and an INT8 ResNet-50 both
read `bf16` in compare's Ran column while the projects list said `I8/FP32`; the same column
read FP32, bf16, model and BF16/FP32 across commands."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import DataTable

from perftui.domain.records import Project
from perftui.store import Store
from perftui.tui.app import create_app
from tests.cli_helpers import perftui
from tests.tui.compare_data import run
from tests.tui.test_compare import open_compare
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui

OPTIMIZED = {"optimization": {"method": "static", "calibration": "random", "samples": 8}}


def bf16(project: str, n: int, batch: int):
    """A run OpenVINO compiled in bf16 (its default on a CPU with AMX), no profile."""
    found = run(project, n, batch, 0, 100.0 * batch)
    return replace(found, resolved={**found.resolved, "precision": "bf16"})


def fill(path: Path) -> None:
    store = Store(path)
    store.add_project(Project("rn50", "/models/rn50.onnx", "openvino", "CPU"))
    store.add_project(
        Project("rn50-int8", "/models/rn50_int8.xml", "openvino", "CPU", notes=OPTIMIZED)
    )
    store.add_runs([(bf16("rn50", 1, 1), None), (bf16("rn50-int8", 2, 1), None)])


async def test_compare_and_the_projects_list_write_the_precision_run_alike(
    tmp_path: Path, services
):
    path = tmp_path / "db.json"
    fill(path)
    app = create_app(path, services)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.store is not None and len(app.screen_stack) > 1)
        await pilot.pause()
        listed = app.screen.query_one(DataTable)
        rows = [[str(c) for c in listed.get_row_at(i)] for i in range(listed.row_count)]
        assert any("BF16" in row and any(c.strip() == "rn50" for c in row) for row in rows), rows
        assert any("I8/BF16" in row for row in rows), rows
        screen = await open_compare(app, pilot, "rn50", "rn50-int8")
        await settled(pilot)
        table = screen.query_one("#cmp-runs", DataTable)
        columns = [str(c.label) for c in table.columns.values()]
        ran = [str(table.get_row_at(i)[columns.index("Ran")]) for i in range(table.row_count)]
        assert ran == ["BF16", "I8/BF16"], ran


def test_the_cli_writes_the_precision_run_as_the_dashboard_does(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    fill(path)
    listed = perftui("projects", db=path)
    assert listed.returncode == 0, listed.stderr
    assert re.search(r"^rn50 .* BF16 ", listed.stdout, re.M), listed.stdout
    assert re.search(r"^rn50-int8 .* I8/BF16 ", listed.stdout, re.M), listed.stdout
    for name, word in (("rn50", "BF16"), ("rn50-int8", "I8/BF16")):
        shown = perftui("show", name, db=path)
        assert shown.returncode == 0, shown.stderr
        assert re.search(rf"^1 .* {re.escape(word)} ", shown.stdout, re.M), shown.stdout
