"""The project detail's History tab: the selected configuration over time with its change
point, and the newest stored gate judged again."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from perftui.domain.records import BenchmarkRequest, Project
from perftui.domain.regression.gate_stored import GateSettings, gate_label
from perftui.store.database import Store
from perftui.tui.app import create_app
from perftui.tui.detail.screen import ProjectDetailScreen
from tests.test_history import CONFIG, history_store, measured, store_with_an_invalid_point
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui


def add_gate(db: Path) -> None:
    """A gate of `det-new` (20 % slower) against `det`: five rounds, A first in round 1."""
    store = Store(db)
    det = store.get_project("det")
    assert det is not None
    new = store.add_project(Project("det-new", "/models/det_new.xml", "openvino"))
    label = gate_label("tok", GateSettings(0.05, ("median",), 10))
    rng = random.Random(3)
    for project, fps, offset in ((det, 1000.0, 0), (new, 800.0, 1)):
        benchmark = store.add_benchmark(BenchmarkRequest(project, (CONFIG,), repeat=5))
        for repeat in range(5):
            run = measured(fps * (1 + rng.gauss(0, 0.005)), rng)
            store.add_run(
                replace(run, project=project.name, benchmark_id=benchmark, repetition=repeat,
                        resolved={"label": label},
                        started_at=f"2026-02-01T10:{2 * repeat + offset:02d}:00+00:00")
            )  # fmt: skip


async def test_history_tab_shows_the_points_the_step_and_the_gate(tmp_path: Path, services):
    db = tmp_path / "db.json"
    history_store(db)
    add_gate(db)
    app = create_app(db, services)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = ProjectDetailScreen("det", tab="history")
        app.push_screen(screen)
        await settled(pilot)
        chosen = next(r for r in screen.state.runs if r.config == CONFIG and not r.repetition
                      and r.started_at.startswith("2026-03-12"))  # fmt: skip
        screen.state.selected_id = chosen.id
        screen.redraw_panes()
        await settled(pilot)
        table = screen.query_one("#history", DataTable)
        assert table.row_count == 13  # 12 dates and the gate's rounds
        steps = str(screen.query_one("#history-steps", Static).render())
        assert "throughput fell" in steps and "OpenVINO 2026.3 -> 2026.4" in steps
        gate = str(screen.query_one("#history-gate", Static).render())
        assert "FAIL" in gate and "baseline for det-new" in gate and "median B/A 1.2" in gate


async def test_history_tab_gives_each_figure_its_verdict_at_80x24(tmp_path: Path, services):
    """The History tab listed an invalid benchmark's figure like a stable one."""
    db = tmp_path / "db.json"
    store_with_an_invalid_point(db)
    app = create_app(db, services)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = ProjectDetailScreen("det", tab="history")
        app.push_screen(screen)

        def filled() -> bool:
            return any(t.row_count == 3 for t in screen.query("#history").results(DataTable))

        await wait_for(pilot, filled)
        table = screen.query_one("#history", DataTable)
        rows = [[str(cell).strip() for cell in table.get_row_at(i)] for i in range(3)]
        assert [row[3] for row in rows] == ["stable", "INVALID", "stable"], rows
        assert all(re.fullmatch(r"1,0\d\d \([\d,]+-[\d,]+\)", row[1]) for row in rows), rows
