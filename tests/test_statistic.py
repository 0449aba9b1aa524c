"""One list of statistics (domain/measurement/statistic.py): compare, tune, the gate and
history each accept exactly its names and judge each in its direction."""

from __future__ import annotations

import pytest

from perftui.domain.compare import run_latency
from perftui.domain.errors import InputError
from perftui.domain.forms.tune import TUNE_FORM
from perftui.domain.measurement.figures import group_runs
from perftui.domain.measurement.statistic import LATENCY_NAMES, NAMES, STATISTICS, statistic
from perftui.domain.records import RunConfig, RunResult
from perftui.domain.regression import gate
from perftui.domain.regression.history import figure_of
from tests.factories import run_result

UNKNOWN = ("p95", "mean", "fps", "")


def run(fps: float, latency_ms: float) -> RunResult:
    config = RunConfig(batch=1, threads=1, api="sync", hint="latency")
    return run_result(fps, latency_ms, config=config, iterations=100, duration_s=1.0)


def test_the_list_names_each_statistic_once_with_its_direction_and_unit() -> None:
    assert NAMES == ("throughput", "median", "p90", "p99")
    assert [(s.higher_is_better, s.unit) for s in STATISTICS] == [
        (True, "items/s"), (False, "ms"), (False, "ms"), (False, "ms")]  # fmt: skip
    assert LATENCY_NAMES == ("median", "p90", "p99")
    with pytest.raises(ValueError, match="one of throughput, median, p90, p99"):
        statistic("p95")


def test_compare_takes_exactly_the_latency_statistics() -> None:
    measured = run(100.0, 10.0)
    for name in LATENCY_NAMES:
        assert run_latency(measured, name) == 10.0
    for name in ("throughput", *UNKNOWN):
        with pytest.raises(ValueError):
            run_latency(measured, name)


def test_tune_takes_exactly_the_latency_statistics() -> None:
    parse = TUNE_FORM.parsers["stat"]
    assert [parse(name) for name in LATENCY_NAMES] == list(LATENCY_NAMES)
    for name in ("throughput", *UNKNOWN):
        with pytest.raises(InputError):
            parse(name)


def test_gate_takes_every_statistic_and_judges_it_in_its_direction() -> None:
    a, slower = run(100.0, 10.0), run(50.0, 20.0)
    for name in NAMES:
        assert gate.figure(a, name) == (100.0 if name == "throughput" else 10.0)
        values = [(gate.figure(a, name), gate.figure(slower, name))] * 6
        verdict = gate.judge_stat(name, [(x * (1 + i / 1000), y) for i, (x, y) in
                                         enumerate(values)], 0.05, 0.05)  # fmt: skip
        assert verdict.outcome == gate.FAIL, name
        assert verdict.higher_is_better is statistic(name).higher_is_better
    for name in UNKNOWN:
        with pytest.raises(ValueError):
            gate.figure(a, name)


def test_history_takes_every_statistic() -> None:
    (group,) = group_runs([run(100.0, 10.0)], lambda _run: None)
    for name in NAMES:
        found = figure_of(group, name)
        assert found is not None and found[0] == (100.0 if name == "throughput" else 10.0), name
    with pytest.raises(ValueError):
        figure_of(group, "p95")
