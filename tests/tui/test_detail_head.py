"""The project detail's head shows the best configuration's combined figure, the very one
the projects list shows, never the luckiest single run."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from textual.widgets import DataTable, Static

from perftui.domain.records import BenchmarkRequest, Budget, RunConfig
from perftui.store.database import Store
from perftui.tui.app import create_app
from tests.tui.conftest import make_run
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


async def test_the_head_is_the_projects_lists_best(tmp_path, services) -> None:
    from perftui.domain.records import Project

    db = tmp_path / "db.json"
    store = Store(db)
    project = store.add_project(Project("net", "/models/net.onnx", "openvino", "CPU"))
    bench = store.add_benchmark(
        BenchmarkRequest(project, (RunConfig(1, 1), RunConfig(4, 1)), Budget(), repeat=2)
    )
    # b1: one lucky run of 900 and one of 300 (600 combined); b4: 700 and 720
    for n, (batch, fps) in enumerate(((1, 900.0), (1, 300.0), (4, 700.0), (4, 720.0))):
        run = replace(make_run("net", batch, 1, fps, n), benchmark_id=bench, repetition=n % 2)
        store.add_run(run, np.full(40, 1000.0 * batch / fps))
    app = create_app(db, services)
    async with app.run_test(size=(100, 24)) as pilot:
        table = app.screen.query_one("#projects", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1)
        listed = str(table.get_row_at(0)[5]).strip()  # wide: Name Model Engine Dev Prec items/s
        assert listed.startswith("710")
        app.open_project("net")
        await wait_for(pilot, lambda: app.screen.query("#detail-head"))
        head = app.screen.query_one("#detail-head", Static)
        await wait_for(pilot, lambda: "best" in str(head.render()))
        text = str(head.render())
    assert f"best {listed} items/s" in text and "at b4 t1" in text
    assert "900" not in text


def test_the_heads_best_is_a_closed_loop_configuration_never_a_rate() -> None:
    """A run at a rate offers its throughput: the head names the closed loop's best."""
    from perftui.domain.records import Project
    from perftui.tui.detail.state import DetailState

    closed = make_run("net", 1, 1, 300.0, 0)
    at_rate = make_run("net", 1, 1, 900.0, 1)
    at_rate = replace(at_rate, config=replace(at_rate.config, rate=900.0), benchmark_id="b2")
    state = DetailState(Project("net", "/m.onnx", "openvino", "CPU"), [at_rate, closed])
    best = state.best_group()
    assert best is not None and best.config.rate is None and list(best.runs) == [closed]
    assert DetailState(state.project, [at_rate]).best_group() is None
