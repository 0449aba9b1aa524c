"""The times derived from an open-loop run's record: queue, service, latency from arrival,
and the scheduler's lateness replayed over the slots."""

from __future__ import annotations

import numpy as np
import pytest

from perftui.bench.traffic import open_loop_measurement
from perftui.domain.traffic.figures import traffic_figures
from perftui.domain.traffic.timeline import Timeline

NAN = np.nan


def test_lateness_compares_each_start_with_the_slot_that_freed_for_it() -> None:
    """Two slots. Requests 0 and 1 start on time; 2 arrives while both are busy and waits
    for the first to free (at 0.010) yet starts at 0.013: 3 ms late. 3 arrives later, to a
    free slot, and starts 0.5 ms after it."""
    timeline = Timeline(
        scheduled=np.array([0.000, 0.001, 0.002, 0.030]),
        started=np.array([0.000, 0.001, 0.013, 0.0305]),
        ended=np.array([0.010, 0.020, 0.023, 0.040]),
        slots=2,
        window_s=0.05,
    )
    np.testing.assert_allclose(timeline.lateness(), [0.0, 0.0, 0.003, 0.0005], atol=1e-12)
    np.testing.assert_allclose(timeline.queue, [0.0, 0.0, 0.011, 0.0005], atol=1e-12)
    np.testing.assert_allclose(timeline.latency, [0.010, 0.019, 0.021, 0.010], atol=1e-12)


def test_requests_never_started_are_counted_as_unserved() -> None:
    timeline = Timeline(
        scheduled=np.array([0.0, 0.1, 0.2]),
        started=np.array([0.0, NAN, NAN]),
        ended=np.array([0.05, NAN, NAN]),
        slots=1,
        window_s=0.3,
    )
    assert timeline.lateness().size == 1
    figures = traffic_figures(timeline, 10.0)
    assert figures.completed == 1 and figures.requests == 3
    assert figures.saturated[0] == "2 of 3 requests were never served"


def test_a_run_with_nothing_served_has_no_latency_and_says_so() -> None:
    timeline = Timeline(np.array([0.0]), np.array([NAN]), np.array([NAN]), 1, 1.0)
    figures = traffic_figures(timeline, 1.0)
    assert figures.latency == {} and figures.achieved_rate == 0.0
    assert figures.service_median_ms is None and figures.queue_median_ms is None
    assert figures.is_saturated and figures.lateness_p99_ms == 0.0


@pytest.mark.parametrize("slots", [1, 3])
def test_a_perfect_schedule_has_no_lateness(slots: int) -> None:
    scheduled = np.arange(50) * 0.01
    timeline = Timeline(scheduled, scheduled.copy(), scheduled + 0.005, slots, 0.5)
    assert np.all(timeline.lateness() == 0.0)
    assert traffic_figures(timeline, 100.0).schedule_kept


def slices_timeline(queue_by_slice: list[float], service_s: float = 0.002) -> Timeline:
    """Constant arrivals, 20 per slice of a 2 s window, each waiting its slice's time."""
    scheduled = np.arange(200) * 0.01
    waits = np.repeat(np.asarray(queue_by_slice), 20)
    started = scheduled + waits
    return Timeline(scheduled, started, started + service_s, 1, 2.0)


def test_the_last_slices_held_up_by_a_hiccup_are_no_growing_queue() -> None:
    """A hiccup of the machine at the end of the window holds up the last two slices'
    requests; the queue did not grow through the window (a least-squares slope said so)."""
    figures = traffic_figures(slices_timeline([0.0] * 8 + [0.05, 0.1]), 50.0)
    assert not any("queue grew" in reason for reason in figures.saturated)


def test_a_queue_rising_through_the_window_is_growth() -> None:
    rising = [0.01 * k for k in range(10)]
    rising[3], rising[4] = rising[4], rising[3]  # not even strictly
    figures = traffic_figures(slices_timeline(rising), 50.0)
    assert any("queue grew" in reason for reason in figures.saturated), figures.saturated


def test_a_run_is_recorded_as_the_worker_records_a_closed_loop_one() -> None:
    """Latencies from arrival in the order the requests completed, the span to the last
    result, the items it served per second of it: what RunResult is built from."""
    timeline = Timeline(
        scheduled=np.array([0.0, 0.1, 0.2, 0.3]),
        started=np.array([0.0, 0.1, 0.2, NAN]),
        ended=np.array([0.5, 0.15, 0.3, NAN]),  # the first finished last
        slots=2,
        window_s=0.4,
    )
    measured = open_loop_measurement(timeline, batch=4)
    np.testing.assert_allclose(measured.latencies_ms, [50.0, 100.0, 500.0])
    assert measured.duration_s == 0.5
    assert measured.throughput_fps == pytest.approx(3 * 4 / 0.5)
    figures = traffic_figures(timeline, 10.0)
    assert figures.achieved_rate * 4 == pytest.approx(measured.throughput_fps)
