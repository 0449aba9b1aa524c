"""FLOPs say the shapes they are at (issue 40, item 6): a batch-2 run's FLOPs tab says batch 2,
and a model with a dynamic `seq` says the length its FLOPs were counted at."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from perftui.domain.records import Project, RunConfig
from perftui.store import Store
from perftui.tui.app import create_app
from perftui.tui.projects.new_project import NewProjectScreen
from tests.tui.conftest import LAYERS, make_run
from tests.tui.test_detail import open_detail, text
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


async def test_the_flops_tab_says_the_batch_and_length_of_the_run_beside_it(db, services):
    store = Store(db)
    store.add_project(Project("enc", "/models/encoder.onnx", "openvino", "CPU"))
    run = make_run("enc", 2, 1, 100.0, 10, layers=True)
    resolved = {**run.resolved, "shapes": {"input_ids": [2, 32]}}
    config = RunConfig(batch=2, threads=1, dims=(("seq", 32),))
    store.add_run(replace(run, resolved=resolved, config=config, layers=LAYERS))
    app = create_app(db, services)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_detail(app, pilot, "enc")
        await pilot.press("6")
        await wait_for(pilot, lambda: "theoretical FLOPs" in text(screen, "flops-head"))
        head = text(screen, "flops-head")
        assert "at batch 2, seq=32" in head and "batch 1" not in head


async def new_project_inspecting(app, pilot, model: Path) -> NewProjectScreen:
    """The New project screen once it has inspected `model` (typed into its path field)."""
    model.write_bytes(b"x")
    await pilot.pause()
    screen = NewProjectScreen(model.parent)
    app.push_screen(screen)
    await wait_for(pilot, lambda: screen.devices is not None)
    path = screen.query_one("#path", Input)
    path.value = str(model)
    path.focus()
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.info is not None)
    return screen


async def test_new_project_says_the_length_the_flops_are_counted_at(app, tmp_path: Path):
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await new_project_inspecting(app, pilot, tmp_path / "encoder.onnx")
        info = str(screen.query_one("#info", Static).render())
        assert "600 M at batch 1, seq=128" in info
