"""Benchmark configuration: validation as typed, presets, starting a run, refused requests."""

from __future__ import annotations

import pytest
from textual.widgets import Checkbox, Input, Static

from perftui.domain.records import Project
from perftui.tui.benchmark.configure import BenchmarkConfigScreen
from perftui.tui.benchmark.live import LiveRunScreen
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui

NEW = Project("fresh", "/models/encoder_fp32.onnx", "onnxruntime", "CPU")


def note(screen, name: str) -> str:
    return str(screen.query_one(f"#e-{name}", Static).render())


async def open_config(app, pilot, project: Project | None = None) -> BenchmarkConfigScreen:
    await pilot.pause()
    if project is None:
        project = app.store.get_project("net-fp32")
    screen = BenchmarkConfigScreen(project)
    app.push_screen(screen)
    await wait_for(pilot, lambda: screen.info is not None)
    return screen


async def type_into(pilot, screen, name: str, text: str) -> None:
    field = screen.query_one(f"#f-{name}", Input)
    field.focus()
    field.value = ""
    for ch in text:
        await pilot.press(ch)
    await pilot.pause()


async def test_fields_are_checked_as_typed(app):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_config(app, pilot)
        await type_into(pilot, screen, "batch", "1,x")
        assert "'x' is not a whole number" in note(screen, "batch")
        assert screen.query_one("#e-batch").has_class("error")
        assert "1 field(s) to fix" in str(screen.query_one("#cfg-plan", Static).render())
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert app.screen is screen and app.focused is screen.query_one("#f-batch")
        await pilot.press("backspace", "4")
        await pilot.pause()
        assert not screen.query_one("#e-batch").has_class("error")
        await type_into(pilot, screen, "hint", "fastest")
        assert "unknown hint 'fastest'" in note(screen, "hint")
        await type_into(pilot, screen, "time", "-1")
        assert ">= 0" in note(screen, "time")


async def test_last_benchmark_prefills_and_presets_replace(app):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_config(app, pilot)
        values = screen.values()
        assert (values["batch"], values["threads"], values["time"]) == ("1,4", "1,2", "2")
        assert "4 run(s), at least 8 s" in str(screen.query_one("#cfg-plan", Static).render())
        await pilot.press("ctrl+t")
        await pilot.pause()
        values = screen.values()
        assert (values["batch"], values["hint"], values["api"]) == ("1,4", "throughput", "async")
        await pilot.press("ctrl+l")
        await pilot.pause()
        values = screen.values()
        assert (values["batch"], values["hint"], values["api"]) == ("1", "latency", "sync")


async def test_run_validates_then_opens_the_live_screen(app, services):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_config(app, pilot)
        await type_into(pilot, screen, "threads", "auto,2")
        screen.query_one("#profile", Checkbox).value = True
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveRunScreen))
        assert isinstance(app.screen, LiveRunScreen)
        request = services.validated[0]
        assert [(c.batch, c.threads) for c in request.configs] == [(1, 0), (1, 2), (4, 0), (4, 2)]
        assert request.profile and request.budget.time_s == 2.0


async def test_a_refused_request_points_at_the_shapes_field(app, services):
    services.invalid = (
        "input 'input_ids' has dynamic dimension 'seq' (shape [batch,seq]); give it a size "
        "with --shape input_ids[1,128]"
    )
    async with app.run_test(size=(100, 30)) as pilot:
        app.store.add_project(NEW)
        screen = await open_config(app, pilot, app.store.get_project("fresh"))
        assert "dynamic: give Shapes" in str(screen.query_one("#cfg-inputs", Static).render())
        assert "needed, e.g. input_ids[1,128]" in note(screen, "shapes")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.query_one("#e-shapes").has_class("error"))
        assert app.screen is screen
        assert "dynamic dimension 'seq'" in note(screen, "shapes")
        assert app.focused is screen.query_one("#f-shapes")
        assert not screen.validating
