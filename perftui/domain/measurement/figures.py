"""A run's figures with their intervals and verdict, and repetitions grouped by configuration.

Computed from the stored record and its raw latency samples, so runs measured before
intervals existed gain them too. The methods are domain.measurement.uncertainty's; the verdict
perftui.domain.measurement.verdict's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, final

from perftui.domain.measurement.statistic import STATISTICS
from perftui.domain.measurement.uncertainty import (
    Interval,
    mean_interval,
    quantile_interval,
    throughput_interval,
    window_rates,
)
from perftui.domain.measurement.verdict import (
    NOISY,
    Verdict,
    interval_findings,
    judge,
    spread,
    spread_finding,
    with_findings,
    worst,
)
from perftui.domain.records import RunConfig, RunResult

if TYPE_CHECKING:
    import numpy as np

PERCENTILES = {s.name: s.percentile for s in STATISTICS if s.percentile is not None}
"""The latency statistics that carry an interval, by name (as in LatencyStats): the one list's."""

Samples = Callable[[RunResult], "np.ndarray | None"]
"""A run's raw latency samples in ms, in the order they completed (None when not kept)."""


def run_windows(run: RunResult, samples_ms: np.ndarray | None) -> tuple[float, ...]:
    """The run's windows' throughputs: as the worker recorded them, else (runs from before
    they were recorded) from the ordered latency samples. A window's time is then the sum
    of its latencies; with N requests in flight that is N times its length (Little's law),
    a constant factor that leaves the spread, the drift and the relative interval as they are."""
    import numpy as np

    if run.window_fps:
        return run.window_fps
    if samples_ms is None or len(samples_ms) == 0:
        return ()
    return window_rates(np.cumsum(np.asarray(samples_ms, dtype=np.float64)) / 1000.0, 0.0, 1)


@final  # always true, so `figures and figures.throughput` types as the interval or None
@dataclass(frozen=True)
class Figures:
    """Throughput and latency percentiles with their 95 % intervals, and the verdict."""

    throughput_fps: float
    throughput: Interval | None
    latency: dict[str, Interval]
    """By statistic name (PERCENTILES); missing where there are no samples."""
    verdict: Verdict

    def latency_ci(self) -> dict[str, list[float | None]]:
        """The JSON `latency_ci_ms`: {"median": [lo, hi], "p99": [lo, hi]} where known."""
        return {
            name: self.latency[name].as_list() for name in ("median", "p99") if name in self.latency
        }

    def to_dict(self) -> dict[str, object]:
        """The additive JSON fields of a run or a group of repetitions."""
        return {
            "throughput_ci": self.throughput.as_list() if self.throughput else None,
            "latency_ci_ms": self.latency_ci(),
            "verdict": self.verdict.to_dict(),
        }


def run_figures(run: RunResult, samples_ms: np.ndarray | None) -> Figures:
    import numpy as np

    windows = run_windows(run, samples_ms)
    latency: dict[str, Interval] = {}
    if run.status == "ok" and samples_ms is not None and len(samples_ms):
        data = np.sort(np.asarray(samples_ms, dtype=np.float64))
        for name, percentile in PERCENTILES.items():
            found = quantile_interval(data, percentile, presorted=True)
            if found is not None:
                latency[name] = found
    throughput = throughput_interval(run.throughput_fps, windows)
    return Figures(
        throughput_fps=run.throughput_fps,
        throughput=throughput,
        latency=latency,
        verdict=with_findings(judge(run, windows), interval_findings(throughput, latency)),
    )


def figures_once(found: dict[str, Figures], run: RunResult, samples: Samples) -> Figures:
    """The run's figures, kept in `found` by run id: a stored run never changes, so a screen
    computes them once however often it redraws."""
    figures = found.get(run.id)
    if figures is None:
        figures = found[run.id] = run_figures(run, samples(run))
    return figures


@dataclass(frozen=True)
class ConfigGroup:
    """The repetitions of one configuration in one benchmark, and their combined figures:
    with two or more successful repetitions each figure is their mean with a t-interval
    over them (the between-process noise included); with one, that run's own figures."""

    config: RunConfig
    runs: tuple[RunResult, ...]
    figures: Figures
    members: tuple[Figures, ...]
    """Each run's own figures, in the order of `runs`."""

    @property
    def ok_runs(self) -> tuple[RunResult, ...]:
        return tuple(r for r in self.runs if r.status == "ok" and r.latency_ms is not None)

    def latency_ms(self, name: str) -> float | None:
        """A latency statistic (a LatencyStats field) of the configuration: the mean over
        its successful repetitions; None without one."""
        values = [v for r in self.ok_runs if (v := getattr(r.latency_ms, name)) is not None]
        return sum(values) / len(values) if values else None

    @property
    def first_inference_ms(self) -> float | None:
        values = [r.first_inference_ms for r in self.ok_runs]
        return sum(values) / len(values) if values else None


def _combined(runs: Sequence[RunResult], members: Sequence[Figures]) -> Figures:
    ok = [(r, f) for r, f in zip(runs, members, strict=True) if r.status == "ok" and r.latency_ms]
    lost = [f"{len(runs) - len(ok)} of {len(runs)} repetitions did not complete"]
    if len(ok) < 2:
        if not ok or len(runs) == 1:
            return ok[0][1] if ok else members[0]
        only = ok[0][1]
        said = (*only.verdict.reasons, *lost)
        return replace(only, verdict=Verdict(worst([only.verdict.status, NOISY]), said))
    throughputs = [r.throughput_fps for r, _ in ok]
    latency = {}
    for name in PERCENTILES:
        values = [v for r, _ in ok if (v := getattr(r.latency_ms, name)) is not None]
        found = mean_interval(values)
        if found is not None:
            latency[name] = found
    # at a rate, each repetition's throughput is the rate its own draw of arrivals offered
    open_loop = ok[0][0].config.rate is not None
    found_spread = None if open_loop else spread_finding(spread(throughputs), "repetitions")
    statuses = [f.verdict.status for _, f in ok]
    reasons = []
    if found_spread:
        statuses.append(found_spread[0])
        reasons.append(found_spread[1])
    for run, figures in ok:
        if figures.verdict.reasons:
            reasons.append(f"repeat {run.repetition + 1} ({'; '.join(figures.verdict.reasons)})")
    if len(ok) < len(runs):
        statuses.append(NOISY)
        reasons += lost
    combined = mean_interval(throughputs)
    assert combined is not None
    verdict = Verdict(worst(statuses), tuple(reasons))
    return Figures(
        throughput_fps=combined.value,
        throughput=combined,
        latency=latency,
        verdict=with_findings(verdict, interval_findings(combined, latency)),
    )


Known = Callable[[RunResult], "Figures | None"]
"""A run's figures when they are already known (the store keeps each run's), else None."""


def group_runs(
    runs: Sequence[RunResult], samples: Samples, known: Known = lambda _run: None
) -> list[ConfigGroup]:
    """The runs grouped by (benchmark, configuration), in the order each group first
    appears; repetitions in their repeat order. A run's figures are `known`'s, else
    computed from its samples."""
    keyed: dict[tuple[str, RunConfig], list[RunResult]] = {}
    for run in runs:
        keyed.setdefault((run.benchmark_id, run.config), []).append(run)
    groups = []
    for (_, config), members in keyed.items():
        members.sort(key=lambda r: r.repetition)
        figures = tuple(known(r) or run_figures(r, samples(r)) for r in members)
        groups.append(ConfigGroup(config, tuple(members), _combined(members, figures), figures))
    return groups
