"""A tune's trials, each run in this process (the tune child), one after another.

The tune child measures its trials itself, as a benchmark worker measures its runs
(perftui.bench.worker.measure_run): the engine is loaded and the inputs read once for the
whole search, so a trial costs what a point of `perftui bench`'s matrix costs, and each
next configuration can be chosen from the trial just measured. A run clearly over the
latency budget is stopped early (perftui.domain.tune.result.clearly_over).
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from perftui.bench import protocol
from perftui.bench.environment import environment
from perftui.bench.inputs import InputSource
from perftui.bench.worker import Cancellation, measure_run
from perftui.domain.errors import InputError
from perftui.domain.records import BenchmarkRequest, Project, RunConfig, RunResult
from perftui.domain.tune.result import clearly_over
from perftui.engines import get_engine

if TYPE_CHECKING:
    import numpy as np


class Sink(Protocol):
    """Where the runs of the trials go (perftui.store.Store has these)."""

    def ensure_project(self, project: Project) -> Project: ...

    def add_benchmark(self, request: BenchmarkRequest) -> str: ...

    def add_run(self, run: RunResult, samples_ms: np.ndarray | None = None) -> RunResult: ...


TrialRun = tuple[RunResult, "np.ndarray | None", bool]
"""A run (stored where a sink was given), its samples, and whether it was stopped early."""


class TrialRunner:
    """Runs the configurations of `request` one at a time, each a trial; `cancel()` (any thread or a
    signal handler) ends the run in progress as cancelled."""

    def __init__(self, request: BenchmarkRequest, stat: str, budget_ms: float) -> None:
        self.request = request
        self.stat, self.budget_ms = stat, budget_ms
        self.cancelled = False
        self._cancel = Cancellation()
        try:
            self.engine = get_engine(request.project.engine)
        except Exception as error:
            raise InputError(str(error)) from None

    def cancel(self) -> None:
        self.cancelled = True
        self._cancel.requested = True

    @functools.cached_property
    def _source(self) -> InputSource:
        model = self.request.project.model
        return InputSource.for_request(model, self.request.data, self.engine.model_inputs(model))

    @functools.cached_property
    def _environment(self) -> dict[str, Any]:
        return environment()

    def run(self, config: RunConfig, sink: Sink | None) -> TrialRun | None:
        """`config`'s run, stored in `sink` as a benchmark of its own; None when the search
        was cancelled before the run finished."""
        if self.cancelled:
            return None
        self._cancel = Cancellation()
        request = replace(self.request, configs=(config,))
        ticks: list[float] = []
        stopped = False

        def emit(event: protocol.Event) -> None:
            nonlocal stopped
            if isinstance(event, protocol.Progress) and not self._cancel.requested:
                ticks.append(event.latency_ms)
                left_s = request.budget.time_s - event.elapsed_s
                if clearly_over(self.stat, self.budget_ms, ticks, left_s):
                    stopped = self._cancel.requested = True

        finished = measure_run(
            self.engine, request, 0, config, emit, self._cancel, lambda: self._source
        )
        run = finished.run
        if self.cancelled or (run.status == "cancelled" and not stopped):
            return None
        run = replace(
            run,
            project=request.project.name,
            resolved={**run.resolved, "environment": self._environment},
        )
        if sink is not None:
            run = replace(run, benchmark_id=sink.add_benchmark(request))
            run = sink.add_run(run, finished.samples_ms)
        return run, finished.samples_ms, stopped
