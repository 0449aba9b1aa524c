"""Issue 30: where a run was measured at a price, the dashboard's Runs tab and compare runs
table show its cost per million inferences beside items/s, as the CLI's tables do; with no
priced run there is no such column."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import DataTable

from perftui.domain.measurement.cost import COST_HEADER, cost_per_million, cost_text
from perftui.domain.records import Project
from perftui.store.database import Store
from perftui.tui.app import create_app
from perftui.tui.compare.setup import CompareScreen
from tests.tui.compare_data import run
from tests.tui.test_detail import open_detail
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui

PRICE = 0.34


def priced(result, price: float):
    environment = {**result.resolved["environment"], "price_per_hour": price}
    return replace(result, resolved={**result.resolved, "environment": environment})


@pytest.fixture
def cost_app(tmp_path: Path, services):
    path = tmp_path / "cost.json"
    store = Store(path)
    for name in ("box", "here", "other"):
        store.add_project(Project(name, f"/models/{name}.onnx", "openvino", "CPU"))
    store.add_run(priced(run("box", 1, 1, 0, 400.0), PRICE))
    store.add_run(run("box", 2, 4, 0, 500.0))  # measured before the box had a price
    store.add_run(run("here", 3, 1, 0, 300.0))
    store.add_run(run("other", 4, 1, 0, 350.0))
    return create_app(path, services)


def column(table: DataTable, key: str) -> list[str]:
    keys = [str(k.value) for k in table.columns]
    return [str(table.get_row_at(n)[keys.index(key)]) for n in range(table.row_count)]


async def test_the_runs_tab_shows_the_cost_where_a_run_has_a_price(cost_app):
    async with cost_app.run_test(size=(80, 24)) as pilot:
        screen = await open_detail(cost_app, pilot, "box")
        await pilot.press("right")
        table = screen.query_one("#runs", DataTable)
        await wait_for(pilot, lambda: table.row_count == 2)
        assert COST_HEADER in [str(c.label) for c in table.columns.values()]
        assert column(table, "cost") == ["-", cost_text(cost_per_million(400.0, PRICE))]
        assert table.virtual_size.width <= table.size.width
        cost_app.pop_screen()
        screen = await open_detail(cost_app, pilot, "here")
        await pilot.press("right")
        table = screen.query_one("#runs", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1)
        assert "cost" not in [str(k.value) for k in table.columns]


async def compare_costs(app, pilot, a: str, b: str) -> dict[str, str] | None:
    """The cost column of the compare runs table by run id; None without one."""
    screen = CompareScreen(a, b)
    app.push_screen(screen)
    await wait_for(pilot, lambda: screen.is_mounted and bool(screen.row_keys))
    table = screen.query_one("#cmp-runs", DataTable)
    assert table.virtual_size.width <= table.size.width
    if "cost" not in [str(k.value) for k in table.columns]:
        return None
    return dict(zip((run_id for _, run_id in screen.row_keys), column(table, "cost"), strict=True))


async def test_the_compare_runs_table_shows_the_cost_where_a_run_has_a_price(cost_app):
    async with cost_app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: len(cost_app.screen_stack) > 1)
        assert await compare_costs(cost_app, pilot, "here", "box") == {
            "here-3": "-",
            "box-1": cost_text(cost_per_million(400.0, PRICE)),
            "box-2": "-",
        }
        cost_app.pop_screen()
        assert await compare_costs(cost_app, pilot, "here", "other") is None
