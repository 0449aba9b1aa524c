"""A tune's trials judged against the latency budget, the best one and those within noise of
it, and when to stop: the "honest stopping" of `perftui tune`.

A trial is one configuration and its runs (a noisy contender is measured twice). Its figures
and verdict are perftui.domain.measurement.figures'; "beyond noise" is the 95 % ratio interval of
perftui.domain.measurement.uncertainty excluding 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from perftui.domain.measurement.figures import group_runs
from perftui.domain.measurement.memory import mean_known, run_peak
from perftui.domain.measurement.uncertainty import (
    MIN_WINDOW_ITERATIONS,
    MIN_WINDOWS,
    Interval,
    Ratio,
    ratio_interval,
    unknown_interval,
)
from perftui.domain.records import Budget, RunConfig, RunResult

"""A tune's budget is on a latency statistic."""
FITS, OVER, STOPPED, FAILED = "fits", "over", "stopped early", "failed"
OVER_MEMORY = "over memory"
"""Within the latency budget, but its memory peak is over `--max-memory` (or unknown)."""
TOO_NOISY = "too noisy"
"""A trial whose throughput or latency interval is too noisy to use (reaches zero or passes
±100 %): it neither fits nor is over, and is never the best."""
UNJUDGED = (FAILED, TOO_NOISY)
"""Trials that say nothing of where the budget lies."""
EARLY_TICKS = 3
"""Consecutive progress ticks (0.25 s each) over the budget that stop a trial early."""
EARLY_MARGIN = {"median": 1.25, "p90": 1.1, "p99": 1.1}
"""How far over the budget a tick's median latency must be to stop: a tick's median stands
for the median, and p90 or p99 are at least the median, so they need less margin."""
EARLY_MIN_SAVING_S = 2.0
"""Stopping costs a fresh worker for the trials after it (a process, the engine's import, a
compile): not worth it for less measuring time than this."""
MIN_PATIENCE, MAX_PATIENCE = 5, 15
SEARCH_SHARE, MIN_TRIALS = 0.2, 8
"""Unless `--trials` says otherwise, a search measures at most this share of its space's
configurations (and at least MIN_TRIALS), then ends with its playoff: the trials a longer
search adds mostly chase noise (benchmarks/README.md, tune_replay.py)."""
RUN_SHARE = 0.5
"""A trial is measured in runs of this share of the asked time and iterations, and a
contender (`needs_second_run`, `on_the_edge`) gets a second run: its two runs take the asked
time, and their spread shows. Most trials only rule a configuration out, for less time
(benchmarks/README.md, tune.py)."""
RUN_TO_RUN = 0.2
"""How far apart two runs of one configuration can be on a shared machine while each run's
own windows agree (benchmarks/README.md, tune.py)."""


def run_budget(budget: Budget) -> Budget:
    """The budget of each of a trial's runs (RUN_SHARE of `budget`), never so short that a
    run has too few requests for a throughput interval."""
    enough = MIN_WINDOWS * MIN_WINDOW_ITERATIONS
    iterations = max(round(budget.iterations * RUN_SHARE), min(enough, budget.iterations))
    return replace(budget, time_s=budget.time_s * RUN_SHARE, iterations=iterations)


