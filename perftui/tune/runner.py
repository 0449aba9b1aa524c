"""The parent side of a tune, shared by `perftui tune` and the dashboard (from a thread
worker):

    process = TuneProcess(spec, store)
    for trial in process.trials():    # blocks; each judged trial, its runs already stored
        ...
    process.outcome                   # the end: best, within noise, why it stopped
    process.cancel()                  # from any thread: finished trials are kept

The search runs in a child (`python -m perftui.tune.worker`, which measures its trials
itself); this side alone writes the store: the child hands each trial's benchmark and runs
over the pipe and they are stored here as they come.
"""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace

from perftui.bench.client import STDERR_LINES, spawn_piped
from perftui.bench.protocol import samples_from_wire
from perftui.domain.errors import InputError
from perftui.domain.forms.tune import TuneSpec
from perftui.domain.measurement.cost import with_price
from perftui.domain.records import BenchmarkRequest, RunResult
from perftui.domain.tune.result import Trial
from perftui.processes import exit_description
from perftui.store.database import Store
from perftui.tune.search import Outcome


def cores() -> int:
    """The cores this process may run on (the search's bound on threads)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class TuneProcess:
    command: tuple[str, ...] = (sys.executable, "-m", "perftui.tune.worker")

    def __init__(self, spec: TuneSpec, store: Store, price_per_hour: float | None = None) -> None:
        """`price_per_hour`: this machine's, recorded with each run (None: none set)."""
        self.spec = spec
        self.store = store
        self.price_per_hour = price_per_hour
        self.outcome: Outcome | None = None
        self.cancelled = False
        self._trials: dict[int, Trial] = {}
        self._benchmarks: dict[str, str] = {}
        self._process: subprocess.Popen[str] | None = None
        self._lock = threading.RLock()  # cancel() may come from a signal handler
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._started = time.monotonic()

    def cancel(self) -> None:
        """End the search; the trials already finished are kept (and stored)."""
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        """Stop the child at once; what it had handed over is kept."""
        self._signal(signal.SIGKILL)

    def _signal(self, signum: int) -> None:
        with self._lock:
            self.cancelled = True
            if self._process is not None and self._process.poll() is None:
                self._process.send_signal(signum)

    def trials(self) -> Iterator[Trial]:
        """Run the search; yield each trial as it is judged (a repeated one again). Sets
        `outcome` at the end; InputError when the search cannot run (nothing stored)."""
        self._started = time.monotonic()
        process = spawn_piped(self.command)
        assert process.stdin and process.stdout and process.stderr
        threading.Thread(target=self._drain, args=(process,), daemon=True).start()
        process.stdin.write(json.dumps(self.spec.to_dict()) + "\n")
        process.stdin.close()
        with self._lock:
            self._process = process
            if self.cancelled:
                process.send_signal(signal.SIGTERM)
        try:
            for line in process.stdout:
                trial = self._handle(json.loads(line))
                if trial is not None:
                    yield trial
        finally:
            if process.poll() is None and self.outcome is None:
                process.kill()
            returncode = process.wait()
        if self.outcome is None:
            last = self._stderr[-1] if self._stderr else "no message"
            if self.cancelled:
                self.outcome = self._outcome("cancelled", True)
            else:
                raise RuntimeError(f"the tune worker died ({exit_description(returncode)}): {last}")

    def _handle(self, event: dict) -> Trial | None:
        kind = event["event"]
        if kind == "benchmark":
            request = BenchmarkRequest.from_dict(event["request"])
            self._benchmarks[event["id"]] = self.store.add_benchmark(request)
        elif kind == "run":
            run = RunResult.from_dict(event["run"])
            environment = with_price(run.resolved.get("environment") or {}, self.price_per_hour)
            run = replace(
                run,
                benchmark_id=self._benchmarks.get(run.benchmark_id, ""),
                resolved={**run.resolved, "environment": environment},
            )
            samples = event["samples"]
            self.store.add_run(run, None if samples is None else samples_from_wire(samples))
        elif kind == "trial":
            trial = Trial.from_wire(event["trial"])
            self._trials[trial.number] = trial
            return trial
        elif kind == "done":
            self.outcome = self._outcome(event["reason"], event["cancelled"])
        elif kind == "fatal":
            raise InputError(event["error"])
        return None

    def _outcome(self, reason: str, cancelled: bool) -> Outcome:
        """The end, timed as the person waited for it: from the child's start (its engine's
        load and compile included) to its last word, not the child's own search time."""
        spec = self.spec
        trials = tuple(self._trials[n] for n in sorted(self._trials))
        return Outcome(
            trials,
            spec.stat,
            spec.budget_ms,
            reason,
            time.monotonic() - self._started,
            len(spec.candidates),
            cancelled,
            spec.max_memory_mib,
        )

    def _drain(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            if line.strip():
                self._stderr.append(line.rstrip())
