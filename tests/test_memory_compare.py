"""Memory beside speed in a comparison and in the CLI's runs table (pure, no engine)."""

from __future__ import annotations

from dataclasses import replace

from perftui.cli.compare_report import comparison_document, comparison_text
from perftui.cli.textfmt import runs_table
from perftui.domain.compare import compare_projects
from perftui.domain.measurement.memory import RunMemory, fits_memory, memory_ratio, runs_peak_text
from perftui.domain.records import RunConfig, RunResult
from tests.factories import flat_latency, run_result


def run(id: str, fps: float, median: float, peak: float | None, batch: int = 1) -> RunResult:
    memory = None
    if peak is not None:
        memory = RunMemory(
            baseline_mib=80.0, compile_peak_mib=peak - 10, window_peak_mib=peak, end_mib=peak
        )
    return run_result(
        fps,
        config=RunConfig(batch=batch),
        iterations=200,
        latency_ms=flat_latency(median, stdev=0.01, cv=0.01),
        memory=memory,
        id=id,
    )


def test_ratio_shows_int8_saving() -> None:
    fp32 = [RunMemory(baseline_mib=80, window_peak_mib=200), None]
    int8 = [RunMemory(baseline_mib=80, window_peak_mib=120)]
    found = memory_ratio(fp32, int8)
    assert found is not None and found.ratio == 0.6
    assert found.increase_ratio == 40 / 120
    assert "memory B/A 0.60x" in found.text
    assert memory_ratio([None], int8) is None


def test_fits_and_spread() -> None:
    assert fits_memory(run("a", 1, 1, 150), None)
    assert fits_memory(run("a", 1, 1, 150), 150)
    assert not fits_memory(run("a", 1, 1, 150), 149)
    assert not fits_memory(run("a", 1, 1, None), 1000)  # unknown cannot be shown to fit
    memories = [RunMemory(window_peak_mib=100), RunMemory(window_peak_mib=104)]
    assert runs_peak_text(memories) == "102.0 ±2.0"
    assert runs_peak_text([None]) == "?"


def test_sweet_spot_under_a_memory_limit() -> None:
    a = [run("a1", 100, 2, 150), run("a8", 300, 9, 400, batch=8)]
    b = [run("b1", 180, 1.5, 110), run("b8", 500, 6, 260, batch=8)]
    free = compare_projects("fp32", a, "int8", b, threshold_ms=10)
    assert free.sweet is not None and free.sweet.run.id == "b8"
    limited = compare_projects("fp32", a, "int8", b, threshold_ms=10, max_memory_mib=200)
    assert limited.sweet is not None and limited.sweet.run.id == "b1"
    assert limited.a is not None and limited.a.id == "a1"
    alone = compare_projects("fp32", a, "int8", b, max_memory_mib=300)  # no latency limit
    assert alone.sweet is not None and alone.sweet.run.id == "b8"
    assert (
        alone.memory is not None and alone.memory.ratio == 260 / 150
    )  # A at b8 (400) does not fit
    text = comparison_text(limited)
    assert "sweet spot under 10 ms (median) and 200.0 MiB: B int8" in text
    assert "memory B/A" in text
    document = comparison_document(limited)
    assert document["max_memory_mib"] == 200 and document["memory"]["ratio"] == 110 / 150
    tight = compare_projects("fp32", a, "int8", b, max_memory_mib=100)
    assert tight.sweet is None
    assert any("A (fp32) has no run with a memory peak" in note for note in tight.notes)


def test_runs_table_has_memory_columns() -> None:
    text = runs_table([run("a", 100, 2, 150), run("b", 100, 2, None, batch=2)])
    header, _, first, second = text.splitlines()[:4]
    assert header.split()[-4:] == ["peak", "MiB", "compile", "MiB"]
    assert first.split()[-2:] == ["150.0", "140.0"]
    assert second.split()[-2:] == ["?", "?"]


def test_memory_bars_leave_unknown_out() -> None:
    from perftui.domain.charts.memory import memory_bars

    runs = [
        replace(run("a", 100, 2, 150), started_at="2025-01-01T00:00:01"),
        replace(run("b", 100, 2, None, batch=2), started_at="2025-01-01T00:00:02"),
        replace(run("c", 100, 2, 170), started_at="2025-01-01T00:00:03"),
    ]
    assert [value for _, value in memory_bars(runs)] == [150, 170]
    assert memory_bars(runs)[1][0].endswith("#2")
