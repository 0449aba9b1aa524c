"""The one way tests make a run's record: `run_result` builds a finished RunResult with the
figures a test names and RunResult's defaults for the rest; the test files' own helpers
(`make_run`, `run`) only choose their figures and call it."""

from __future__ import annotations

from typing import Any

from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.records import LatencyStats, RunConfig, RunResult
from perftui.domain.traffic.figures import TrafficFigures


def flat_latency(
    median: float,
    *,
    low: float | None = None,
    mean: float | None = None,
    p90: float | None = None,
    p99: float | None = None,
    high: float | None = None,
    stdev: float | None = 0.0,
    cv: float | None = 0.0,
) -> LatencyStats:
    """Latency statistics in ms, each `median` (as if every request took as long) unless
    given: `low` and `high` are the min and the max."""

    def given(value: float | None) -> float:
        return median if value is None else value

    return LatencyStats(
        min=given(low),
        mean=given(mean),
        median=median,
        p90=given(p90),
        p99=given(p99),
        max=given(high),
        stdev=stdev,
        cv=cv,
    )


def run_result(
    fps: float = 100.0,
    median: float | None = None,
    *,
    config: RunConfig | None = None,
    **fields: Any,
) -> RunResult:
    """A run of `config` (RunConfig() unless given) at `fps` items/s; its latency statistics
    all `median` ms (by default what `fps` implies at the config's batch: 1000 x batch / fps)
    unless `latency_ms` is given (None for a run with none). Any other RunResult field may be
    given (`throughput_fps` too, for `fps`)."""
    config = config or RunConfig()
    fps = fields.pop("throughput_fps", fps)
    if "latency_ms" not in fields:
        fields["latency_ms"] = flat_latency(
            1000.0 * config.batch / fps if median is None else median
        )
    return RunResult(config=config, throughput_fps=fps, **fields)


def traffic(
    rate: float,
    p50: float,
    p99: float,
    *,
    offered: float | None = None,
    saturated: tuple[str, ...] = (),
    lateness_ms: float = 0.2,
    completed: int = 2000,
) -> TrafficFigures:
    """An open-loop run's figures at `rate` requests/s: latencies from arrival `p50` and
    `p99` ms, each with an interval 5 % either side; the achieved rate the offered one (less
    a fifth for a saturated run), with an interval 2 % either side."""
    offered = rate if offered is None else offered
    achieved = offered * (0.8 if saturated else 1.0)

    def around(value: float, share: float) -> Interval:
        return Interval(value, value * (1 - share), value * (1 + share), completed)

    return TrafficFigures(
        rate=rate,
        offered_rate=offered,
        achieved_rate=achieved,
        achieved=around(achieved, 0.02),
        latency={"median": around(p50, 0.05), "p90": around(p99, 0.05), "p99": around(p99, 0.05)},
        queue_median_ms=p50 / 4,
        service_median_ms=p50 * 3 / 4,
        lateness_p99_ms=lateness_ms,
        busy=min(1.0, offered * p50 / 1000),
        requests=completed,
        completed=completed,
        saturated=saturated,
        window_s=completed / offered,
    )
