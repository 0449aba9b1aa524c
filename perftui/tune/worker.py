"""The tune child process: `python -m perftui.tune.worker`.

Reads one JSON object from stdin (a perftui.domain.forms.tune.TuneSpec) and runs the search
(perftui.tune.search.Tuner), whose trials it measures itself, one after another, as a
benchmark worker measures its runs (perftui.tune.trials). It never opens the store (one
writer): what would be stored goes to the events stream (what was stdout; anything the
engine prints goes to stderr) as JSON lines for the parent (perftui.tune.runner) to store:

  {"event": "benchmark", "id": key, "request": {BenchmarkRequest}}  a trial batch's request
  {"event": "run", "run": {RunResult}, "samples": base64 float32 ms | null}   (of the last)
  {"event": "trial", "trial": {Trial.to_wire}}    a judged trial (again after a repeat)
  {"event": "done", "reason": str, "elapsed_s": float, "cancelled": bool}
  {"event": "fatal", "error": str}    the search cannot run (nothing was sent to store)

SIGINT or SIGTERM cancels: the trial in progress is dropped, the finished ones are kept.
"""

from __future__ import annotations

import json
import signal
import sys
import uuid
from dataclasses import replace
from typing import Any, TextIO

import numpy as np

from perftui.bench.protocol import event_stream, samples_to_wire
from perftui.domain.errors import InputError
from perftui.domain.forms.tune import TuneSpec
from perftui.domain.records import BenchmarkRequest, Project, RunResult
from perftui.tune.search import Tuner


class PipeSink:
    """The store's add_benchmark/add_run as events; ids are made here so the trials name
    the runs the parent stores."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def emit(self, event: dict[str, Any]) -> None:
        self.out.write(json.dumps(event) + "\n")
        self.out.flush()

    def ensure_project(self, project: Project) -> Project:
        return project

    def add_benchmark(self, request: BenchmarkRequest) -> str:
        key = uuid.uuid4().hex
        self.emit({"event": "benchmark", "id": key, "request": request.to_dict()})
        return key

    def add_run(self, run: RunResult, samples_ms: np.ndarray | None = None) -> RunResult:
        run = replace(run, id=run.id or uuid.uuid4().hex)
        samples = None if samples_ms is None else samples_to_wire(samples_ms)
        self.emit({"event": "run", "run": run.to_dict(), "samples": samples})
        return run


def main() -> None:
    sink = PipeSink(event_stream())
    spec = TuneSpec.from_dict(json.loads(sys.stdin.readline()))

    def on_trial(trial: Any) -> None:
        sink.emit({"event": "trial", "trial": trial.to_wire()})

    try:
        tuner = Tuner(
            spec.request,
            spec.candidates,
            spec.stat,
            spec.budget_ms,
            spec.limits,
            sink,
            on_trial,
            spec.max_memory_mib,
        )
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: tuner.cancel())
        outcome = tuner.run()
    except InputError as error:
        sink.emit({"event": "fatal", "error": str(error)})
        return
    sink.emit(
        {
            "event": "done",
            "reason": outcome.reason,
            "elapsed_s": outcome.elapsed_s,
            "cancelled": outcome.cancelled,
        }
    )


if __name__ == "__main__":
    from perftui.processes import die_with_parent

    die_with_parent()  # a worker never outlives the process that reads it
    main()
