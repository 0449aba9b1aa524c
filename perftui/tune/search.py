"""The tune loop: a model of the space (perftui.domain.tune.guide) proposes each next
configuration from the trials so far, this process runs it (perftui.tune.trials),
perftui.domain.tune.result judges it.

The search is deterministic: the same space, budget and measurements replay the same
search. What cannot fit the budget is pruned before it is measured
(perftui.domain.tune.space.dominated), a trial clearly over the budget is stopped early,
each trial is measured in a run of half the asked length, a trial just over the budget
that would be the best in a second, and the search ends with a playoff: the fastest fitting
trials measured again in alternated rounds and ranked by the rounds' pairs
(perftui.domain.tune.playoff).
(Optuna's seeded TPE sampler did this before, spending its random start on configurations a
model rules out: benchmarks/README.md, tune.py.)

The runs go to a `Sink` (the store's add_benchmark/add_run): the store itself in-process,
or the tune child's event pipe (perftui.tune.worker), whose parent stores them.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import InputError
from perftui.domain.records import BenchmarkRequest, RunConfig, RunResult
from perftui.domain.tune.guide import floor_configs, propose
from perftui.domain.tune.playoff import (
    PLAYOFF_ROUNDS,
    Round,
    affordable,
    contenders,
    play_order,
    standings,
)
from perftui.domain.tune.result import (
    FAILED,
    FITS,
    UNJUDGED,
    Limits,
    Trial,
    best_trial,
    judge_trial,
    needs_second_run,
    on_the_edge,
    run_budget,
    spent,
    stalled,
    within_noise,
)
from perftui.domain.tune.space import dominated
from perftui.tune.trials import Sink, TrialRunner

if TYPE_CHECKING:
    import numpy as np


def _beyond(trial: Trial, budget_ms: float) -> bool:
    """The trial's latency is over the budget beyond noise."""
    return trial.latency is not None and trial.latency.lo > budget_ms


FLOOR_TRIES = 3
"""How many of the least-latency configurations (fewer threads, then other settings) are
tried before a budget is refused as below them all."""
CONVERGED = "no configuration left is expected to beat the best beyond noise"


@dataclass(frozen=True)
class Outcome:
    trials: tuple[Trial, ...]
    stat: str
    budget_ms: float
    reason: str
    elapsed_s: float
    candidates: int
    cancelled: bool = False
    max_memory_mib: float | None = None

    @property
    def best(self) -> Trial | None:
        return best_trial(self.trials)

    @property
    def near(self) -> list[Trial]:
        best = self.best
        return within_noise(best, self.trials) if best else []

    def to_dict(self) -> dict[str, Any]:
        best = self.best
        return {
            "stat": self.stat,
            "candidates": self.candidates,
            "max_latency_ms": self.budget_ms,
            "max_memory_mib": self.max_memory_mib,
            "best": best.to_dict() if best else None,
            "within_noise": [t.to_dict() for t in self.near],
            "trials": [t.to_dict() for t in self.trials],
            "stopped_because": self.reason,
            "cancelled": self.cancelled,
            "elapsed_s": round(self.elapsed_s, 3),
        }


@dataclass
class _Slot:
    number: int
    config: RunConfig
    runs: list[tuple[RunResult, np.ndarray | None]] = field(default_factory=list)
    seconds: float = 0.0
    """Its last run's wall time."""


