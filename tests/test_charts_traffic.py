"""Issue 42: the traffic curve's data (perftui.domain.charts.traffic): a project's open-loop runs
as one curve per configuration but the rate, each rate's newest run, by offered rate."""

from __future__ import annotations

from perftui.domain.charts.traffic import curve_of, drawn_bound, traffic_curves
from perftui.domain.records import RunConfig
from perftui.domain.traffic.objective import parse_objectives
from tests.factories import run_result, traffic

SATURATED = ("the queue grew through the window: waiting rose 80 ms",)


def open_run(rate: float, p99: float, *, second: int = 0, **config: object):
    at = RunConfig(rate=rate, **config)  # type: ignore[arg-type]
    return run_result(
        rate,
        config=at,
        traffic=traffic(rate, p99 / 3, p99, saturated=SATURATED if p99 > 50 else ()),
        id=f"r{rate:g}-{second}-{config}",
        started_at=f"2026-11-29T09:00:{second:02d}+00:00",
    )


def test_one_curve_per_configuration_but_the_rate_by_offered_rate():
    runs = [
        open_run(400, 90.0),
        open_run(100, 3.0),
        open_run(200, 4.0, batch=4),
        open_run(200, 5.0),
        run_result(900.0, config=RunConfig()),  # the closed loop is no point of a curve
    ]
    curves = traffic_curves(runs)
    assert [c.config for c in curves] == [RunConfig(), RunConfig(batch=4)]
    assert [p.rate for p in curves[0].points] == [100, 200, 400]
    assert [p.p99.value for p in curves[0].points if p.p99] == [3.0, 5.0, 90.0]
    assert [p.saturated for p in curves[0].points] == [False, False, True]
    assert curves[0].points[2].reasons == SATURATED
    assert [c.label for c in curves] == ["b1", "b4"]
    assert "@" not in curves[1].settings and "b4" in curves[1].settings


def test_each_rate_shows_its_newest_run():
    older, newer = open_run(100, 3.0, second=1), open_run(100, 7.0, second=9)
    (curve,) = traffic_curves([newer, older])
    assert [p.run.id for p in curve.points] == [newer.id]


def test_curves_of_poisson_and_constant_arrivals_are_told_apart():
    curves = traffic_curves([open_run(100, 3.0), open_run(100, 2.0, arrival="constant")])
    assert len(curves) == 2
    assert len(set(c.label for c in curves)) == 2, [c.label for c in curves]
    assert "constant" in curves[1].label


def test_failed_and_closed_loop_runs_make_no_curve():
    failed = run_result(0.0, config=RunConfig(rate=100.0), status="failed", latency_ms=None)
    assert traffic_curves([failed, run_result(500.0)]) == []


def test_the_objective_line_is_a_drawn_statistic_s_and_the_capacity_finds_its_curve() -> None:
    assert drawn_bound(parse_objectives("median=5ms,p99=20ms")) == 20.0
    assert drawn_bound(parse_objectives("median=5ms")) == 5.0
    assert drawn_bound(parse_objectives("p90=9ms")) is None  # the chart draws no p90
    runs = [
        run_result(r * b, config=RunConfig(batch=b, rate=r), traffic=traffic(r, 2.0, 4.0))
        for b in (1, 4)
        for r in (100.0, 200.0)
    ]
    curves = traffic_curves(runs)
    assert curve_of(curves, RunConfig(batch=4)) == 1  # a search's configuration: no rate
    assert curve_of(curves, RunConfig(batch=2)) is None