@dataclass(frozen=True)
class Trial:
    number: int
    config: RunConfig
    status: str
    """FITS, OVER, STOPPED (over the budget before its time was up), FAILED or TOO_NOISY."""
    throughput: Interval | None
    latency: Interval | None
    """The budget's statistic, with its interval where the samples give one."""
    verdict: str
    reasons: tuple[str, ...]
    run_ids: tuple[str, ...]
    standing: Ratio | None = None
    """Its throughput over the playoff's winner's, paired round by round
    (perftui.domain.tune.playoff); None for a trial that did not play."""
    memory_mib: float | None = None
    """Its runs' memory peak (compile or window, their mean; perftui.domain.measurement.memory)."""

    @property
    def fits(self) -> bool:
        return self.status == FITS

    @property
    def fps(self) -> float:
        return self.throughput.value if self.throughput else 0.0

    def to_dict(self) -> dict[str, Any]:
        def pair(x: Interval | None) -> list[float | None] | None:
            return x.as_list() if x else None

        return {
            "trial": self.number,
            "config": self.config.to_dict(),
            "label": self.config.label(),
            "status": self.status,
            "throughput_fps": self.fps,
            "throughput_ci": pair(self.throughput),
            "latency_ms": self.latency.value if self.latency else None,
            "latency_ci_ms": pair(self.latency),
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "run_ids": list(self.run_ids),
            "playoff_ratio": self.standing.value if self.standing else None,
            "playoff_ci": [self.standing.lo, self.standing.hi] if self.standing else None,
            "memory_peak_mib": self.memory_mib,
        }

    def to_wire(self) -> dict[str, Any]:
        """Everything, for the tune child's event pipe (`from_wire` reads it back)."""
        return {
            "number": self.number,
            "config": self.config.to_dict(),
            "status": self.status,
            "throughput": _interval_to_wire(self.throughput),
            "latency": _interval_to_wire(self.latency),
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "run_ids": list(self.run_ids),
            "standing": _ratio_to_wire(self.standing),
            "memory_mib": self.memory_mib,
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Trial:
        return cls(
            int(data["number"]),
            RunConfig.from_dict(data["config"]),
            str(data["status"]),
            _interval_from_wire(data["throughput"]),
            _interval_from_wire(data["latency"]),
            str(data["verdict"]),
            tuple(data["reasons"]),
            tuple(data["run_ids"]),
            _ratio_from_wire(data.get("standing")),
            None if data.get("memory_mib") is None else float(data["memory_mib"]),
        )


def _ratio_to_wire(x: Ratio | None) -> list[float] | None:
    return [x.value, x.lo, x.hi] if x else None


def _ratio_from_wire(data: list[float] | None) -> Ratio | None:
    return None if data is None else Ratio(*map(float, data))


def _interval_to_wire(x: Interval | None) -> list[Any] | None:
    return [x.value, x.lo, x.hi, x.n, *x.open_ends, x.log_se, x.df] if x else None


def _interval_from_wire(data: list[Any] | None) -> Interval | None:
    """An interval from its list; lists without the standard error (6 items) are older."""
    if data is None:
        return None
    value, lo, hi, n, open_lo, open_hi, *rest = data
    log_se, df = rest if len(rest) == 2 else (None, None)
    return Interval(
        float(value),
        float(lo),
        float(hi),
        int(n),
        (bool(open_lo), bool(open_hi)),
        None if log_se is None else float(log_se),
        None if df is None else int(df),
    )


def judge_trial(
    number: int,
    config: RunConfig,
    runs: Sequence[tuple[RunResult, np.ndarray | None]],
    stat: str,
    budget_ms: float,
    stopped_early: bool = False,
    max_memory_mib: float | None = None,
) -> Trial:
    """The trial of `config` from its runs and their samples; within the latency budget but
    not known to be within `max_memory_mib`, it is OVER_MEMORY."""
    ids = tuple(run.id for run, _ in runs)
    if stopped_early:  # a cancelled run: its partial samples say how far over it was
        run, _ = runs[-1]
        value = getattr(run.latency_ms, stat) if run.latency_ms else float("inf")
        point = unknown_interval(value, run.iterations)
        fps = unknown_interval(run.throughput_fps)
        return Trial(number, config, STOPPED, fps, point, "invalid", ("stopped early",), ids)
    # the trial's runs come from separate benchmarks: group them as one configuration
    rekeyed = [(replace(run, benchmark_id="trial"), samples) for run, samples in runs]
    by_run = {id(run): samples for run, samples in rekeyed}
    (group,) = group_runs([run for run, _ in rekeyed], lambda run: by_run.get(id(run)))
    figures = group.figures
    latency = figures.latency.get(stat)
    if latency is None and group.latency_ms(stat) is not None:
        value = float(group.latency_ms(stat) or 0.0)
        latency = unknown_interval(value)
    if latency is None or not group.ok_runs:
        reasons = tuple(run.error or run.status for run, _ in runs)
        return Trial(number, config, FAILED, None, None, "invalid", reasons, ids)
    throughput = figures.throughput or unknown_interval(figures.throughput_fps)
    status = FITS if latency.value <= budget_ms else OVER
    peak = mean_known(run_peak(run) for run in group.ok_runs)
    if status == FITS and max_memory_mib is not None and (peak is None or peak > max_memory_mib):
        status = OVER_MEMORY
    if throughput.too_noisy or latency.too_noisy:
        status = TOO_NOISY
    verdict = figures.verdict
    return Trial(
        number,
        config,
        status,
        throughput,
        latency,
        verdict.status,
        verdict.reasons,
        ids,
        None,
        peak,
    )


def beats(candidate: Trial, best: Trial | None) -> bool:
    """`candidate` fits the budget and is faster than `best` beyond noise."""
    if not candidate.fits:
        return False
    if best is None:
        return True
    assert candidate.throughput is not None and best.throughput is not None
    ratio = ratio_interval(best.throughput, candidate.throughput)
    return ratio.significant and ratio.value > 1.0 if ratio else candidate.fps > best.fps


def best_trial(trials: Sequence[Trial]) -> Trial | None:
    """The playoff's winner once there was one; else the fitting trial with the highest
    throughput."""
    played = [t for t in trials if t.fits and t.standing is not None]
    if played:
        return max(played, key=lambda t: t.standing.value if t.standing else 0.0)
    return max((t for t in trials if t.fits), key=lambda t: t.fps, default=None)


def within_noise(best: Trial, trials: Sequence[Trial]) -> list[Trial]:
    """The other fitting trials whose throughput is not below the best's beyond noise:
    judged by the playoff's pairs where both played, else by their own intervals."""

    def close(t: Trial) -> bool:
        if t.standing is not None and best.standing is not None:
            return not t.standing.significant
        return not beats(best, t)

    return [t for t in trials if t.fits and t is not best and close(t)]


def needs_second_run(trial: Trial) -> bool:
    """A fitting trial measured once: the search measures its best once more before it
    ends on it, so a lucky run cannot win alone. Even a stable one: the best of many single
    runs is the luckiest of them, and two runs of one configuration differ by up to
    RUN_TO_RUN while each run's windows agree (benchmarks/README.md, tune.py)."""
    return trial.fits and len(trial.run_ids) == 1


def on_the_edge(trial: Trial, best: Trial | None, budget_ms: float) -> bool:
    """A trial measured once over the budget, whose latency interval reaches within
    RUN_TO_RUN of it, that would be the best if it fitted: whether it fits is a coin toss,
    so it is measured once more before the search ends (if it fits, it can win, and unless
    the search stalled, what it pruned is open to the search again)."""
    if trial.status != OVER or len(trial.run_ids) != 1 or trial.latency is None:
        return False
    near = trial.latency.lo <= budget_ms * (1 + RUN_TO_RUN)
    return near and (best is None or trial.fps > best.fps)


def default_trials(candidates: int) -> int:
    """Configurations to measure at most when `--trials` is not given (SEARCH_SHARE)."""
    return max(MIN_TRIALS, math.ceil(candidates * SEARCH_SHARE))


def patience(candidates: int) -> int:
    """Measured trials without a gain beyond noise after which the search stops: an eighth
    of the space, within MIN_PATIENCE..MAX_PATIENCE."""
    return max(MIN_PATIENCE, min(MAX_PATIENCE, candidates // 8))


def since_gain(trials: Sequence[Trial]) -> int:
    """Fitting trials measured since the last gain (all trials while none fits). A gain is a
    trial that beats the best beyond noise, or that takes the lead within noise: the search
    is still climbing there, and stopping would keep a best the next trials may well pass.
    A trial over the budget does not count: it finds the budget's edge and prunes all that
    is larger, and five of them in a row ended a DistilBERT tune on its first trial."""
    best: Trial | None = None
    count = 0
    for trial in trials:
        if beats(trial, best) or (trial.fits and best is not None and trial.fps > best.fps):
            best, count = trial, 0
        elif trial.fits or best is None:
            count += 1
    return count


@dataclass(frozen=True)
class Limits:
    trials: int | None = None
    """Configurations to measure at most (`--trials`)."""
    budget_s: float | None = None
    """Seconds the search may take (`--budget`)."""
    patience: int = MIN_PATIENCE


def spent(
    trials: Sequence[Trial], limits: Limits, elapsed_s: float, next_trial_s: float
) -> str | None:
    """Why the search must stop now, or None: the trials or the time are spent."""
    if limits.trials is not None and len(trials) >= limits.trials:
        return f"{limits.trials} trials measured"
    if limits.budget_s is not None and elapsed_s + next_trial_s > limits.budget_s:
        return "the time budget is spent"
    return None


def stalled(trials: Sequence[Trial], limits: Limits) -> str | None:
    """Why the search should end, or None: the last `patience` trials gained nothing
    (perftui.domain.tune.guide says when the rest cannot win; this is the backstop where
    its model is wrong). Unlike `spent`, the best is still measured again first."""
    if best_trial(trials) is not None and since_gain(trials) >= limits.patience:
        return f"{limits.patience} trials in a row did not beat the best"
    return None


def clearly_over(stat: str, budget_ms: float, tick_ms: Sequence[float], left_s: float) -> bool:
    """True when the last EARLY_TICKS progress ticks' median latencies are all beyond the
    budget by EARLY_MARGIN, and stopping saves at least EARLY_MIN_SAVING_S."""
    if left_s < EARLY_MIN_SAVING_S or len(tick_ms) < EARLY_TICKS:
        return False
    return min(tick_ms[-EARLY_TICKS:]) > budget_ms * EARLY_MARGIN[stat]
