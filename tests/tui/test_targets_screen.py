"""The Targets screen at 80x24: list, add (refused in the form with one line when bad), test,
setup with its progress, remove; the SSH side faked through the app's services."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select, Static

from perftui.targets.probe import Probe
from perftui.targets.registry import Target, TargetBook
from perftui.tui.targets.add import AddTargetDialog
from perftui.tui.targets.screen import TargetsScreen
from tests.tui.conftest import ENV
from tests.tui.test_new_project import models, open_screen, wait_for

pytestmark = pytest.mark.tui
XEON = {**ENV, "cpu_model": "Xeon 8480+", "isa": ["avx512_vnni", "amx_int8"], "openvino": "2026.4"}


def fake_probe(target: Target) -> Probe:
    if target.destination == "nowhere":
        return Probe(
            target, error=f"target {target.name} (nowhere) is unreachable", reachable=False
        )
    return Probe(target, {**XEON}, devices={"openvino": ["CPU"], "onnxruntime": ["CPU"]})


def setup_says(target: Target, say) -> str:
    say("building the perftui wheel of this checkout")
    say(f"installing into ~/.cache/perftui/venv on {target.name}")
    return "/home/me/.cache/perftui/venv/bin/python"


async def type_into(pilot, screen, values: dict[str, str]) -> None:
    for key, value in values.items():
        screen.query_one(f"#{key}", Input).value = value
    await pilot.press("ctrl+s")
    await pilot.pause()


async def test_targets_screen_add_test_setup_remove(app, db: Path, services):
    services.probe_target = fake_probe
    services.setup_target = setup_says
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        screen = app.screen
        assert isinstance(screen, TargetsScreen)
        table = screen.query_one("#targets", DataTable)
        await wait_for(pilot, lambda: screen.probes.get("local") is not None)
        assert table.row_count == 1 and "ready" in str(table.get_row_at(0))
        footer = {key for key, b in screen.active_bindings.items() if b.binding.show}
        assert {"a", "t", "s", "p", "d", "escape"} <= footer  # the verbs' keys, in the footer

        await pilot.press("a")
        dialog = app.screen
        assert isinstance(dialog, AddTargetDialog)
        error = dialog.query_one("#add-error", Static)
        for bad, says in (
            ({"name": "xeon", "destination": "-oProxyCommand=x"}, "not an SSH destination"),
            ({"destination": "lab-xeon", "price": "-1"}, "is not a price"),
            ({"price": "abc"}, "is not a price"),
            ({"name": "local", "price": "0.34"}, "not a target name"),
        ):
            await type_into(pilot, dialog, bad)
            assert app.screen is dialog and says in str(error.render())
            assert "\n" not in str(error.render())  # one line
        assert not TargetBook(db).path.exists()  # nothing stored
        await type_into(pilot, dialog, {"name": "xeon"})
        await wait_for(pilot, lambda: app.screen is screen and table.row_count == 2)
        [stored] = TargetBook(db).all()
        assert stored == Target("xeon", "lab-xeon", "python3", 0.34)
        await wait_for(pilot, lambda: "ready" in str(table.get_row_at(1)))
        row = [str(cell) for cell in table.get_row_at(1)]
        assert row[1] == "0.34" and row[5] == "vnni512 amx"  # 80 columns: no destination

        await pilot.press("a")  # an unreachable host: refused in the form, nothing stored
        dialog = app.screen
        typed = {"name": "gone", "destination": "nowhere", "python": "py3", "price": "0.2"}
        await type_into(pilot, dialog, typed)
        note = dialog.query_one("#destination-note", Static)
        await wait_for(pilot, lambda: "unreachable" in str(note.render()))
        assert app.screen is dialog and note.has_class("error")
        assert dialog.values() == typed  # every field kept
        assert app.focused is dialog.query_one("#destination", Input)
        assert [t.name for t in TargetBook(db).all()] == ["xeon"]
        await type_into(pilot, dialog, {"destination": "lab-gone"})  # mended: added
        await wait_for(pilot, lambda: app.screen is screen and table.row_count == 3)
        assert TargetBook(db).get("gone") == Target("gone", "lab-gone", "py3", 0.2)
        table.move_cursor(row=2)
        await pilot.press("d")
        await pilot.press("y")
        await wait_for(pilot, lambda: table.row_count == 2)

        table.move_cursor(row=1)
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.probes.get("xeon") is not None)
        detail = screen.query_one("#target-detail", Static)
        assert "lab-xeon: devices onnxruntime CPU; openvino CPU" in str(detail.render())
        await pilot.press("p")  # the price: refused in the prompt when it is not one
        prompt = app.screen.query_one(Input)
        prompt.value = "-1"
        await pilot.press("enter")
        assert "is not a price" in str(app.screen.query_one("#prompt-error", Static).render())
        prompt.value = "0.5"
        await pilot.press("enter")
        await wait_for(pilot, lambda: TargetBook(db).price("xeon") == 0.5)
        await pilot.press("s")
        await wait_for(pilot, lambda: TargetBook(db).get("xeon").python.endswith("venv/bin/python"))
        await pilot.press("d")
        await pilot.press("y")
        await wait_for(pilot, lambda: table.row_count == 1)
        assert TargetBook(db).all() == []
        await pilot.press("escape")
        assert not isinstance(app.screen, TargetsScreen)


async def test_the_new_project_form_offers_the_chosen_hosts_devices(
    app, db: Path, services, tmp_path: Path
):
    TargetBook(db).add(Target("box", "user@box.example"))
    asked: list[str] = []

    def box_devices(_db: Path, name: str) -> dict[str, list[str] | str]:
        asked.append(name)
        return {"openvino": ["CPU", "GPU.0"], "onnxruntime": "onnxruntime is not installed"}

    services.target_devices = box_devices
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_screen(app, pilot, models(tmp_path))
        target = screen.query_one("#target", Select)
        await wait_for(pilot, lambda: len(target._options) > 1 and screen.devices is not None)
        target.value = "box"
        await wait_for(pilot, lambda: screen.devices is not None and asked == ["box"])
        assert screen.devices["openvino"] == ["CPU", "GPU.0"]  # probed there, not here
        assert [v for _, v in screen.query_one("#engine", Select)._options] == ["openvino"]
        device = screen.query_one("#device", Select)
        assert [v for _, v in device._options if v != Select.NULL] == ["CPU", "GPU.0"]
        target.value = "local"
        await wait_for(
            pilot, lambda: screen.devices is not None and "GPU.0" not in str(screen.devices)
        )


async def test_the_detail_summary_says_what_a_priced_run_costs(app, db: Path):
    from perftui.domain.records import Project
    from perftui.store.database import Store
    from tests.tui.conftest import make_run
    from tests.tui.test_detail import open_detail, text

    store = Store(db)
    store.add_project(Project("net-xeon", "/models/net_fp32.onnx", "openvino", target="xeon"))
    run = make_run("net-xeon", 1, 1, 1000.0, 1)
    priced = {**run.resolved, "environment": {**ENV, "target": "xeon", "price_per_hour": 0.36}}
    store.add_run(replace(run, resolved=priced))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_detail(app, pilot, "net-xeon")
        await wait_for(pilot, lambda: "Cost" in text(screen, "summary-text"))
        # 0.36 per hour at 1000 inferences/s: 0.1 per million
        assert "Cost      0.1 per million inferences (at 0.36 per hour)" in text(
            screen, "summary-text"
        )
