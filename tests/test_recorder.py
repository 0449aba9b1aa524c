import time

import pytest

from perftui.bench.recorder import WindowRecorder
from perftui.domain.records import Budget


def test_iterations_alone_do_not_stop_the_window():
    recorder = WindowRecorder(Budget(time_s=60, iterations=3), batch=2)
    recorder.begin()
    for _ in range(3):
        recorder.record(0.001)
    assert recorder.iterations == 3 and not recorder.done()


def test_time_alone_does_not_stop_the_window():
    recorder = WindowRecorder(Budget(time_s=0.01, iterations=3), batch=2)
    recorder.begin()
    recorder.record(0.001)
    time.sleep(0.02)
    assert not recorder.done()
    recorder.record(0.001)
    recorder.record(0.001)
    assert recorder.done()
    assert recorder.measurement().duration_s >= 0.01  # the reported window is never short


def test_throughput_counts_samples_over_the_window():
    recorder = WindowRecorder(Budget(time_s=0, iterations=1), batch=4)
    recorder.begin()
    time.sleep(0.05)
    recorder.record(0.05)
    time.sleep(0.05)
    recorder.record(0.05)
    measured = recorder.measurement()
    assert measured.duration_s == pytest.approx(0.1, abs=0.03)
    assert measured.throughput_fps == pytest.approx(8 / measured.duration_s)
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


def test_ticks_are_rate_limited_and_report_the_recent_window():
    ticks = []
    recorder = WindowRecorder(Budget(time_s=0, iterations=1), 1, on_tick=ticks.append, tick_s=0.02)
    recorder.begin()
    for _ in range(50):
        recorder.record(0.002)
        time.sleep(0.002)
    assert 2 <= len(ticks) <= 10
    assert ticks[-1].latency_ms == pytest.approx(2.0)
    assert ticks[-1].iterations <= 50 and ticks[-1].fraction == 1.0
