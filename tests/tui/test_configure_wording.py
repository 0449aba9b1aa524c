"""Issue 12, 4-6 on the benchmark form: precision knows the engine and takes one value, bounds
and long runs, and messages in the form's words (field labels, not CLI flags)."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from perftui.tui.benchmark.configure import BenchmarkConfigScreen
from tests.tui.test_configure import note, open_config, type_into
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


def plan(screen: BenchmarkConfigScreen) -> str:
    return str(screen.query_one("#cfg-plan", Static).render())


async def test_precision_is_checked_for_the_engine_as_typed(app):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_config(app, pilot, app.store.get_project("net-int8"))  # onnxruntime
        await type_into(pilot, screen, "precision", "f16")
        assert "f16 needs the openvino engine" in note(screen, "precision")
        assert "1 field(s) to fix" in plan(screen)
        await type_into(pilot, screen, "precision", "f32")
        assert not screen.query_one("#e-precision").has_class("error")


async def test_a_precision_list_is_refused(app):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_config(app, pilot)  # openvino
        await type_into(pilot, screen, "precision", "f16,bf16")
        assert "one precision, not a list" in note(screen, "precision")


async def test_bounds_refuse_and_long_runs_warn(app):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_config(app, pilot)
        await type_into(pilot, screen, "threads", "100000")
        assert "more than anyone means" in note(screen, "threads")
        await type_into(pilot, screen, "threads", "1")
        await type_into(pilot, screen, "time", "1e9")
        assert "about 32 years" in note(screen, "time")
        await type_into(pilot, screen, "time", "1e6")
        # two runs (the last benchmark had two thread counts) of 1e6 s each
        assert "warning: this benchmark measures for at least about 23 days" in plan(screen)


async def test_engine_messages_name_the_fields_not_the_flags(app, services):
    services.invalid = "input 'input_ids' is dynamic; give it a size with --shape input_ids[1,128]"
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_config(app, pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "give it a size" in plan(screen))
        assert "give it a size with Shapes input_ids[1,128]" in plan(screen)
        assert "--" not in plan(screen) and "--" not in note(screen, "shapes")
        assert all("--" not in str(n.message) for n in app._notifications)
