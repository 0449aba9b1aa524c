"""A comparison of runs with different settings says which settings differ."""

from __future__ import annotations

from dataclasses import replace

from perftui.domain.compare import compare_projects
from perftui.domain.compare.settings import differing_settings
from perftui.domain.records import LatencyStats, RunConfig, RunResult


def run(config: RunConfig, ran: str = "f32", fps: float = 100.0) -> RunResult:
    return RunResult(
        config=config,
        latency_ms=LatencyStats(1, 1, 1, 1, 1, 1, 0, 0),
        throughput_fps=fps,
        iterations=200,
        resolved={"precision": ran},
        id=f"r{fps:g}",
    )


def test_alike_runs_differ_in_nothing():
    config = RunConfig(batch=4, threads=2, dims=(("seq", 64),))
    assert differing_settings(run(config), run(config, fps=50.0)) == []


def test_each_differing_setting_is_named_with_both_values():
    a = run(RunConfig(batch=1, api="sync", dims=(("seq", 32),)), ran="bf16")
    b = run(replace(a.config, batch=4, api="async", hint="throughput", dims=(("seq", 64),)))
    assert differing_settings(a, b) == [
        "batch 1 vs 4",
        "hint latency vs throughput",
        "api sync vs async",
        "dims seq=32 vs seq=64",
        "precision run bf16 vs f32",
    ]


def test_the_comparison_notes_the_difference_beside_its_verdict():
    a, b = run(RunConfig(batch=1)), run(RunConfig(batch=4), fps=400.0)
    c = compare_projects("A", [a], "B", [b])
    [note] = [n for n in c.notes if "differ in settings" in n]
    assert "batch 1 vs 4" in note and note in c.measurement_notes
    alike = compare_projects("A", [a], "B", [replace(b, config=a.config)])
    assert not any("differ in settings" in n for n in alike.notes)
