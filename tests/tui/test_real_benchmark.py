"""A real, short benchmark started from the configuration screen ends with its runs stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from perftui.domain.records import Project
from perftui.store.database import Store
from perftui.tui.app import create_app
from perftui.tui.benchmark.configure import BenchmarkConfigScreen
from perftui.tui.benchmark.live import LiveRunScreen
from tests.tui.waiting import wait_for

pytestmark = [pytest.mark.tui, pytest.mark.engine]

MODEL = Path(__file__).resolve().parents[2] / "sample_models" / "mobilenet_fp32.onnx"


async def test_a_real_benchmark_from_the_configuration_screen(tmp_path: Path):
    pytest.importorskip("onnxruntime")
    db = tmp_path / "real.json"
    project = Store(db).add_project(Project("mobilenet-ort", str(MODEL), "onnxruntime", "CPU"))
    app = create_app(db)  # the real services: validation, child-process client, store
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = BenchmarkConfigScreen(project)
        app.push_screen(screen)
        await pilot.pause()
        values = {"batch": "1", "threads": "1,2", "time": "0.3", "iterations": "5", "warmup": "1"}
        for name, value in values.items():
            screen.query_one(f"#f-{name}", Input).value = value
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(
            pilot, lambda: isinstance(app.screen, LiveRunScreen) and not app.screen.running, 90
        )
        live = app.screen
        assert isinstance(live, LiveRunScreen)
        assert [run.status for run in live.finished] == ["ok", "ok"], live.finished
    runs = Store(db).runs("mobilenet-ort")
    assert sorted((r.config.batch, r.config.threads) for r in runs) == [(1, 1), (1, 2)]
    assert all(r.status == "ok" and r.iterations >= 5 and r.throughput_fps > 0 for r in runs)
    assert all(r.resolved.get("environment") for r in runs)
