"""Comparisons that say what is real: B/A with an interval, within-noise sweet spots, a
profile that contradicts the measurement, and repetitions interleaved across the matrix."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from perftui.domain.compare import NO_DIFFERENCE, Side, compare_projects, difference
from perftui.domain.compare.pairing import paired_runs
from perftui.domain.measurement.stats import latency_stats
from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.records import BenchmarkRequest, LayerProfile, Project, RunConfig, RunResult
from tests.factories import run_result


def run(fps: float, windows_spread: float = 0.01, **fields: object) -> RunResult:
    windows = tuple(fps * (1 + (windows_spread if i % 2 else -windows_spread)) for i in range(20))
    base = {
        "iterations": 500,
        "throughput_fps": fps,
        "latency_ms": latency_stats(np.full(500, 1000.0 / fps)),
        "window_fps": windows,
        "benchmark_id": "b",
    }
    return run_result(**{**base, **fields})


def test_a_real_difference_is_stated_with_its_interval():
    found = difference("throughput", Interval(100, 98, 102, 3), Interval(142, 139, 145, 3))
    assert found.significant and found.text.startswith("B is 1.42x faster (1.3")
    slower = difference("throughput", Interval(142, 139, 145, 3), Interval(100, 98, 102, 3))
    assert slower.text.startswith("B is 1.42x slower")
    latency = difference("median", Interval(10, 9.8, 10.2, 3), Interval(5, 4.9, 5.1, 3))
    assert latency.text.startswith("B's median latency is 2.00x lower")


def test_an_interval_that_reaches_zero_is_too_noisy_to_judge():
    found = difference("throughput", Interval(100, 0, 250, 3), Interval(70, 40, 100, 3))
    assert found.ratio is None and not found.significant
    assert found.text == "throughput: too noisy to judge (B/A 0.70x, interval unbounded)"
    missing = difference("median", None, Interval(5, 4.9, 5.1, 3))
    assert missing.text == "median: no interval on both sides to judge by"


def test_a_difference_within_the_noise_is_no_difference():
    found = difference("throughput", Interval(100, 90, 110, 3), Interval(101, 91, 111, 3))
    assert not found.significant and NO_DIFFERENCE in found.text


def test_compare_projects_judges_the_repetitions_combined():
    a = [run(100.0 + d, id=f"a{i}", repetition=i) for i, d in enumerate((-1.0, 0.0, 1.0))]
    b = [run(140.0 + d, id=f"b{i}", repetition=i) for i, d in enumerate((-1.0, 0.0, 1.0))]
    c = compare_projects("a", a, "b", b)
    assert c.throughput is not None and c.throughput.text.startswith("B is 1.40x faster")
    assert [len(g.runs) for g in c.groups if g] == [3, 3]
    same = compare_projects("a", a, "b", [run(100.5, id="x", windows_spread=0.2)])
    assert NO_DIFFERENCE in same.throughput.text
    assert any(note.startswith("B (b) is one run: its interval") for note in same.notes)
    assert not any("one run per side" in note for note in same.notes)  # A has 3


def test_the_sweet_spot_lists_the_runs_within_noise_of_it():
    best = run(101.0, windows_spread=0.1, id="a1")
    close = run(100.0, windows_spread=0.1, id="b1", config=RunConfig(batch=2))
    far = run(50.0, id="b2", config=RunConfig(batch=4))
    c = compare_projects("a", [best], "b", [close, far], threshold_ms=100.0)
    assert c.sweet is not None and c.sweet.run.id == "a1"
    assert [(x.side, x.run.id) for x in c.sweet.within_noise] == [(Side.B, "b1")]


def test_a_profile_that_contradicts_the_measurement_is_noted():
    def layers(ms: float) -> tuple[LayerProfile, ...]:
        return (LayerProfile("conv", "Convolution", "jit", "FP32", "executed", ms),)

    a = run(100.0, id="a", layers=layers(9.0))
    b = run(200.0, id="b", layers=layers(12.0))  # measured 2x faster, profiled slower
    c = compare_projects("a", [a], "b", [b])
    assert any("per-layer profiles say B is slower" in note for note in c.notes)
    agreeing = compare_projects("a", [a], "b", [run(200.0, id="b", layers=layers(4.0))])
    assert not any("per-layer profiles" in note for note in agreeing.notes)


def test_repetitions_are_interleaved_across_the_matrix():
    configs = (RunConfig(batch=1), RunConfig(batch=2), RunConfig(batch=4))
    request = BenchmarkRequest(Project("p", "m.onnx", "openvino"), configs, repeat=2)
    order = [request.scheduled(i) for i in range(request.total_runs)]
    assert [(rep, c.batch) for rep, c in order] == [
        (0, 1), (0, 2), (0, 4), (1, 1), (1, 2), (1, 4)
    ]  # fmt: skip
    assert BenchmarkRequest.from_dict(request.to_dict()).repeat == 2


def alternated(fps: tuple[float, ...], label: str = "alternated t1", **fields: object):
    return [
        run(value, id=f"{fields.get('benchmark_id', 'b')}{i}", repetition=i,
            resolved={"label": label}, **fields)
        for i, value in enumerate(fps)
    ]  # fmt: skip


def test_sides_measured_alternately_are_judged_by_their_pairs():
    """Rounds at 100, 80 and 120 (the machine drifting) with B 1.25x A in each: as two
    groups of means that is no difference; as pairs it is found, and the note says why."""
    a = alternated((100.0, 80.0, 120.0), benchmark_id="ba")
    b = alternated((125.0, 100.0, 150.0), benchmark_id="bb")
    found = compare_projects("a", a, "b", b)
    assert found.throughput.text.startswith("B is 1.25x faster (1.25-1.25)")
    assert found.latency.text.startswith("B's median latency is 1.25x lower")
    assert any("measured alternately, 3 rounds" in note for note in found.measurement_notes)
    assert not any("one run per side" in note for note in found.notes)
    unlabelled = compare_projects(
        "a",
        [replace(r, resolved={}) for r in a],
        "b",
        [replace(r, resolved={}) for r in b],
    )
    assert NO_DIFFERENCE in unlabelled.throughput.text


def test_runs_of_different_measurements_are_never_paired():
    a = alternated((100.0, 80.0, 120.0), benchmark_id="ba")
    b = alternated((125.0, 100.0, 150.0), label="alternated t2", benchmark_id="bb")
    assert paired_runs(*compare_projects("a", a, "b", b).groups) == []


def test_pairs_are_the_rounds_both_sides_finished():
    a = alternated((100.0, 80.0, 120.0), benchmark_id="ba")
    b = alternated((125.0, 100.0, 150.0), benchmark_id="bb")
    b[1] = replace(b[1], status="failed", latency_ms=None)
    pairs = paired_runs(*compare_projects("a", a, "b", b).groups)
    assert [(x.repetition, y.repetition) for x, y in pairs] == [(0, 0), (2, 2)]
    b[2] = replace(b[2], status="cancelled", latency_ms=None)
    assert paired_runs(*compare_projects("a", a, "b", b).groups) == []


def test_a_plain_comparison_shows_the_latest_alternated_measurement():
    """After `compare --measure`, `compare A B` judges its pairs, not each side's fastest
    run measured apart; a pin or a latency threshold still picks as asked."""
    apart = run(300.0, id="fast", benchmark_id="apart")
    older = alternated((90.0, 95.0), label="alternated t0", benchmark_id="oa", started_at="1")
    older_b = alternated((99.0, 97.0), label="alternated t0", benchmark_id="ob", started_at="1")
    a = alternated((100.0, 80.0, 120.0), benchmark_id="ba", started_at="2")
    b = alternated((125.0, 100.0, 150.0), benchmark_id="bb", started_at="2")
    found = compare_projects("a", [apart, *older, *a], "b", [*b, *older_b])
    assert found.a is not None and found.a.id == "ba0" and found.paired_rounds == 3
    assert found.throughput.text.startswith("B is 1.25x faster")
    pinned = compare_projects("a", [apart, *a], "b", b, a_pinned="fast")
    assert pinned.a is not None and pinned.a.id == "fast" and pinned.paired_rounds == 0
    under = compare_projects("a", [apart, *a], "b", b, threshold_ms=1000.0)
    assert under.a is not None and under.a.id == "fast"
    one_side = compare_projects("a", [apart, *a], "b", older_b[:1])
    assert one_side.a is not None and one_side.a.id == "fast"  # no shared alternation


def test_no_difference_decided_by_the_noise_floor_says_so():
    floor = difference("throughput", Interval(100, 99.5, 100.5, 3), Interval(99, 98.5, 99.5, 3))
    assert not floor.significant and floor.ratio is not None and floor.ratio.hi < 1
    assert NO_DIFFERENCE in floor.text
    assert floor.text.endswith("(it excludes 1; the 2 % noise floor decided it)")
    within = difference("throughput", Interval(100, 90, 110, 3), Interval(101, 91, 111, 3))
    assert "floor" not in within.text  # an interval holding 1 needs no floor to say so
