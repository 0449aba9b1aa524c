"""The compare screen's sweet spot ranks by cost when runs were measured at a price (r), and
its headline says which ranking it uses; without a price there is nothing to choose."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from perftui.domain.records import Project
from perftui.store.database import Store
from perftui.tui.app import create_app
from perftui.tui.compare.setup import CompareScreen
from tests.test_compare_ranking import BOX, HERE
from tests.tui.compare_data import run
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


def make_app(path: Path, services, a: list, b: list):
    store = Store(path)
    for name in ("here", "box"):
        store.add_project(Project(name, f"/models/{name}.onnx", "openvino", "CPU"))
    for result in a + b:
        store.add_run(result)
    return create_app(path, services)


def shown(screen, widget: str) -> str:
    return str(screen.query_one(f"#{widget}", Static).render())


async def open_compare(app, pilot) -> CompareScreen:
    await pilot.pause()
    app.compare_projects("here", "box")
    await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
    screen = app.screen
    await wait_for(pilot, lambda: "sweet spot" in shown(screen, "cmp-note"))
    return screen


async def test_r_ranks_the_sweet_spot_by_cost_and_back(tmp_path: Path, services):
    app = make_app(tmp_path / "db.json", services, HERE, BOX)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_compare(app, pilot)
        assert "best throughput" in shown(screen, "cmp-note")
        assert "1,000 items/s" in shown(screen, "cmp-sweet")
        assert screen.check_action("rank", ()) is True
        await pilot.press("r")
        await wait_for(pilot, lambda: "lowest cost" in shown(screen, "cmp-note"))
        sweet = shown(screen, "cmp-sweet")
        assert "A here" in sweet and "300 items/s" in sweet and "0.0926 $/M inf" in sweet
        assert "within noise of its cost" in sweet
        assert screen.comparison is not None and screen.comparison.sweet is not None
        assert screen.comparison.sweet.run.id == "here-1"
        await pilot.press("r")
        await wait_for(pilot, lambda: "best throughput" in shown(screen, "cmp-note"))


async def test_without_a_price_there_is_no_cost_ranking(tmp_path: Path, services):
    here, box = [run("here", 1, 1, 0, 300.0)], [run("box", 2, 1, 0, 500.0)]
    app = make_app(tmp_path / "db.json", services, here, box)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_compare(app, pilot)
        assert screen.check_action("rank", ()) is False
        await pilot.press("r")
        await pilot.pause()
        assert "best throughput" in shown(screen, "cmp-note")
        assert screen.state.ranking() == "throughput"
