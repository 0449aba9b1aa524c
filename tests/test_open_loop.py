"""The open-loop runner on a stand-in engine of known service time: latency from each
request's arrival, queueing included; saturation; a stall seen by every request it held up."""

from __future__ import annotations

import time

import numpy as np

from perftui.bench.open_loop import run_open_loop
from perftui.bench.traffic import TrafficRun
from perftui.domain.traffic.arrivals import arrival_times
from perftui.domain.traffic.figures import traffic_figures
from tests.traffic_standin import StandIn

SERVICE_S = 0.010
"""10 ms a request: one slot serves 100 requests/s."""


def test_below_capacity_the_median_is_the_service_time() -> None:
    figures = TrafficRun(StandIn(SERVICE_S), arrival="poisson", seed=1).figures(20.0, 1.2)
    median = figures.latency["median"].value
    assert abs(median - SERVICE_S * 1000) <= 0.1 * SERVICE_S * 1000, figures
    assert not figures.is_saturated, figures.saturated
    assert figures.completed == figures.requests
    assert figures.service_median_ms is not None
    assert figures.service_median_ms >= SERVICE_S * 1000


def test_at_one_and_a_half_times_capacity_the_run_is_saturated() -> None:
    figures = TrafficRun(StandIn(SERVICE_S), arrival="poisson", seed=2).figures(150.0, 1.0)
    assert figures.is_saturated
    assert any("queue grew" in reason for reason in figures.saturated), figures.saturated
    assert figures.achieved_rate < 0.8 * figures.offered_rate
    # queueing is in the latency: the last arrivals waited far longer than one service
    assert figures.latency["p99"].value > 10 * SERVICE_S * 1000


def test_async_slots_serve_in_parallel_and_saturate_past_their_sum() -> None:
    """Four slots of 10 ms serve 400 requests/s: 200/s keeps up, 600/s does not."""
    run = TrafficRun(StandIn(SERVICE_S, requests=4), arrival="poisson", seed=3)
    calm = run.figures(200.0, 1.0)
    assert not calm.is_saturated, calm.saturated
    assert abs(calm.latency["median"].value - SERVICE_S * 1000) <= 0.1 * SERVICE_S * 1000
    assert run.figures(600.0, 1.0).is_saturated


def test_a_stall_raises_p99_to_the_stall_for_every_request_it_held() -> None:
    """A 1 s stall at 100 requests/s: about a hundred requests arrive during it and each waits
    for its end. A closed loop would have recorded one slow request."""
    engine = StandIn(0.002)
    scheduled = arrival_times("constant", 100.0, 3.0, seed=0)
    engine.stall(time.perf_counter() + 1.0, 1.0)
    timeline = run_open_loop(engine.slots(1), scheduled, 3.0, drain_s=3.0)
    figures = traffic_figures(timeline, 100.0)
    assert 800 <= figures.latency["p99"].value <= 1300, figures.latency
    held = int(np.sum(timeline.latency > 0.5))
    assert held >= 30, held  # half the requests arriving in the stall waited over 0.5 s
    assert figures.latency["median"].value < 50  # the rest were served at once


def test_lateness_is_measured_against_the_slot_that_freed() -> None:
    """A request that had to wait for a busy slot is not late: its start is compared with
    the moment the slot freed, not with its arrival."""
    engine = StandIn(SERVICE_S)
    scheduled = np.array([0.0, 0.001, 0.002])  # all three arrive while the first is served
    timeline = run_open_loop(engine.slots(1), scheduled, 0.01, drain_s=1.0)
    assert np.all(timeline.queue[1:] >= SERVICE_S * 0.9)  # they queued behind it
    assert np.all(timeline.lateness() < 0.001)  # but were issued as soon as it freed


def test_a_failing_slot_raises_in_the_caller() -> None:
    def broken() -> None:
        raise RuntimeError("engine fault")

    try:
        run_open_loop([broken], np.array([0.0, 0.01]), 0.02, drain_s=0.1)
    except RuntimeError as error:
        assert "engine fault" in str(error)
    else:
        raise AssertionError("the slot's error was swallowed")


def test_a_cancel_ends_the_run_with_the_rest_unserved() -> None:
    engine = StandIn(0.001)
    cancel_at = time.perf_counter() + 0.3
    timeline = run_open_loop(
        engine.slots(1),
        arrival_times("constant", 100.0, 5.0, seed=0),
        5.0,
        drain_s=1.0,
        cancelled=lambda: time.perf_counter() > cancel_at,
    )
    assert 10 <= int(timeline.done.sum()) <= 60
    assert engine.calls == int(timeline.done.sum())


def test_a_runs_arrivals_are_its_own_and_reproducible() -> None:
    """Each run of a TrafficRun draws its own arrivals (a search's equally long runs would
    otherwise all be offered the same share over or under their rate); the same seed gives
    the same runs."""
    first, again = (TrafficRun(StandIn(0.0005), arrival="poisson", seed=4) for _ in range(2))
    a1, a2 = first.timeline(200.0, 0.2).scheduled, first.timeline(200.0, 0.2).scheduled
    b1, b2 = again.timeline(200.0, 0.2).scheduled, again.timeline(200.0, 0.2).scheduled
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    assert a1.size != a2.size or not np.array_equal(a1, a2)
