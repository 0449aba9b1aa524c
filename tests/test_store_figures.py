"""A project's figures in its index entry: extended by appends alone (reading only the runs of
the configurations they belong to), computed again by other writes and for figures another
method stored, and read by the projects list from the index alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perftui.domain.measurement.figures import run_figures
from perftui.domain.measurement.summary import config_key
from perftui.domain.records import LayerProfile
from perftui.store import reader, write
from perftui.store.database import Store
from tests.store_helpers import edit_index, make_run, store_with_project

FP32 = (LayerProfile("c", "Conv", "jit", "FP32", "executed", 1.0),)


def figures(path: Path, project: str = "p") -> tuple:
    store = Store(path)
    (summary,) = [s for p, s in store.summaries() if p.name == project]
    return summary, store.precisions().get(project)


def test_appending_runs_extends_the_figures_without_reading_the_older_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store = store_with_project(tmp_path)
    first = store.add_run(
        make_run("p", throughput_fps=100.0, started_at="2025-01-01T00:00:00", benchmark_id="b1")
    )

    def read_all(*args: object) -> None:
        raise AssertionError("an append read the project's older runs")

    monkeypatch.setattr(write, "computed", read_all)
    fast = make_run(
        "p", throughput_fps=900.0, layers=FP32, started_at="2025-02-01T00:00:00", benchmark_id="b2"
    )
    slow = make_run("p", throughput_fps=5.0, layers=None, benchmark_id="b3")
    stored = Store(path).add_runs([(fast, np.ones(10)), (slow, None)])
    summary, precision = figures(path)
    assert summary.runs == 3 and summary.best_throughput_fps == 900.0
    assert summary.best_throughput_config == config_key(stored[0]) and precision == "FP32"
    monkeypatch.undo()
    Store(path).delete_run(stored[0].id)  # not an append: computed from the runs
    summary, precision = figures(path)
    assert (
        summary.runs == 2
        and summary.best_throughput_config == config_key(first)
        and precision == "I8"
    )


def test_the_best_runs_figures_are_read_from_the_index_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store = store_with_project(tmp_path)
    samples = np.random.default_rng(0).gamma(4.0, 1.0, 2000).astype(np.float32)
    best = store.add_run(make_run("p", throughput_fps=900.0, benchmark_id="b1"), samples)
    other = store.add_run(make_run("p", throughput_fps=9.0, benchmark_id="b2"), samples)
    expected = run_figures(best, samples)
    computed = Store(path).figures(other.id)
    assert computed == run_figures(other, samples)

    def unread(*args: object, **kwargs: object) -> None:
        raise AssertionError("the figures of a best run read its runs or samples")

    monkeypatch.setattr(reader.Reader, "part", unread)
    monkeypatch.setattr(reader.Reader, "payload", unread)
    fresh = Store(path)
    (summary,) = [s for _, s in fresh.summaries()]
    assert summary.best_throughput_config == config_key(best)
    headline = fresh.headline("p", summary.best_throughput_config)
    assert headline is not None and headline.figures == expected and headline.runs == 1
    monkeypatch.undo()
    assert fresh.figures(best.id) == expected
    assert fresh.figures("no such run") is None


def test_figures_of_another_method_are_computed_again_and_a_read_writes_nothing(
    tmp_path: Path,
) -> None:
    path, store = store_with_project(tmp_path)
    first = store.add_run(make_run("p", throughput_fps=100.0, benchmark_id="b1"), np.ones(10))

    def another_method(data: dict) -> None:
        (entry,) = data["projects"].values()
        entry["figures"]["method"] = "another"
        entry["figures"]["heads"] = {config_key(first): [1e9, 0.001]}

    edit_index(path, another_method)
    before = path.read_bytes()
    assert figures(path)[0].best_throughput_fps == 100.0  # computed, not stored
    assert path.read_bytes() == before
    Store(path).add_run(make_run("p", throughput_fps=50.0, benchmark_id="b2"), np.ones(10))
    summary, _ = figures(path)
    assert summary.best_throughput_fps == 100.0 and summary.runs == 2
    assert summary.best_throughput_config == config_key(first)


def test_a_run_at_a_rate_is_never_the_projects_best_beside_closed_loop_ones(
    tmp_path: Path,
) -> None:
    """Its throughput is the rate offered and its latency counts queueing: the projects
    list's best throughput and least latency are the closed-loop runs', on append and on a
    write that computes again; with only runs at a rate, there is no best."""
    from dataclasses import replace

    path, store = store_with_project(tmp_path)
    closed = make_run("p", throughput_fps=400.0, benchmark_id="b1")
    at_rate = make_run("p", throughput_fps=2000.0, benchmark_id="b2")
    at_rate = replace(at_rate, config=replace(at_rate.config, rate=2000.0 / 4))
    assert at_rate.latency_ms is not None
    quick = replace(at_rate.latency_ms, median=0.5)
    (first,) = store.add_runs([(closed, None)])
    Store(path).add_runs([(replace(at_rate, latency_ms=quick), None)])
    summary, _ = figures(path)
    assert summary.best_throughput_fps == 400.0 and summary.best_latency_ms == 1.9
    assert summary.best_throughput_config == summary.best_latency_config == config_key(first)
    Store(path).delete_run(first.id)  # computed again from the runs: one at a rate
    summary, _ = figures(path)
    assert summary.ok_runs == 1 and summary.best_throughput_fps is None
    assert summary.best_latency_ms is None and summary.best_throughput_config is None


def test_the_projects_list_says_a_project_with_only_runs_at_a_rate_has_no_closed_loop_run(
    tmp_path: Path,
) -> None:
    from dataclasses import replace

    from perftui.domain.records import RunConfig
    from tests.cli_helpers import perftui

    path, store = store_with_project(tmp_path, "rates")
    at_rate = make_run("rates", throughput_fps=800.0, config=RunConfig(rate=200.0))
    store.add_runs([(replace(at_rate, benchmark_id="b1"), None)])
    result = perftui("projects", db=path)
    assert result.returncode == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("rates"))
    assert row.count("no closed-loop run") == 2 and "800" not in row
