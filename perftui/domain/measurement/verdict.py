"""Each run's verdict, as MLPerf marks a run valid or not: `stable`, `noisy` or `invalid`,
with the reasons a person can act on.

A run is judged from its record alone (old runs included): the windows' throughputs, the
machine's load during the timed window, its sample count and its profile; a run at a rate
(open loop) by its traffic figures instead of its windows' spread.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from perftui.domain.forms.bench import REPEAT_SUGGESTED
from perftui.domain.measurement.load import MachineLoad
from perftui.domain.measurement.memory import memory_findings
from perftui.domain.measurement.uncertainty import MIN_WINDOWS, Interval, t_critical
from perftui.domain.records import RunResult

if TYPE_CHECKING:
    from perftui.domain.traffic.figures import TrafficFigures

STABLE, NOISY, INVALID = "stable", "noisy", "invalid"
VERDICTS = (STABLE, NOISY, INVALID)

SPREAD_NOISY = 0.10
"""Coefficient of variation of the windows' throughputs (or of the repetitions') from which
a run is noisy: its interval is then wide, and a difference under it means nothing."""
SPREAD_INVALID = 0.30
"""... and from which it is invalid: the machine, not the model, set the pace."""
DRIFT_MIN = 0.05
"""A drift between the first and the last quarter of the windows counts from this share
when it is also beyond the two quarters' combined noise (a Welch t-test at 95 %)."""
OTHERS_NOISY = 0.10
"""Share of all CPU time that other processes used during the timed window: noisy from here,"""
OTHERS_INVALID = 0.50
"""... invalid from here (the run competed for the CPUs more than it had them)."""
STEAL_NOISY = 0.02
"""Share of CPU time a hypervisor gave to other guests: noisy from here,"""
STEAL_INVALID = 0.10
"""... invalid from here."""
P99_MIN_SAMPLES = 100
"""A p99 from fewer samples rests on its one or two slowest requests."""
QUICK_LOOK = "quick look"
"""The label (BenchmarkRequest.label) of runs meant as a first glance, such as the
dashboard's sample quick start (perftui.domain.forms.quickstart): one short run per project, so
noisy whatever its windows say."""
QUICK_LOOK_REASON = (
    "quick look: one short run, too short for a verdict; measure with "
    f"--repeat {REPEAT_SUGGESTED} before comparing"
)
PROFILE_TOLERANCE = 0.30
"""How far a sync run's profile layer sum may be from its measured median latency. The
profile pass runs with the counters on and does not count the engine's own overhead, so
some distance is normal; beyond this the profile does not describe the measured run."""


@dataclass(frozen=True)
class Verdict:
    status: str
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "reasons": list(self.reasons)}


def worst(statuses: Sequence[str]) -> str:
    return max(statuses, key=VERDICTS.index, default=STABLE)


def spread(values: Sequence[float]) -> float | None:
    """Coefficient of variation; None for fewer than two values. In plain Python: they are
    a few repetitions, for which numpy's calls cost more than the sums."""
    data = [float(v) for v in values]
    n = len(data)
    mean = sum(data) / n if n >= 2 else 0.0
    if mean <= 0:
        return None
    return math.sqrt(sum((v - mean) ** 2 for v in data) / (n - 1)) / mean


def spread_finding(cv: float | None, among: str) -> tuple[str, str] | None:
    """(status, reason) for a throughput spread `among` windows or repetitions."""
    if cv is None or cv < SPREAD_NOISY:
        return None
    status = INVALID if cv >= SPREAD_INVALID else NOISY
    return status, f"throughput varies {cv:.0%} between {among}"


def drift(windows: Sequence[float]) -> float | None:
    """The relative change of throughput from the first to the last quarter of the windows
    when it is beyond their combined noise and at least DRIFT_MIN; else None."""
    import numpy as np

    if len(windows) < 2 * MIN_WINDOWS:
        return None
    quarter = len(windows) // 4
    first = np.asarray(windows[:quarter], dtype=np.float64)
    last = np.asarray(windows[-quarter:], dtype=np.float64)
    change = float(last.mean() / first.mean() - 1.0)
    se = math.sqrt(first.var(ddof=1) / first.size + last.var(ddof=1) / last.size)
    beyond_noise = abs(last.mean() - first.mean()) > t_critical(2 * quarter - 2) * se
    return change if beyond_noise and abs(change) >= DRIFT_MIN else None


