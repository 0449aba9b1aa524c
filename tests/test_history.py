"""`perftui history`: one configuration over time, the environment changes between points and
the change points beyond the noise (perftui.domain.regression.history)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from perftui.domain.records import BenchmarkRequest, Project, RunConfig, RunResult
from perftui.domain.regression.history import change_points
from perftui.store.database import Store
from tests.cli_helpers import one_error_line, perftui
from tests.factories import run_result

CONFIG = RunConfig(batch=1, threads=1, api="sync", hint="latency")
OTHER = RunConfig(batch=4, threads=1, api="sync", hint="latency")


def environment(openvino: str, perftui_version: str) -> dict:
    return {"cpu_model": "Test CPU", "openvino": openvino, "perftui": perftui_version,
            "governor": "performance", "target": "local"}  # fmt: skip


def measured(fps: float, rng: random.Random) -> RunResult:
    """A run of about `fps` with twenty windows that vary by about 1 %."""
    windows = tuple(fps * (1 + rng.gauss(0, 0.01)) for _ in range(20))
    return run_result(
        fps, 1000 / fps, config=CONFIG, iterations=1000, duration_s=1.0, window_fps=windows
    )


def history_store(db: Path) -> None:
    """12 dates; throughput falls 15 % after the 7th, where OpenVINO 2026.3 became 2026.4;
    perftui's version changed after the 4th with no step; another configuration beside."""
    store = Store(db)
    project = store.add_project(Project("det", "/models/det.xml", "openvino"))
    rng = random.Random(7)
    for day in range(12):
        request = BenchmarkRequest(project, (CONFIG, OTHER))
        benchmark = store.add_benchmark(request)
        fps = (1000.0 if day < 7 else 850.0) * (1 + rng.gauss(0, 0.015))
        env = environment("2026.3" if day < 7 else "2026.4", "0.1.0" if day < 4 else "0.2.0")
        for config, value in ((CONFIG, fps), (OTHER, 3000.0)):
            run = measured(value, rng)
            store.add_run(
                RunResult(**{**run.__dict__, "config": config, "project": "det",
                             "benchmark_id": benchmark, "resolved": {"environment": env},
                             "started_at": f"2026-03-{day + 1:02d}T10:00:00+00:00"})
            )  # fmt: skip


def test_history_names_the_one_change_point_and_its_cause(tmp_path: Path):
    db = tmp_path / "db.json"
    history_store(db)
    done = perftui("history", "det", "--config", "b1 t1", "--json", db=db)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert len(found["points"]) == 12
    assert all(lo < p["value"] < hi for p in found["points"] for lo, hi in [p["interval"]])
    assert found["points"][4]["changes"] == ["perftui 0.1.0 -> 0.2.0"]
    [step] = found["change_points"]
    assert step["before"].startswith("2026-03-07") and step["after"].startswith("2026-03-08")
    assert step["changes"] == ["OpenVINO 2026.3 -> 2026.4"]
    assert 0.80 < step["interval"][0] < step["ratio"] < step["interval"][1] < 0.90
    assert step["text"].startswith("throughput fell 1")
    assert step["text"].endswith(
        "between 2026-03-07 10:00 and 2026-03-08 10:00: OpenVINO 2026.3 -> 2026.4"
    )
    text = perftui("history", "det", "--config", "b1 t1", db=db).stdout
    assert "change points:" in text and text.count("fell") == 1


def test_a_steady_configuration_has_no_change_point(tmp_path: Path):
    db = tmp_path / "db.json"
    history_store(db)
    done = perftui("history", "det", "--config", "b4", "--json", db=db)
    assert json.loads(done.stdout)["change_points"] == []


def test_a_config_that_matches_several_or_none_is_refused(tmp_path: Path):
    db = tmp_path / "db.json"
    history_store(db)
    assert "matches several" in one_error_line(perftui("history", "det", "--config", "t1", db=db))
    assert "matches no" in one_error_line(perftui("history", "det", "--config", "b9", db=db))


def test_noise_alone_rarely_finds_a_change_point():
    """Series of 12 points varying by 2 % with no step: one in twenty or fewer shows one."""
    found = 0
    for seed in range(400):
        rng = random.Random(seed)
        values = [1000 * (1 + rng.gauss(0, 0.02)) for _ in range(12)]
        found += bool(change_points(values, [0.01] * 12))
    assert found / 400 <= 0.05


def test_two_steps_are_both_found():
    values = [100.0] * 5 + [120.0] * 5 + [90.0] * 5
    noisy = [v * (1 + 0.005 * ((i * 7) % 3 - 1)) for i, v in enumerate(values)]
    assert [index for index, *_ in change_points(noisy)] == [5, 10]


def store_with_an_invalid_point(db: Path) -> None:
    """Three dates of CONFIG; the second's windows swing by half (its verdict: invalid)."""
    store = Store(db)
    project = store.add_project(Project("det", "/models/det.xml", "openvino"))
    rng = random.Random(11)
    for day in range(3):
        benchmark = store.add_benchmark(BenchmarkRequest(project, (CONFIG,)))
        run = measured(1000.0, rng)
        if day == 1:
            swing = tuple(1000.0 * (0.5 if i % 2 else 1.5) for i in range(20))
            run = RunResult(**{**run.__dict__, "window_fps": swing})
        store.add_run(
            RunResult(**{**run.__dict__, "project": "det", "benchmark_id": benchmark,
                         "started_at": f"2026-04-{day + 1:02d}T10:00:00+00:00"})
        )  # fmt: skip


def test_every_point_carries_its_verdict(tmp_path: Path):
    """An invalid benchmark's figure was listed like any other, without its verdict."""
    db = tmp_path / "db.json"
    store_with_an_invalid_point(db)
    found = json.loads(perftui("history", "det", "--json", db=db).stdout)
    assert [p["verdict"] for p in found["points"]] == ["stable", "invalid", "stable"]
    assert found["points"][1]["reasons"] and not found["points"][0]["reasons"]
    lines = perftui("history", "det", db=db).stdout.splitlines()
    points = [line for line in lines if line.startswith("  2026-04-")]
    assert [line.split()[-1] for line in points] == ["stable", "invalid", "stable"]
    assert all(re.search(r"items/s \([\d.]+-[\d.]+\)", line) for line in points), points
    why = lines[lines.index(points[1]) + 1]
    assert why.startswith("    invalid: "), lines