class Tuner:
    """One search. `run()` blocks; `cancel()` (any thread) ends it after keeping every
    finished trial. `on_trial` hears each trial as it is judged (again after each more run,
    and with its standing after the playoff)."""

    def __init__(
        self,
        request: BenchmarkRequest,
        candidates: Sequence[RunConfig],
        stat: str,
        budget_ms: float,
        limits: Limits,
        store: Sink | None,
        on_trial: Callable[[Trial], None] = lambda _t: None,
        max_memory_mib: float | None = None,
    ) -> None:
        # every run of a trial is measured for RUN_SHARE of the asked budget
        self.request = replace(request, budget=run_budget(request.budget))
        self.candidates = tuple(candidates)
        self.stat, self.budget_ms, self.limits = stat, budget_ms, limits
        self.max_memory_mib = max_memory_mib
        self.store = store
        self.on_trial = on_trial
        self.trial_runner = TrialRunner(self.request, stat, budget_ms)
        self._run_s = 0.0  # the last run's wall time: the next one's estimate
        self._slots: dict[RunConfig, _Slot] = {}
        self._trials: dict[RunConfig, Trial] = {}
        self._numbers = itertools.count(1)

    @property
    def cancelled(self) -> bool:
        return self.trial_runner.cancelled

    def cancel(self) -> None:
        self.trial_runner.cancel()

    def _open(self) -> list[RunConfig]:
        """Candidates neither measured nor dominated by an over-budget one."""
        over = [c for c, t in self._trials.items() if t.status not in (FITS, *UNJUDGED)]
        return [c for c in self.candidates if c not in self._slots and dominated(c, over) is None]

    def _judge(self, slot: _Slot, stopped: bool) -> Trial:
        trial = judge_trial(
            slot.number,
            slot.config,
            slot.runs,
            self.stat,
            self.budget_ms,
            stopped,
            self.max_memory_mib,
        )
        self._trials[slot.config] = trial
        self.on_trial(trial)
        return trial

    def floor(self) -> Trial:
        """Measure the configurations with the least latency to expect in turn (at most
        FLOOR_TRIES), unsaved, until one is not over the budget beyond noise: it is stored
        and becomes the first trial. InputError naming every one tried when all are over, so
        nothing is stored. A refusal is final, so a run over the budget is measured once
        more, and the second run decides: a fresh engine's first half-second run on a shared
        machine once read 10x its usual p90."""
        tried: list[Trial] = []
        for config in floor_configs(self.candidates)[:FLOOR_TRIES]:
            trial, run, samples = self._floor_run(config)
            if _beyond(trial, self.budget_ms):
                trial, run, samples = self._floor_run(config)
            if not _beyond(trial, self.budget_ms):
                break
            tried.append(trial)
        else:
            seen = "; ".join(
                f"{t.config.label()} {t.latency.value:.3g} ms (95 % from {t.latency.lo:.3g} ms)"
                for t in tried
                if t.latency is not None
            )
            raise InputError(
                f"--max-latency {self.budget_ms:g} ms is below the fastest {self.stat} of"
                f" the {len(tried)} least-latency configurations tried: {seen}"
            )
        if trial.status == FAILED:
            raise InputError(f"the first trial failed: {'; '.join(trial.reasons)}")
        slot = _Slot(next(self._numbers), config, [(run, samples)], self._run_s)
        if self.store is not None:
            request = replace(self.request, configs=(config,))
            bid = self.store.add_benchmark(request)
            slot.runs = [(self.store.add_run(replace(run, benchmark_id=bid), samples), samples)]
        self._slots[config] = slot
        return self._judge(slot, False)

    def _floor_run(self, config: RunConfig) -> tuple[Trial, RunResult, np.ndarray | None]:
        before = time.monotonic()
        found = self.trial_runner.run(config, None)
        self._run_s = time.monotonic() - before
        if found is None:
            raise InputError("the search was cancelled before its first trial finished")
        run, samples, _ = found
        trial = judge_trial(0, config, [(run, samples)], self.stat, self.budget_ms)
        return trial, run, samples

    def _next(self, trials: Sequence[Trial]) -> _Slot | None:
        """The model's next configuration; when it expects nothing better, a trial on the
        budget's edge again (`_second_run`); None when the search has converged."""
        config = propose(self._open(), trials, self.budget_ms)
        if config is None:
            return self._second_run(trials)
        slot = _Slot(next(self._numbers), config)
        self._slots[config] = slot
        return slot

    def _second_run(self, trials: Sequence[Trial]) -> _Slot | None:
        """What to measure a second time before the search ends: the fastest trial on the
        budget's edge that would beat the best (only now: the best has climbed, and most
        edge trials no longer would); None when none is left."""
        best = best_trial(trials)
        edge = [t for t in trials if on_the_edge(t, best, self.budget_ms)]
        return self._slots[max(edge, key=lambda t: t.fps).config] if edge else None

    def _sorted(self) -> list[Trial]:
        return sorted(self._trials.values(), key=lambda t: t.number)

    def _run_trial(self, slot: _Slot) -> RunResult | None:
        """One more run of `slot`, judged; None when the search was cancelled meanwhile."""
        before = time.monotonic()
        measured = self.trial_runner.run(slot.config, self.store)
        self._run_s = slot.seconds = time.monotonic() - before
        if measured is None:
            if not slot.runs:
                del self._slots[slot.config]
            return None
        run, samples, stopped = measured
        slot.runs.append((run, samples))
        self._judge(slot, stopped)
        return run

    def _time_for(self, started: float, runs: int) -> bool:
        """`runs` more runs fit in the time budget (`--budget`), if there is one."""
        budget_s = self.limits.budget_s
        return budget_s is None or time.monotonic() - started + runs * self._run_s <= budget_s

    def _search(self, started: float) -> str:
        """Measure trials until the search is spent, stalls or converges; why it ended."""
        while not self.cancelled:
            trials = self._sorted()
            elapsed = time.monotonic() - started
            reason = spent(trials, self.limits, elapsed, self._run_s)
            if reason:
                return reason
            stall = stalled(trials, self.limits)
            slot = self._second_run(trials) if stall else self._next(trials)
            if slot is None:
                return stall or CONVERGED
            self._run_trial(slot)
        return "cancelled"

    def _field(self, started: float) -> list[RunConfig]:
        """The contenders (perftui.domain.tune.playoff.contenders) that the search's time
        affords, fastest first."""
        trials = self._sorted()
        field = [t.config for t in contenders(trials, best_trial(trials))]
        seconds = {config: self._slots[config].seconds for config in field}
        return affordable(field, seconds, time.monotonic() - started)

    def _playoff(self, started: float) -> None:
        """The contenders the search's time affords (`_field`), measured in alternated
        rounds, as many as the time budget allows, and ranked by the rounds' pairs: each
        one's standing is judged again with it. A best without a rival is measured once
        more instead, so a lucky run cannot win alone; if that run drops it, the new best
        is the one to measure again."""
        field = self._field(started)
        while len(field) == 1 and needs_second_run(self._trials[field[0]]):
            if not self._time_for(started, 1) or self._run_trial(self._slots[field[0]]) is None:
                return
            field = self._field(started)
        if len(field) < 2:
            return
        rounds: list[Round] = []
        for number in range(PLAYOFF_ROUNDS):
            if not self._time_for(started, len(field)):
                break
            found = {}
            for config in play_order(field, number):
                run = self._run_trial(self._slots[config])
                if run is None:  # cancelled: the runs so far are kept, unranked
                    return
                if run.status == "ok":
                    found[config] = run.throughput_fps
            rounds.append(found)
        eligible = [c for c in field if self._trials[c].fits]
        for config, ratio in standings(rounds, eligible).items():
            self._trials[config] = trial = replace(self._trials[config], standing=ratio)
            self.on_trial(trial)

    def run(self) -> Outcome:
        started = time.monotonic()
        self.floor()
        reason = self._search(started)
        if not self.cancelled:
            self._playoff(started)
        if self.cancelled:
            reason = "cancelled"
        elapsed = time.monotonic() - started
        return Outcome(
            tuple(self._sorted()),
            self.stat,
            self.budget_ms,
            reason,
            elapsed,
            len(self.candidates),
            self.cancelled,
            self.max_memory_mib,
        )
