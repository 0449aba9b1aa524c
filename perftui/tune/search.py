"""The tune loop: Optuna's TPE sampler proposes configurations, the benchmark worker measures
them (perftui.bench.client, a few trials per worker), perftui.domain.tune_result judges them.

The sampler is seeded, so the same space, budget and measurements replay the same search.
Its constraint is the latency statistic over the budget; what cannot win is pruned before
it is measured (perftui.domain.tune_space.dominated), a trial clearly over the budget is
stopped early, and a noisy contender is measured again. (Measuring one configuration per
batch size before TPE proposes anything was tried and measured worse here: more trials, no
better result; see benchmarks/tune.py.)

The runs go to a `Sink` (the store's add_benchmark/add_run): the store itself in-process,
or the tune child's event pipe (perftui.tune.worker), whose parent stores them.
"""

from __future__ import annotations

import itertools
import random
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, cast

import numpy as np
import optuna

from perftui.bench import protocol
from perftui.bench.client import BenchmarkClient
from perftui.domain.errors import InputError
from perftui.domain.records import AUTO, BenchmarkRequest, Project, RunConfig, RunResult
from perftui.domain.tune_result import (
    FAILED,
    STARTUP_TRIALS,
    Limits,
    Trial,
    best_trial,
    clearly_over,
    floor_config,
    judge_trial,
    needs_repeat,
    stop_reason,
    within_noise,
)
from perftui.domain.tune_space import KNOBS, dominated
from perftui.store.database import Store

TRIALS_PER_WORKER = 4
"""Trials measured in one worker: a fresh process and engine import per trial would cost
more than a short trial measures."""
MAX_ASKS = 40
"""Proposals a slot may take before an unmeasured candidate is picked at random instead
(TPE repeats itself on a small categorical space)."""


class Sink(Protocol):
    """Where the runs of the trials go (perftui.store.Store has these)."""

    def ensure_project(self, project: Project) -> Project: ...

    def add_benchmark(self, request: BenchmarkRequest) -> str: ...

    def add_run(self, run: RunResult, samples_ms: np.ndarray | None = None) -> RunResult: ...


Measured = tuple[RunConfig, RunResult, np.ndarray | None, bool]
"""A configuration, its run, its samples and whether it was stopped early."""


@dataclass(frozen=True)
class Outcome:
    trials: tuple[Trial, ...]
    stat: str
    budget_ms: float
    reason: str
    elapsed_s: float
    candidates: int
    cancelled: bool = False

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
    asked: optuna.trial.Trial | None
    runs: list[tuple[RunResult, np.ndarray | None]] = field(default_factory=list)


