"""A verdict's reasons read as sentences a person can act on, and say what each belongs to."""

from __future__ import annotations

from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.measurement.verdict import INVALID, interval_findings

CALM = Interval(100.0, 95.0, 105.0, 10)
WILD = Interval(100.0, 1.0, 300.0, 10)


def test_one_noisy_figure_is_named_alone() -> None:
    [(status, reason)] = interval_findings(WILD, {"p90": CALM})
    assert status == INVALID
    assert reason.startswith("throughput is too noisy to use (the 95 % interval reaches zero")


def test_several_noisy_figures_are_listed_with_and() -> None:
    [(_, reason)] = interval_findings(WILD, {"median": WILD, "p99": WILD})
    assert reason.startswith("throughput, median latency and p99 latency are too noisy to use")


def test_calm_figures_find_nothing() -> None:
    assert interval_findings(CALM, {"median": CALM}) == []


def test_a_configurations_reasons_say_which_repetition_each_is_of() -> None:
    from dataclasses import replace

    from perftui.domain.measurement.figures import group_runs
    from tests.tui.conftest import make_run

    runs = [
        replace(make_run("p", 1, 1, fps, n), iterations=40, repetition=n, benchmark_id="b")
        for n, fps in enumerate((100.0, 104.0))
    ]
    [group] = group_runs(runs, lambda _run: None)
    reasons = group.figures.verdict.reasons
    assert reasons[0].startswith("repeat 1 (") and "p99 from only 40 samples" in reasons[0]
    assert any(r.startswith("repeat 2 (") and r.endswith(")") for r in reasons)