def load_findings(load: MachineLoad | None) -> list[tuple[str, str]]:
    """(status, reason) for the other work the machine did while it was read."""
    if load is None:
        return []
    found = []
    others, steal = load.others_share, load.steal_share
    if others >= OTHERS_NOISY:
        status = INVALID if others >= OTHERS_INVALID else NOISY
        found.append((status, f"other processes used {others:.0%} of the CPUs"))
    if steal >= STEAL_NOISY:
        status = INVALID if steal >= STEAL_INVALID else NOISY
        found.append((status, f"the hypervisor stole {steal:.0%} of the CPU time"))
    return found


def _profile_finding(run: RunResult) -> tuple[str, str] | None:
    """Only for closed-loop sync runs: their latency is one request's service time, as a
    profile's is; an async latency, or an open loop's from arrival, includes queueing."""
    if not run.layers or run.latency_ms is None or run.config.api != "sync" or run.traffic:
        return None
    layer_sum = sum(layer.time_ms for layer in run.layers if layer.status == "executed")
    measured = run.latency_ms.median
    if measured <= 0 or layer_sum <= 0:
        return None
    gap = layer_sum / measured - 1.0
    if abs(gap) <= PROFILE_TOLERANCE:
        return None
    side = "over" if gap > 0 else "under"
    return NOISY, (
        f"the profile's layer sum {layer_sum:.3g} ms is {abs(gap):.0%} {side} the measured "
        f"median {measured:.3g} ms (tolerance {PROFILE_TOLERANCE:.0%})"
    )


TOO_NOISY_REASON = (
    "{what} too noisy to use (the 95 % interval reaches zero or passes ±100 %): measure"
    " longer (more time or repetitions) on a quieter machine"
)


def interval_findings(
    throughput: Interval | None, latency: Mapping[str, Interval]
) -> list[tuple[str, str]]:
    """INVALID for each figure whose interval is too noisy to use (measurement.uncertainty)."""
    named = [("throughput", throughput), *((f"{k} latency", v) for k, v in latency.items())]
    noisy = [what for what, found in named if found is not None and found.too_noisy]
    if not noisy:
        return []
    what = noisy[0] if len(noisy) == 1 else ", ".join(noisy[:-1]) + " and " + noisy[-1]
    return [(INVALID, TOO_NOISY_REASON.format(what=what + (" is" if len(noisy) == 1 else " are")))]


def with_findings(verdict: Verdict, found: Sequence[tuple[str, str]]) -> Verdict:
    """`verdict` with more findings (status, reason)."""
    if not found:
        return verdict
    status = worst([verdict.status, *(s for s, _ in found)])
    return Verdict(status, (*verdict.reasons, *(r for _, r in found)))


def judge(run: RunResult, windows: Sequence[float]) -> Verdict:
    """The run's verdict from its record and its windows' throughputs
    (perftui.domain.measurement.figures.run_windows)."""
    if run.status != "ok" or run.latency_ms is None:
        return Verdict(INVALID, (run.error or f"the run is {run.status}",))
    found: list[tuple[str, str]] = []
    if run.resolved.get("label") == QUICK_LOOK:
        found.append((NOISY, QUICK_LOOK_REASON))
    if len(windows) < MIN_WINDOWS:
        found.append((NOISY, f"too few requests ({run.iterations}) for a throughput interval"))
    if run.traffic is not None:
        found += traffic_findings(run.traffic)
    else:  # an open loop's windows follow its arrivals: their spread is the schedule's
        spread_found = spread_finding(spread(windows), "windows of the run")
        if spread_found:
            found.append(spread_found)
        change = drift(windows)
        if change is not None:
            found.append((NOISY, f"throughput drifted {change:+.0%} during the run"))
    found += load_findings(run.load)
    found += [(NOISY, reason) for reason in memory_findings(run.memory)]
    if run.iterations < P99_MIN_SAMPLES:
        found.append((NOISY, f"p99 from only {run.iterations} samples"))
    profile = _profile_finding(run)
    if profile:
        found.append(profile)
    return Verdict(worst([s for s, _ in found]), tuple(r for _, r in found))


def traffic_findings(traffic: TrafficFigures) -> list[tuple[str, str]]:
    """INVALID for an open-loop run whose latencies are not the engine's at its rate: one
    that did not keep up (its queue, so its latencies, grow with the window's length) or
    whose scheduler did not keep the schedule (they hold the scheduler's delay)."""
    found = []
    if traffic.is_saturated:
        found.append((INVALID, f"saturated at {traffic.rate:g}/s: " + "; ".join(traffic.saturated)))
    found += [(INVALID, reason) for reason in traffic.reasons if reason not in traffic.saturated]
    return found
