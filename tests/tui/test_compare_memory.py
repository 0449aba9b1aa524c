"""Issue 28: the compare setup takes a memory limit beside the latency threshold, as
`compare --max-memory` does (one rule: domain/limits.parse_memory_limit). A bad limit is said
under the controls and refused by c; it limits nothing and nothing is stored."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from perftui.domain.compare import Side, compare_projects
from perftui.domain.measurement.memory import RunMemory
from perftui.domain.records import Project
from perftui.store.database import Store
from perftui.tui.app import create_app
from tests.tui.compare_data import run
from tests.tui.test_compare import open_compare, text
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui

PEAKS = {"net-fp32": {1: 100.0, 4: 300.0}, "net-int8": {1: 80.0, 4: 250.0}}
FPS = {"net-fp32": {1: 200.0, 4: 300.0}, "net-int8": {1: 420.0, 4: 640.0}}


@pytest.fixture
def mem_app(tmp_path: Path, services):
    path = tmp_path / "memory.json"
    store = Store(path)
    n = 0
    for name in PEAKS:
        store.add_project(Project(name, f"/models/{name}.onnx", "openvino", "CPU"))
        for batch, peak in PEAKS[name].items():
            n += 1
            memory = RunMemory(50.0, peak - 10, peak, peak - 5)
            store.add_run(replace(run(name, n, batch, 0, FPS[name][batch]), memory=memory))
    return create_app(path, services)


async def type_into(pilot, screen, field: str, value: str) -> None:
    screen.query_one(f"#cmp-{field}", Input).value = value
    await wait_for(pilot, lambda: screen.query_one(f"#cmp-{field}", Input).value == value)
    await pilot.pause()


async def test_a_memory_limit_moves_the_sweet_spot_as_the_cli_does(mem_app):
    async with mem_app.run_test(size=(80, 24)) as pilot:
        screen = await open_compare(mem_app, pilot, "net-fp32", "net-int8")
        assert screen.comparison.sweet.run.id == "net-int8-4"  # 640 items/s at 250 MiB
        await type_into(pilot, screen, "memory", "200")
        c = screen.comparison
        assert c.sweet.run.id == "net-int8-3"  # 420 items/s at 80 MiB: within the limit
        sides = screen.state.sides
        cli = compare_projects(
            "net-fp32",
            sides[Side.A].selected(),
            "net-int8",
            sides[Side.B].selected(),
            screen.state.threshold,
            "median",
            max_memory_mib=200.0,
        )
        assert (c.sweet.run.id, c.a.id, c.b.id) == (cli.sweet.run.id, cli.a.id, cli.b.id)
        assert "memory ≤ 200 MiB" in text(screen, "#cmp-note")
        assert "(median ≤ 14 ms, memory ≤ 200 MiB): B net-int8 b1" in text(screen, "#cmp-sweet")
        await type_into(pilot, screen, "memory", "")  # empty: no limit
        assert screen.comparison.sweet.run.id == "net-int8-4"


async def test_a_bad_memory_limit_is_said_and_refused_and_nothing_is_stored(mem_app):
    async with mem_app.run_test(size=(80, 24)) as pilot:
        screen = await open_compare(mem_app, pilot, "net-fp32", "net-int8")
        stamp = mem_app.store.path.stat().st_mtime_ns
        for typed, reason in (
            ("abc", "memory limit 'abc' is not a number"),
            ("0", "memory limit 0 is out of range"),
            ("-5", "memory limit -5 is out of range"),
        ):
            await type_into(pilot, screen, "memory", typed)
            note = screen.query_one("#cmp-note", Static)
            assert reason in text(screen, "#cmp-note") and note.has_class("error"), typed
            assert "no memory limit until it is fixed" in text(screen, "#cmp-note")
            assert screen.state.max_memory is None
            assert screen.comparison.sweet.run.id == "net-int8-4"  # limited by nothing
        screen.query_one("#cmp-runs").focus()
        await pilot.press("c")
        await wait_for(pilot, lambda: mem_app.focused is screen.query_one("#cmp-memory"))
        assert mem_app.screen is screen
        assert any("out of range" in n.message for n in mem_app._notifications)
        assert mem_app.store.path.stat().st_mtime_ns == stamp
        screen.query_one("#cmp-runs").focus()
        await pilot.press("m")  # the key that goes to the field
        await wait_for(pilot, lambda: mem_app.focused is screen.query_one("#cmp-memory"))
