"""The timed window's bookkeeping, on a clock the test moves (no dependence on sleep)."""

from __future__ import annotations

import pytest

from perftui.bench import recorder as recorder_module
from perftui.bench.recorder import WindowRecorder
from perftui.domain.records import Budget


class Clock:
    """Stands in for the recorder's `time` module: `perf_counter` is what the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(recorder_module, "time", fake)
    return fake


def test_iterations_alone_do_not_stop_the_window():
    recorder = WindowRecorder(Budget(time_s=60, iterations=3), batch=2)
    recorder.begin()
    for _ in range(3):
        recorder.record(0.001)
    assert recorder.iterations == 3 and not recorder.done()


def test_time_alone_does_not_stop_the_window(clock: Clock):
    recorder = WindowRecorder(Budget(time_s=0.01, iterations=3), batch=2)
    recorder.begin()
    clock.advance(0.001)
    recorder.record(0.001)
    clock.advance(0.02)
    assert not recorder.done()  # the time is up, the iterations are not
    recorder.record(0.001)
    assert not recorder.done()
    clock.advance(0.001)
    recorder.record(0.001)
    assert recorder.done()
    assert recorder.measurement().duration_s == pytest.approx(0.022)


def test_the_window_ends_at_the_last_completion_not_when_it_is_checked(clock: Clock):
    recorder = WindowRecorder(Budget(time_s=1.0, iterations=1), batch=1)
    recorder.begin()
    clock.advance(0.5)
    recorder.record(0.5)
    clock.advance(5.0)  # time passes with no request completing
    assert not recorder.done()  # the measured window would be short: keep measuring
    clock.advance(0.001)
    recorder.record(0.001)
    assert recorder.done() and recorder.measurement().duration_s >= 1.0


def test_throughput_counts_samples_over_the_window(clock: Clock):
    recorder = WindowRecorder(Budget(time_s=0, iterations=1), batch=4)
    recorder.begin()
    clock.advance(0.05)
    recorder.record(0.05)
    clock.advance(0.05)
    recorder.record(0.05)
    clock.advance(3.0)  # idle after the last completion: not part of the window
    measured = recorder.measurement()
    assert measured.duration_s == pytest.approx(0.1)
    assert measured.throughput_fps == pytest.approx(8 / 0.1)  # samples, not requests
    assert list(measured.latencies_ms) == [50.0, 50.0]


def test_cancel_stops_and_is_remembered():
    flag = {"stop": False}
    recorder = WindowRecorder(
        Budget(time_s=100, iterations=10**6), 1, cancelled=lambda: flag["stop"]
    )
    recorder.begin()
    assert not recorder.done()
    flag["stop"] = True
    assert recorder.done() and recorder.was_cancelled


def test_ticks_are_rate_limited_and_report_the_recent_window(clock: Clock):
    ticks = []
    step = 2.0**-9  # ~2 ms, exact in binary: the clock's sums carry no rounding
    recorder = WindowRecorder(
        Budget(time_s=0, iterations=1), 1, on_tick=ticks.append, tick_s=8 * step
    )
    recorder.begin()
    for _ in range(40):  # a request every step: a tick every 8 requests, no more
        clock.advance(step)
        recorder.record(step)
    assert [t.iterations for t in ticks] == [8, 16, 24, 32, 40]
    assert all(t.latency_ms == pytest.approx(step * 1000) for t in ticks)
    assert all(t.throughput_fps == pytest.approx(1 / step) for t in ticks)  # the recent 8
    assert ticks[-1].fraction == 1.0 and ticks[-1].elapsed_s == pytest.approx(40 * step)


def test_a_tick_reports_the_requests_since_the_previous_one(clock: Clock):
    ticks = []
    recorder = WindowRecorder(
        Budget(time_s=1.0, iterations=1), 2, on_tick=ticks.append, tick_s=0.125
    )
    recorder.begin()
    for _ in range(4):  # 4 quick requests in 0.125 s: the first tick
        clock.advance(0.03125)
        recorder.record(0.03125)
    clock.advance(0.125)  # a slow phase: one request of 125 ms
    recorder.record(0.125)
    assert [t.iterations for t in ticks] == [4, 5]
    assert ticks[1].latency_ms == pytest.approx(125.0)  # the recent window only
    assert ticks[1].throughput_fps == pytest.approx(2 / 0.125)  # one request of batch 2
    assert ticks[1].fraction == pytest.approx(0.25)  # 0.25 s of the 1 s minimum