class Tuner:
    """One search. `run()` blocks; `cancel()` (any thread) ends it after keeping every
    finished trial. `on_trial` hears each trial as it is judged (again after a repeat)."""

    def __init__(
        self,
        request: BenchmarkRequest,
        candidates: Sequence[RunConfig],
        stat: str,
        budget_ms: float,
        limits: Limits,
        store: Sink | None,
        on_trial: Callable[[Trial], None] = lambda _t: None,
    ) -> None:
        self.request = request
        self.candidates = tuple(candidates)
        self.stat, self.budget_ms, self.limits = stat, budget_ms, limits
        self.store = store
        self.on_trial = on_trial
        self.cancelled = False
        self._client: BenchmarkClient | None = None
        self._slots: dict[RunConfig, _Slot] = {}
        self._trials: dict[RunConfig, Trial] = {}
        self._rng = random.Random(request.seed)
        self._numbers = itertools.count(1)
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(
            seed=request.seed,
            n_startup_trials=STARTUP_TRIALS,
            multivariate=True,
            constant_liar=True,
        )
        self.study = optuna.create_study(direction="maximize", sampler=sampler)
        self._choices = {k: list(dict.fromkeys(getattr(c, k) for c in candidates)) for k in KNOBS}

    def cancel(self) -> None:
        self.cancelled = True
        if self._client is not None:
            self._client.cancel()

    # --- proposing ---------------------------------------------------------------------

    def _config(self, asked: optuna.trial.Trial) -> RunConfig:
        params = {k: asked.suggest_categorical(k, self._choices[k]) for k in KNOBS}
        if params["api"] == "sync":
            params["requests"] = AUTO
        base = self.candidates[0]
        return replace(base, **params)

    def _over(self) -> list[RunConfig]:
        return [c for c, t in self._trials.items() if t.status not in ("fits", FAILED)]

    def _open(self) -> list[RunConfig]:
        """Candidates neither measured, nor proposed, nor dominated by an over-budget one."""
        over = self._over()
        return [c for c in self.candidates if c not in self._slots and dominated(c, over) is None]

    def _ask(self) -> _Slot | None:
        """A new configuration to measure, or None when none is left."""
        for attempt in range(MAX_ASKS + 1):
            if attempt == MAX_ASKS:
                left = self._open()
                if not left:
                    return None
                pick = self._rng.choice(left)
                self.study.enqueue_trial({k: getattr(pick, k) for k in KNOBS})
            asked = self.study.ask()
            config = self._config(asked)
            known = self._trials.get(config)
            if known is not None:
                self._tell(asked, known)
            elif (
                config in self._slots
                or config not in self.candidates
                or dominated(config, self._over()) is not None
            ):
                self.study.tell(asked, state=optuna.trial.TrialState.PRUNED)
            else:
                slot = _Slot(next(self._numbers), config, asked)
                self._slots[config] = slot
                return slot
        return None

    def _tell(self, asked: optuna.trial.Trial, trial: Trial) -> None:
        if trial.status == FAILED or trial.latency is None:
            self.study.tell(asked, state=optuna.trial.TrialState.FAIL)
            return
        asked.set_constraint("latency_over_budget", trial.latency.value / self.budget_ms - 1.0)
        self.study.tell(asked, trial.fps)

    # --- measuring ---------------------------------------------------------------------

    def _measure(self, configs: Sequence[RunConfig], store: Sink | None) -> list[Measured]:
        """Measure `configs` in one worker; a run clearly over the budget is stopped and the
        configurations after it are left unmeasured (not returned)."""
        request = replace(self.request, configs=tuple(configs))
        client = BenchmarkClient(request, cast(Store | None, store))  # a Store or alike
        self._client = client
        if self.cancelled:
            client.cancel()
        ticks: list[float] = []
        early: set[int] = set()
        measured: list[Measured] = []
        for event in client.events():
            if isinstance(event, protocol.RunStarted):
                ticks = []
            elif isinstance(event, protocol.Progress) and not client.cancelled:
                ticks.append(event.latency_ms)
                left_s = self.request.budget.time_s - event.elapsed_s
                if clearly_over(self.stat, self.budget_ms, ticks, left_s):
                    early.add(event.index)
                    client.cancel()
            elif isinstance(event, protocol.RunFinished):
                stopped = event.index in early
                if event.run.status != "cancelled" or stopped:
                    config = configs[event.index]
                    measured.append((config, event.run, event.samples_ms, stopped))
            elif isinstance(event, protocol.Fatal):
                raise InputError(event.error)
        return measured

    def _judge(self, slot: _Slot, stopped: bool) -> Trial:
        trial = judge_trial(slot.number, slot.config, slot.runs, self.stat, self.budget_ms, stopped)
        self._trials[slot.config] = trial
        self.on_trial(trial)
        return trial

    def floor(self) -> Trial:
        """Measure the configuration with the least latency to expect, unsaved; InputError
        when even it is over the budget beyond noise, so nothing is stored. Else it is
        stored and becomes the first trial."""
        config = floor_config(self.candidates)
        found = self._measure([config], None)
        if not found:
            raise InputError("the search was cancelled before its first trial finished")
        _, run, samples, _ = found[0]
        slot = _Slot(next(self._numbers), config, None, [(run, samples)])
        trial = judge_trial(slot.number, config, slot.runs, self.stat, self.budget_ms)
        if trial.latency is not None and trial.latency.lo > self.budget_ms:
            raise InputError(
                f"--max-latency {self.budget_ms:g} ms is below the fastest {self.stat} seen, "
                f"{trial.latency.value:.3g} ms (95 % from {trial.latency.lo:.3g} ms) with "
                f"{config.label()}"
            )
        if trial.status == FAILED:
            raise InputError(f"the first trial failed: {'; '.join(trial.reasons)}")
        if self.store is not None:
            request = replace(self.request, configs=(config,))
            bid = self.store.add_benchmark(request)
            slot.runs = [(self.store.add_run(replace(run, benchmark_id=bid), samples), samples)]
        self._slots[config] = slot
        self.study.enqueue_trial({k: getattr(config, k) for k in KNOBS})
        asked = self.study.ask()
        trial = self._judge(slot, False)
        self._tell(asked, trial)
        return trial

    def run(self) -> Outcome:
        started = time.monotonic()
        self.floor()
        per_trial_s = time.monotonic() - started
        reason = ""
        while not self.cancelled:
            trials = sorted(self._trials.values(), key=lambda t: t.number)
            elapsed = time.monotonic() - started
            found = stop_reason(trials, self.limits, elapsed, per_trial_s, len(self._open()))
            if found:
                reason = found
                break
            batch = self._next_batch(trials)
            if not batch:
                reason = "every candidate is measured or pruned"
                break
            before = time.monotonic()
            measured = self._measure([s.config for s in batch], self.store)
            if measured:
                per_trial_s = (time.monotonic() - before) / len(measured)
            for config, run, samples, stopped in measured:
                slot = self._slots[config]
                slot.runs.append((run, samples))
                trial = self._judge(slot, stopped)
                if slot.asked is not None and len(slot.runs) == 1:
                    self._tell(slot.asked, trial)
            for slot in batch:  # proposed but not measured: forget them (told as pruned)
                if not slot.runs:
                    del self._slots[slot.config]
                    if slot.asked is not None:
                        self.study.tell(slot.asked, state=optuna.trial.TrialState.PRUNED)
        trials = tuple(sorted(self._trials.values(), key=lambda t: t.number))
        if self.cancelled:
            reason = "cancelled"
        elapsed = time.monotonic() - started
        return Outcome(
            trials, self.stat, self.budget_ms, reason, elapsed, len(self.candidates), self.cancelled
        )

    def _next_batch(self, trials: Sequence[Trial]) -> list[_Slot]:
        """Noisy contenders again first, then new proposals, up to TRIALS_PER_WORKER and
        to the trials left."""
        batch = [self._slots[t.config] for t in trials if needs_repeat(t, trials)]
        batch = batch[:TRIALS_PER_WORKER]
        room = TRIALS_PER_WORKER - len(batch)
        if self.limits.trials is not None:
            room = min(room, self.limits.trials - len(trials))
        for _ in range(max(0, room)):
            slot = self._ask()
            if slot is None:
                break
            batch.append(slot)
        return batch
