"""The projects list's best is a configuration's combined figure (its repetitions combined),
the same figure `show` gives its group row, never one lucky run's: in the CLI and on the home
screen."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from textual.widgets import DataTable

from perftui.cli.textfmt import with_interval
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.store.database import Store
from perftui.tui.app import create_app
from perftui.tui.kit import format as fmt
from tests.cli_helpers import perftui
from tests.tui.conftest import make_run
from tests.tui.waiting import wait_for

LUCKY, STEADY = RunConfig(1, 1), RunConfig(1, 2)


def lucky_project(path: Path) -> Store:
    """One configuration with a lucky run (700 items/s beside 60 and 50: combined 270), another
    steady at ~300: the steady one is the best configuration."""
    store = Store(path)
    project = store.add_project(Project("p", "/models/p.onnx", "openvino", "CPU"))
    bench = store.add_benchmark(BenchmarkRequest(project, (LUCKY, STEADY), Budget(time_s=1.0)))
    samples = np.random.default_rng(0).gamma(4.0, 1.0, 500)
    fps = {LUCKY: (700.0, 60.0, 50.0), STEADY: (300.0, 310.0, 290.0)}
    second = 0
    for repeat in range(3):  # stored one by one, as the live bench stores them
        for config in (LUCKY, STEADY):
            second += 1
            run = make_run("p", config.batch, config.threads, fps[config][repeat], second)
            run = replace(run, benchmark_id=bench, repetition=repeat, id=f"r{second}")
            Store(path).add_run(run, samples * (1 + second / 10))
    return store


def steady_group(path: Path) -> dict:
    shown = perftui("show", "p", "--json", db=path)
    assert shown.returncode == 0, shown.stderr
    (group,) = [g for g in json.loads(shown.stdout)["groups"] if g["config"]["threads"] == 2]
    return group


def test_the_cli_headline_is_the_best_configuration_combined(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    lucky_project(path)
    group = steady_group(path)
    listed = perftui("projects", "--json", db=path)
    assert listed.returncode == 0, listed.stderr
    (project,) = json.loads(listed.stdout)["projects"]
    assert group["repeats"] == 3 and project["best_throughput_fps"] == group["throughput_fps"]
    best = project["best_throughput"]
    assert best["runs"] == 3 and best["config"] == STEADY.label()
    assert best["throughput_ci"] == group["throughput_ci"]
    assert best["verdict"] == group["verdict"]
    assert project["best_throughput_fps"] < 700.0  # not the lucky run
    text = perftui("projects", db=path)
    shown = perftui("show", "p", db=path)
    figure = with_interval(group["throughput_fps"], None)
    assert figure in text.stdout and figure in shown.stdout
    assert "700.0" not in text.stdout


@pytest.mark.tui
async def test_the_home_screen_headline_is_the_best_configuration_combined(
    tmp_path: Path,
) -> None:
    from tests.tui.conftest import FakeServices

    path = tmp_path / "db.json"
    store = lucky_project(path)
    runs = store.runs("p")
    from perftui.domain.measurement.figures import group_runs

    groups = group_runs(runs, lambda r: store.latency_samples(r.id))
    (steady,) = [g for g in groups if g.config == STEADY]
    app = create_app(path, FakeServices())
    async with app.run_test(size=(120, 30)) as pilot:
        table = app.screen.query_one("#projects", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1)
        row = [str(cell) for cell in table.get_row_at(0)]
    figures = steady.figures
    assert row[5] == fmt.fps_ci(figures.throughput_fps, figures.throughput)
    assert row[6] == fmt.verdict_mark(figures.verdict.status)
    assert row[7] == fmt.ms_ci(steady.latency_ms("median"), figures.latency.get("median"))
    assert not row[5].startswith(fmt.fps(700.0))


def test_the_cli_headline_loads_no_numpy(tmp_path: Path) -> None:
    """The stored headline figures are read back without numpy (the listing's rule)."""
    path = tmp_path / "db.json"
    lucky_project(path)
    code = (
        "import sys; from perftui.cli.entry import main;"
        f" main(['projects', '--db', {str(path)!r}]);"
        " print('numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "False" and "±" in out.stdout
