"""Quitting the dashboard while a real benchmark runs: the worker child process is gone and
the run in progress is stored as cancelled, with what it had measured.

The real app (real services, real worker process, real engine) driven by Pilot. The app runs
inside `asyncio.run`, as `perftui` runs it (`App.run`), and the checks come after it
returned: what a person finds once the `perftui` process has exited.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.store.database import Store
from perftui.tui.app import create_app
from tests.conftest import MOBILENET
from tests.process_helpers import process_gone
from tests.tui.waiting import wait_for

pytestmark = [pytest.mark.tui, pytest.mark.engine]

WORKER_MODULE = "perftui.bench.worker"


def worker_children() -> list[int]:
    """Pids of this process's children that run the benchmark worker."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # it ended while we looked
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and WORKER_MODULE.encode() in cmdline:
            found.append(int(entry.name))
    return found


def measuring(screen: object) -> bool:
    """A progress tick of the timed window reached the live screen's series."""
    series = getattr(screen, "series", None)
    return series is not None and any(line.xs for line in series.snapshot())


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to find the child")
def test_quitting_during_a_benchmark_stops_the_worker_and_keeps_the_run(tmp_path: Path):
    pytest.importorskip("onnxruntime")
    db = tmp_path / "quit.json"
    project = Store(db).add_project(Project("m", str(MOBILENET), "onnxruntime", "CPU"))
    # ten minutes of measuring: only the quit can end this run
    request = BenchmarkRequest(
        project, (RunConfig(batch=1, threads=1),), Budget(time_s=600, iterations=5, warmup=1)
    )
    seen: dict[str, int] = {}

    async def scenario() -> None:
        app = create_app(db)  # the real services: validation, child-process client, store
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            app.run_benchmarks([request], validated=False)
            await wait_for(pilot, lambda: len(worker_children()) == 1, 90)
            seen["worker"] = worker_children()[0]
            await wait_for(pilot, lambda: measuring(app.screen), 90)
            await pilot.press("ctrl+q")

    asyncio.run(scenario())  # returns, as App.run does, once the app and its workers ended

    assert process_gone(seen["worker"]), "the benchmark worker outlived the dashboard"
    assert worker_children() == []
    runs = Store(db).runs("m")
    assert [r.status for r in runs] == ["cancelled"], runs
    assert runs[0].iterations > 0 and runs[0].latency_ms is not None  # what it had measured
