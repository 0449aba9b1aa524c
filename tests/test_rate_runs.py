"""Runs at a rate (issue 42) judged and shown by their traffic figures: a run that kept up
is not called noisy for windows that follow its arrivals; one that saturated or whose
scheduler ran late says so in its verdict, and the CLI's table gives the open loop's
figures beside the closed loop's, whose output stays as it was."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from perftui.cli.textfmt import runs_table
from perftui.domain.measurement.figures import run_figures
from perftui.domain.measurement.verdict import INVALID, STABLE
from perftui.domain.units import ms, spread_text
from tests.store_helpers import make_run
from tests.traffic_runs import traffic_run


def test_a_run_that_kept_up_is_not_judged_by_its_arrivals_windows() -> None:
    run, samples = traffic_run(100.0)
    # Poisson arrivals: a window's completions vary as its arrivals do (±25 % at 16 a window)
    poisson = np.random.default_rng(3).poisson(16, 24) * 4.0
    run = replace(run, window_fps=tuple(float(x) for x in poisson))
    verdict = run_figures(run, samples).verdict
    assert verdict.status == STABLE, verdict.reasons


def test_a_saturated_run_is_invalid_and_says_why_in_one_reason() -> None:
    run, samples = traffic_run(600.0)
    assert run.traffic is not None and run.traffic.is_saturated
    verdict = run_figures(run, samples).verdict
    assert verdict.status == INVALID
    saturated = [r for r in verdict.reasons if r.startswith("saturated at 600/s: ")]
    assert len(saturated) == 1 and "served" in saturated[0], verdict.reasons


def test_a_late_scheduler_makes_the_run_invalid() -> None:
    run, samples = traffic_run(100.0, late_s=0.002)
    assert run.traffic is not None and not run.traffic.is_saturated
    verdict = run_figures(run, samples).verdict
    assert verdict.status == INVALID
    assert any(r.startswith("schedule not kept") for r in verdict.reasons), verdict.reasons


def test_the_table_adds_the_open_loop_figures_for_runs_at_a_rate() -> None:
    kept, kept_samples = traffic_run(100.0, started_at="2026-11-29T09:00:00+00:00")
    full, full_samples = traffic_run(600.0, started_at="2026-11-29T09:00:01+00:00")
    samples = {id(kept): kept_samples, id(full): full_samples}
    text = runs_table([kept, full], lambda run: samples[id(run)])
    head, _, rest = text.partition("open loop: latency from each request's scheduled arrival")
    assert "#2 invalid: saturated at 600/s" in head
    said, header, _, first, second = rest.strip().splitlines()
    assert said == ", queueing included"
    assert header.split()[:5] == ["#", "config", "verdict", "offered", "/s"]
    assert first.startswith("1  b1 t:auto s:auto r:auto sync @100/s  stable ")
    assert second.startswith("2  b1 t:auto s:auto r:auto sync @600/s  invalid ")
    assert first.endswith("yes") and second.endswith("saturated")
    assert kept.traffic is not None
    p99 = kept.traffic.latency["p99"]
    assert f"{ms(p99.value)}{spread_text(p99)}" in first  # p99 from arrival, its interval


def test_closed_loop_runs_get_no_open_loop_table() -> None:
    run = make_run("p")
    assert "open loop" not in runs_table([run])


def test_repetitions_at_a_rate_are_not_noisy_for_their_draws_of_arrivals() -> None:
    from perftui.domain.measurement.figures import group_runs

    first, samples = traffic_run(100.0)
    offered = (86.0, 94.0, 100.0, 106.0, 114.0)  # each draw offered a little fewer or more
    runs = [
        replace(first, id=f"r{i}", throughput_fps=fps, repetition=i)
        for i, fps in enumerate(offered)
    ]
    (group,) = group_runs(runs, lambda _run: samples)
    assert group.figures.verdict.status == STABLE, group.figures.verdict.reasons


def test_a_closed_loop_beside_rates_reads_closed_loop_in_a_label_of_what_differs() -> None:
    from perftui.domain.labels import config_labels
    from perftui.domain.records import RunConfig

    matrix = [RunConfig(b, rate=r) for b in (1, 2) for r in (None, 200.0, 1000.0)]
    labels = config_labels(matrix)
    assert labels.labels == (
        "b1 closed loop",
        "b1 @200/s",
        "b1 @1000/s",
        "b2 closed loop",
        "b2 @200/s",
        "b2 @1000/s",
    )
    assert "closed" not in labels.common and "@" not in labels.common
