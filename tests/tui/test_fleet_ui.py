"""Several hosts from the dashboard: the benchmark form's Targets field and the live screen
that follows every host at once (fake clients here; the real one over a loopback sshd
at the end)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static

from perftui.domain.errors import InputError
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.store.database import Store
from perftui.targets.registry import Target, TargetBook
from perftui.tui.benchmark.fleet import FleetRunScreen
from perftui.tui.services import Services
from tests.conftest import MOBILENET
from tests.sshd import ALIAS, MISSING, SSHD, sshd
from tests.tui.test_configure import note, open_config
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


def rows(screen, table: str) -> list[list[str]]:
    found = screen.query_one(f"#{table}", DataTable)
    return [[str(cell).strip() for cell in found.get_row_at(n)] for n in range(found.row_count)]


async def type_targets(pilot, screen, text: str) -> None:
    field = screen.query_one("#targets", Input)
    field.focus()
    field.value = text
    await pilot.pause()


async def run_on(app, pilot, hosts: str) -> FleetRunScreen:
    screen = await open_config(app, pilot)
    await wait_for(pilot, lambda: screen.known is not None)
    await type_targets(pilot, screen, hosts)
    await pilot.press("ctrl+r")
    await wait_for(pilot, lambda: isinstance(app.screen, FleetRunScreen))
    return app.screen


async def test_targets_runs_the_benchmark_on_each_host_at_once(app, db: Path, services):
    TargetBook(db).add(Target("box", "user@box.example", price_per_hour=0.5))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await run_on(app, pilot, "local,box")
        await wait_for(pilot, lambda: not screen.running)
        hosts = rows(screen, "fleet-hosts")
        runs = rows(screen, "fleet-runs")
        status = str(screen.query_one("#fleet-status", Static).render())
    assert [row[:2] for row in hosts] == [["local", "4/4"], ["box", "4/4"]]
    assert all(row[2] == "done" and "±" in row[3] and "stable" in row[3] for row in hosts)
    assert sorted({row[0] for row in runs}) == ["box", "local"] and len(runs) == 8
    assert "finished: 8 ok" in status
    assert sorted(c.request.project.name for c in services.clients) == ["net-fp32", "net-fp32@box"]
    store = Store(db)
    box = store.get_project("net-fp32@box")
    assert box is not None and box.target == "box"
    assert len(store.runs("net-fp32@box")) == 4


async def test_an_unknown_target_is_refused_in_the_form(app, db: Path, services):
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_config(app, pilot)
        await wait_for(pilot, lambda: screen.known is not None)
        await type_targets(pilot, screen, "local,nobox")
        assert "no target named 'nobox'" in note(screen, "targets")
        assert "1 field(s) to fix" in str(screen.query_one("#cfg-plan", Static).render())
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert app.screen is screen and app.focused is screen.query_one("#targets")
        await type_targets(pilot, screen, "local,,x")
        assert "separated by commas" in note(screen, "targets")
    assert services.clients == [] and Store(db).get_project("net-fp32@nobox") is None


async def test_a_host_that_cannot_start_fails_only_its_own_share(app, db: Path, services):
    TargetBook(db).add(Target("box", "user@box.example"))
    fake = services.client

    def client(request: BenchmarkRequest, store: Store):
        if request.project.target == "box":
            raise InputError("target box (user@box.example) is unreachable: no route")
        return fake(request, store)

    services.client = client
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await run_on(app, pilot, "local,box")
        await wait_for(pilot, lambda: not screen.running)
        hosts = {row[0]: row for row in rows(screen, "fleet-hosts")}
        status = str(screen.query_one("#fleet-status", Static).render())
    assert hosts["local"][1:3] == ["4/4", "done"]
    assert hosts["box"][1] == "0/4" and hosts["box"][2].startswith("failed: target box")
    assert "4 ok, 4 not ok" in status and "1 host(s) failed" in status
    assert Store(db).get_project("net-fp32@box") is None


async def test_cancel_stops_every_host_and_keeps_what_finished(app, db: Path, services):
    TargetBook(db).add(Target("box", "user@box.example"))
    services.gate = threading.Event()  # each run stalls after its first tick
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await run_on(app, pilot, "local,box")
        await wait_for(pilot, lambda: len(services.clients) == 2)
        await pilot.press("x")
        await wait_for(pilot, lambda: not screen.running)
        hosts = rows(screen, "fleet-hosts")
    assert all(client.cancelled for client in services.clients)
    assert [row[2] for row in hosts] == ["cancelled", "cancelled"]
    stored = Store(db)
    assert [run.status for run in stored.runs("net-fp32@box")] == ["cancelled"]


@pytest.mark.skipif(SSHD is None, reason=MISSING)
def test_the_fleet_service_runs_here_and_on_a_real_target_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    store = Store(tmp_path / "dash.json")
    with sshd(tmp_path / "sshd") as server:
        monkeypatch.setenv("PERFTUI_SSH", server.ssh)
        TargetBook(store.path).add(Target("box", ALIAS, sys.executable, price_per_hour=0.34))
        project = Project("net", str(MOBILENET), "onnxruntime")
        request = BenchmarkRequest(
            project, (RunConfig(1, 1),), Budget(time_s=0.2, iterations=5, warmup=1)
        )
        fleet = Services().fleet(request, ["local", "box"], store)
        ends = [e.host for e in fleet.events() if e is not None and e.event is None]
        done = [s.client and s.client.runs for s in fleet.shares]
    assert sorted(ends) == ["box", "local"] and all(s.error is None for s in fleet.shares)
    assert all(runs and runs[0].status == "ok" for runs in done)
    [here], [there] = store.runs("net"), store.runs("net@box")
    assert here.status == there.status == "ok"
    assert there.resolved["environment"]["target"] == "box"
    assert there.resolved["environment"].get("price_per_hour") == 0.34
