"""Names that differ stay told apart at 80 columns: what names share at the start is cut,
not the tail that tells them apart (projects table, compare selects and runs, summary)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from textual.widgets import DataTable, Select, Static

from perftui.domain.records import Project
from perftui.store.database import Store
from perftui.tui.app import create_app
from perftui.tui.compare.charts import InferenceChart
from perftui.tui.compare.setup import CompareScreen
from perftui.tui.compare.summary import CompareSummaryScreen
from perftui.tui.kit.fit import distinct
from tests.tui.conftest import make_run
from tests.tui.snapshot_helpers import settle
from tests.tui.waiting import settled

pytestmark = pytest.mark.tui

FAMILY = ["mobilenet-fp32-int8-ov", "mobilenet-fp32-ort", "mobilenet-fp32-ort-int8"]


def test_distinct_cuts_the_shared_start_and_keeps_the_tail() -> None:
    names = [*FAMILY, "net-fp32"]
    assert distinct(names, 30) == names
    for width in (6, 8, 10, 12, 16):
        shown = distinct(names, width)
        assert len(set(shown)) == len(names), shown
        assert all(len(text) <= width for text in shown), shown
    assert distinct(names, 12) == ["mobi…int8-ov", "mobilene…ort", "mob…ort-int8", "net-fp32"]
    assert distinct(["resnet50-a-long-name"], 10) == ["resne…name"]  # alone: middle cut
    assert distinct(["same-name-here", "same-name-here"], 8) == ["same…ere"] * 2


@pytest.fixture
def family_app(tmp_path: Path, services):
    store = Store(tmp_path / "family.json")
    for n, name in enumerate(FAMILY):
        store.add_project(Project(name, f"/models/{name}.onnx", "openvino", "CPU"))
        for second, (batch, fps) in enumerate([(1, 200.0 + 90 * n), (4, 420.0 + 60 * n)]):
            run = make_run(name, batch, 2, fps, 10 * n + second, layers=True)
            store.add_run(replace(run, id=""), np.full(10, 4.0))
    return create_app(tmp_path / "family.json", services)


def shown(widget: Static) -> str:
    return str(widget.render())


async def test_family_names_stay_apart_at_80_columns(family_app):
    app = family_app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#projects", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        assert len(set(names)) == 3 and any(name.endswith("ort-int8") for name in names)
        screen = CompareScreen("mobilenet-fp32-ort", "mobilenet-fp32-ort-int8")
        app.push_screen(screen)
        await settle(pilot, lambda: screen.comparison is not None)
        await settled(pilot)
        labels = [shown(s.query_one("#label", Static)) for s in screen.query(Select)][:2]
        assert labels[0] != labels[1] and labels[1].endswith("ort-int8"), labels
        runs = screen.query_one("#cmp-runs", DataTable)
        projects = {str(runs.get_row_at(i)[1]) for i in range(runs.row_count)}
        # at 80 columns the table gives each run's side, the selects above its project's
        # name (issue 25: the settings that tell runs apart keep the room)
        assert projects == {"A", "B"}, projects
        await pilot.press("c")
        await settle(pilot, lambda: isinstance(app.screen, CompareSummaryScreen))
        head = shown(app.screen.query_one("#cmp-head", Static)).splitlines()
        # both sides' figures with their intervals: a line each when one line cannot hold them
        assert sum(line.count("items/s") for line in head[:2]) == 2, head
        assert all(len(line) <= 78 for line in head), head
        await pilot.press("2")
        await settled(pilot)
        chart = str(app.screen.query_one(InferenceChart).render())
        assert "B " in chart and "ort-int8" in chart, chart
