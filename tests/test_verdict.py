"""Each reason of a run's verdict, provoked from a record, and figures for old records."""

from __future__ import annotations

import numpy as np

from perftui.domain.measurement.figures import group_runs, run_figures, run_windows
from perftui.domain.measurement.load import CpuReading, MachineLoad
from perftui.domain.measurement.stats import latency_stats
from perftui.domain.measurement.verdict import (
    INVALID,
    NOISY,
    QUICK_LOOK,
    STABLE,
    judge,
    load_findings,
)
from perftui.domain.records import LatencyStats, LayerProfile, RunConfig, RunResult
from tests.factories import run_result

STEADY = (100.0,) * 20


def make_run(samples: np.ndarray | None = None, **fields: object) -> RunResult:
    samples = np.full(200, 10.0) if samples is None else samples
    base = {
        "iterations": int(samples.size),
        "throughput_fps": 100.0,
        "latency_ms": latency_stats(samples),
        "window_fps": STEADY,
    }
    return run_result(**{**base, **fields})


def quiet_load(**changes: float) -> MachineLoad:
    values = {"total_s": 20.0, "busy_s": 10.5, "own_s": 10.0, "steal_s": 0.0, **changes}
    return MachineLoad(**values)


def test_a_steady_run_on_a_quiet_machine_is_stable():
    verdict = judge(make_run(load=quiet_load()), STEADY)
    assert verdict.status == STABLE and verdict.reasons == ()


def test_a_quick_look_is_never_stable():
    verdict = judge(make_run(load=quiet_load(), resolved={"label": QUICK_LOOK}), STEADY)
    assert verdict.status == NOISY
    assert verdict.reasons[0].startswith("quick look: one short run, too short for a verdict")


def test_spread_between_windows_makes_a_run_noisy_then_invalid():
    wobbly = tuple(100.0 + (15.0 if i % 2 else -15.0) for i in range(20))
    verdict = judge(make_run(), wobbly)
    assert verdict.status == NOISY and "varies 15% between windows" in verdict.reasons[0]
    wild = tuple(100.0 + (50.0 if i % 2 else -50.0) for i in range(20))
    assert judge(make_run(), wild).status == INVALID


def test_a_drift_beyond_the_noise_is_named():
    rng = np.random.default_rng(0)
    slowing = tuple(np.linspace(110.0, 90.0, 20) + rng.normal(0, 0.5, 20))
    verdict = judge(make_run(), slowing)
    assert any("drifted -1" in reason for reason in verdict.reasons)
    assert not any("drifted" in r for r in judge(make_run(), STEADY).reasons)


def test_a_busy_machine_is_provoked_from_the_cpu_counters():
    before = CpuReading(busy_s=100.0, idle_s=100.0, steal_s=1.0, own_s=5.0)
    after = CpuReading(busy_s=118.0, idle_s=101.0, steal_s=2.0, own_s=13.0)
    load = MachineLoad.between(before, after)  # 2 s of 2 CPUs: others 10 s of 20
    assert load.others_share == 0.5
    verdict = judge(make_run(load=load), STEADY)
    assert verdict.status == INVALID
    assert "other processes used 50% of the CPUs" in verdict.reasons[0]
    assert [status for status, _ in load_findings(quiet_load())] == []
    assert "stole 5%" in verdict.reasons[1]


def test_a_p99_from_few_samples_is_marked():
    verdict = judge(make_run(np.full(40, 10.0), window_fps=STEADY[:8]), STEADY[:8])
    assert verdict.status == NOISY and "p99 from only 40 samples" in verdict.reasons


def test_too_few_requests_for_an_interval():
    verdict = judge(make_run(np.full(12, 10.0), window_fps=()), ())
    assert any("too few requests (12)" in r for r in verdict.reasons)


def test_a_profile_that_disagrees_with_the_measurement():
    layers = (LayerProfile("conv", "Convolution", "jit", "FP32", "executed", 4.0),)
    verdict = judge(make_run(layers=layers), STEADY)  # 4 ms of layers, 10 ms measured
    assert verdict.status == NOISY and "60% under the measured median 10 ms" in verdict.reasons[0]
    close = (LayerProfile("conv", "Convolution", "jit", "FP32", "executed", 9.0),)
    assert judge(make_run(layers=close), STEADY).status == STABLE
    async_run = make_run(layers=layers, config=RunConfig(api="async"))
    assert judge(async_run, STEADY).status == STABLE  # its latency includes queueing


def test_failed_and_cancelled_runs_are_invalid():
    failed = RunResult(config=RunConfig(), status="failed", error="boom (during compile)")
    assert judge(failed, ()).to_dict() == {"status": INVALID, "reasons": ["boom (during compile)"]}


def test_an_old_record_gains_windows_and_intervals_from_its_samples():
    samples = np.random.default_rng(1).normal(10.0, 0.2, 400)
    old = make_run(samples, window_fps=(), id="r1")
    windows = run_windows(old, samples)
    assert len(windows) == 20
    figures = run_figures(old, samples)
    assert figures.throughput is not None and figures.throughput.contains(100.0)
    assert figures.latency["median"].contains(float(np.median(samples)))
    assert set(figures.to_dict()["latency_ci_ms"]) == {"median", "p99"}


def test_repetitions_are_combined_with_a_t_interval_and_their_spread_judged():
    runs = [
        make_run(throughput_fps=fps, repetition=i, id=f"r{i}", benchmark_id="b")
        for i, fps in enumerate((100.0, 104.0, 96.0))
    ]
    other = make_run(config=RunConfig(batch=4), id="x", benchmark_id="b")
    groups = group_runs([runs[1], other, runs[0], runs[2]], lambda _id: None)
    assert [len(g.runs) for g in groups] == [3, 1]
    combined = groups[0].figures
    assert [r.repetition for r in groups[0].runs] == [0, 1, 2]
    assert combined.throughput_fps == 100.0 and combined.throughput.n == 3
    assert combined.throughput.lo < 95.0 and combined.verdict.status == STABLE
    spread = [
        make_run(throughput_fps=f, repetition=i, benchmark_id="c") for i, f in enumerate((60, 140))
    ]
    assert (
        "between repetitions" in group_runs(spread, lambda _id: None)[0].figures.verdict.reasons[0]
    )


def test_latency_stats_record_round_trip_keeps_the_new_fields():
    run = make_run(load=quiet_load(), repetition=2)
    again = RunResult.from_dict(run.to_dict())
    assert again == run
    assert isinstance(again.latency_ms, LatencyStats)
