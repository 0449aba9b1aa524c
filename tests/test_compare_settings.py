"""A comparison of runs with different settings says which settings differ."""

from __future__ import annotations

from dataclasses import replace

from perftui.domain.compare import compare_projects
from perftui.domain.compare.settings import differing_settings
from perftui.domain.records import LatencyStats, RunConfig, RunResult
from tests.factories import run_result


def run(config: RunConfig, ran: str = "f32", fps: float = 100.0) -> RunResult:
    return run_result(
        fps, 1.0, config=config, iterations=200, resolved={"precision": ran}, id=f"r{fps:g}"
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
    assert "batch 1 vs 4" in note and note in c.measurement_notes and c.settings_note == note
    alike = compare_projects("A", [a], "B", [replace(b, config=a.config)])
    assert not any("differ in settings" in n for n in alike.notes)


def test_without_a_threshold_the_same_configuration_is_compared_on_both_sides():
    """Each side's own fastest run made batch 1 meet batch 4: 'B is 1.98x faster' beside
    'B's median latency is 2.15x higher'."""
    a = [run(RunConfig(batch=1), fps=100.0), run(RunConfig(batch=4), fps=150.0)]
    b = [run(RunConfig(batch=1), fps=90.0), run(RunConfig(batch=8), fps=400.0)]
    b[0] = replace(b[0], id="b1")
    c = compare_projects("A", a, "B", b)
    assert c.a is a[0] and c.b is b[0]
    assert any(
        n.startswith("like for like: the same configuration on both sides (b1 ") for n in c.notes
    )
    assert not any("differ in settings" in n for n in c.notes)
    apart = compare_projects("A", a[1:], "B", b[1:])
    assert "no configuration was measured on both sides" in " ".join(apart.notes)
    assert any("batch 4 vs 8" in n for n in apart.notes)


def test_a_side_with_no_run_under_the_threshold_says_its_fastest_is_compared():
    a = [run(RunConfig(batch=1), fps=100.0)]
    slow = replace(
        run(RunConfig(batch=1), fps=90.0), latency_ms=LatencyStats(9, 9, 9, 9, 9, 9, 0, 0)
    )
    c = compare_projects("A", a, "B", [slow], threshold_ms=2.0)
    under = "B (B) has no run at or under 2 ms (median): its fastest configuration is compared"
    assert under in c.notes
    assert "each side's fastest configuration at or under 2 ms (median)" in c.notes


def test_a_side_that_ran_below_f32_by_default_says_b_over_a_is_against_it():
    """FP32 vs INT8 on a BF16 CPU: the 'speed-up' is over bf16, not FP32."""
    a = run(RunConfig(batch=1), ran="bf16")
    b = replace(run(RunConfig(batch=1), ran="bf16", fps=300.0), id="b")
    c = compare_projects("fp32", [a], "int8", [b])
    assert any(n.startswith("A (fp32) ran in bf16, the engine's default") for n in c.notes)
    forced = replace(a, config=RunConfig(batch=1, precision="f32"), resolved={"precision": "f32"})
    assert not any(
        "A (fp32) ran in" in n for n in compare_projects("fp32", [forced], "i", [b]).notes
    )
