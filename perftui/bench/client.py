"""The parent side of a benchmark: start the worker, read its events, keep every finished run.

Used the same way by the CLI and by the dashboard (from a thread worker):

    client = BenchmarkClient(request, store)      # registers the project and the benchmark
    for event in client.events():                  # blocks; RunFinished runs are already saved
        ...
    client.cancel()                                # from any thread: the run in progress ends
                                                   # as cancelled, finished runs are kept
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from perftui.bench import protocol
from perftui.bench.environment import environment
from perftui.domain.records import BenchmarkRequest, Project, RunConfig, RunResult
from perftui.processes import child_env, exit_description, keep_last_lines

if TYPE_CHECKING:
    import numpy as np

STDERR_LINES = 20
WORKER_EXIT_S = 10.0
"""How long a worker that has closed its event stream may take to exit before it is killed."""
STDERR_DRAIN_S = 2.0
"""How long to wait for a dead worker's last stderr lines (its last words name the crash)."""
CANCEL_GRACE_S = 5.0
"""How long a cancelled worker has to end its run before it is killed (a stopped or hung
worker never would, and the first Ctrl-C must always answer)."""
WATCHDOG_FLOOR_S = 120.0
WATCHDOG_ENV = "PERFTUI_WATCHDOG_S"


def watchdog_limit(request: BenchmarkRequest) -> float:
    """Seconds a worker may send no event before it is killed: $PERFTUI_WATCHDOG_S, else the
    longer of WATCHDOG_FLOOR_S (a long compile is silent) and 3x the run's time budget."""
    with contextlib.suppress(ValueError):
        configured = float(os.environ.get(WATCHDOG_ENV, ""))
        if configured > 0:
            return configured
    return max(WATCHDOG_FLOOR_S, 3 * request.budget.time_s)


class Watchdog:
    """Kills a worker that stays silent past `limit_s` (stopped, hung or deadlocked)."""

    def __init__(self, process: subprocess.Popen[str], limit_s: float) -> None:
        self.process = process
        self.limit_s = limit_s
        self.last = time.monotonic()
        self.fired = False
        threading.Thread(target=self._watch, name="perftui-watchdog", daemon=True).start()

    def fed(self) -> None:
        self.last = time.monotonic()

    def _watch(self) -> None:
        while self.process.poll() is None:
            if time.monotonic() - self.last > self.limit_s:
                self.fired = True
                _kill(self.process)
                return
            time.sleep(min(1.0, self.limit_s / 4))

    def message(self) -> str:
        return (
            f"the benchmark worker sent nothing for {self.limit_s:g} s and was killed"
            f" (watchdog; ${WATCHDOG_ENV} sets the limit)"
        )


def _kill(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(OSError):
        if process.poll() is None:
            process.kill()


class Launcher(Protocol):
    """Where the worker runs: this machine (LocalLauncher) or a target (perftui.targets)."""

    def spawn(self) -> subprocess.Popen[str]:
        """A new worker with text pipes for stdin, stdout (events) and stderr."""
        ...

    def send(self, process: subprocess.Popen[str], message: dict[str, Any]) -> None:
        """Hand the worker its request."""
        ...

    def cancel(self, process: subprocess.Popen[str]) -> None:
        """Ask the worker to end the run in progress as cancelled."""
        ...

    def environment(self) -> dict[str, Any]:
        """What the runs are measured on."""
        ...

    def death_message(self, returncode: int, last_line: str) -> str: ...

    def close(self) -> None:
        """The benchmark is over: release what was held for all its workers."""
        ...


def spawn_piped(command: Sequence[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=child_env(),  # the worker dies with this process (perftui.processes)
        start_new_session=True,  # Ctrl-C reaches the parent, which decides what to cancel
    )


class LocalLauncher:
    """The worker as a child of this process; SIGTERM cancels."""

    def __init__(self, command: Sequence[str]) -> None:
        self.command = tuple(command)

    def spawn(self) -> subprocess.Popen[str]:
        return spawn_piped(self.command)

    def send(self, process: subprocess.Popen[str], message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.close()

    def cancel(self, process: subprocess.Popen[str]) -> None:
        process.send_signal(signal.SIGCONT)  # a stopped worker must run to end its run
        process.send_signal(signal.SIGTERM)

    def environment(self) -> dict[str, Any]:
        return environment()

    def death_message(self, returncode: int, last_line: str) -> str:
        return f"the benchmark worker died ({exit_description(returncode)}): {last_line}"

    def close(self) -> None:
        pass


class RunSink(Protocol):
    """Where a client stores each run it measured (the store, or the CLI's KeepMeasured)."""

    def add_run(self, run: RunResult, samples_ms: np.ndarray | None) -> RunResult: ...


class RunStore(RunSink, Protocol):
    """What a client registers its project and benchmark in, then stores its runs in: the
    Store, or a fleet's SerialStore (perftui.targets.fleet)."""

    def ensure_project(self, project: Project) -> Project: ...

    def add_benchmark(self, request: BenchmarkRequest) -> str: ...


class BenchmarkClient:
    worker_command: tuple[str, ...] = (sys.executable, "-m", "perftui.bench.worker")
    """The child process; it reads the request on stdin and writes protocol events."""

    def __init__(
        self,
        request: BenchmarkRequest,
        store: RunStore | None = None,
        launcher: Launcher | None = None,
    ) -> None:
        self.launcher = launcher or LocalLauncher(self.worker_command)
        self.store: RunSink | None = store
        self.benchmark_id = ""
        if store is not None:
            project = store.ensure_project(request.project)
            request = replace(request, project=project)
            self.benchmark_id = self._register(store, request)
        self.request = request
        self.runs: list[RunResult] = []
        self.cancelled = False
        self._process: subprocess.Popen[str] | None = None
        # reentrant: cancel() may run in a signal handler that interrupted this same thread
        # while it held the lock (in _spawn); a plain Lock would deadlock there
        self._lock = threading.RLock()
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._drain: threading.Thread | None = None
        self.watchdog_s = watchdog_limit(request)

    def _register(self, store: RunStore, request: BenchmarkRequest) -> str:
        """Store the benchmark; its id."""
        return store.add_benchmark(request)

    def _message(self, start: int, stop: int) -> dict[str, Any]:
        """What the worker is handed: the runs from `start` up to `stop`."""
        return {"request": self.request.to_dict(), "start": start, "stop": stop}

    def _repetition(self, index: int) -> int:
        return self.request.scheduled(index)[0]

    def _config(self, index: int) -> RunConfig:
        """The configuration of the run `index` (one a dead worker was measuring)."""
        return self.request.scheduled(index)[1]

    @property
    def total(self) -> int:
        return self.request.total_runs

    def _repetition_end(self, index: int) -> int:
        """The index after the last run of `index`'s repetition of the configurations."""
        per_repetition = len(self.request.configs)
        return min(self.total, (index // per_repetition + 1) * per_repetition)

    def cancel(self) -> None:
        """Ask the worker to stop; the run in progress is kept as cancelled."""
        with self._lock:
            self.cancelled = True
            if self._process is not None and self._process.poll() is None:
                self._cancel(self._process)

    def _cancel(self, process: subprocess.Popen[str]) -> None:
        """Ask the worker to end its run; kill it if it has not after CANCEL_GRACE_S."""
        self.launcher.cancel(process)
        escalation = threading.Timer(CANCEL_GRACE_S, _kill, args=(process,))
        escalation.daemon = True
        escalation.start()

    def kill(self) -> None:
        """Stop the worker at once (a second Ctrl-C); the run in progress is lost."""
        with self._lock:
            self.cancelled = True
            if self._process is not None and self._process.poll() is None:
                self._process.kill()

    def events(self) -> Generator[protocol.Event, None, None]:
        """_events, then the launcher is closed (however the benchmark ended)."""
        try:
            yield from self._events()
        finally:
            self.launcher.close()

    def _events(self) -> Iterator[protocol.Event]:
        """Run the whole matrix and yield its events; ends with one BenchmarkDone, or with a
        Fatal when the request itself cannot run.

        A worker that dies (an engine crash, an abort on a bad model) fails the run it was
        measuring; a fresh worker goes on with the rest of the matrix. A cancel before the
        first worker started records that first run as cancelled, as any interrupted run.
        Closing the generator early (a consumer that stops reading) kills the worker.
        Each repetition (perftui.domain.records.BenchmarkRequest.scheduled) runs in a worker
        of its own, so its compile and process are its own too."""
        start = 0
        while start < self.total:
            if self.cancelled:  # no worker was measuring it: say so without starting one
                _, config = self.request.scheduled(start)
                skipped = RunResult(config=config, status="cancelled", error="cancelled")
                yield self._keep(protocol.RunFinished(start, skipped, None))
                break
            current: int | None = None
            returncode = 0
            stop = self._repetition_end(start)
            process = self._spawn(start, stop)
            assert process.stdout is not None
            watchdog = Watchdog(process, self.watchdog_s)
            ended = False
            try:
                for event in protocol.read(process.stdout):
                    watchdog.fed()
                    if isinstance(event, protocol.RunStarted):
                        current = event.index
                    elif isinstance(event, protocol.RunFinished):
                        event = self._keep(event)
                        current, start = None, event.index + 1
                    elif isinstance(event, protocol.BenchmarkDone | protocol.Fatal):
                        self._wait(process)
                        ended = True
                        next_repetition = isinstance(event, protocol.BenchmarkDone) and not (
                            event.cancelled or start >= self.total
                        )
                        if next_repetition:
                            break  # in a fresh worker
                        yield event
                        return
                    yield event
                else:
                    returncode = self._wait(process)
                ended = True
            finally:
                if not ended:  # abandoned or broken mid-stream: leave no worker behind
                    self._stop(process)
            if current is None and start >= stop:
                continue
            index = start if current is None else current
            status = "cancelled" if self.cancelled else "failed"
            if self.cancelled:
                error = "cancelled"
            elif watchdog.fired:
                error = watchdog.message()
            else:
                error = self._death_message(returncode)
            lost = RunResult(config=self._config(index), status=status, error=error)
            yield self._keep(protocol.RunFinished(index, lost, None))
            start = index + 1
            if self.cancelled:
                break
        yield protocol.BenchmarkDone(self.cancelled)

    def _spawn(self, start: int, stop: int) -> subprocess.Popen[str]:
        process = self.launcher.spawn()
        assert process.stdin is not None and process.stderr is not None
        self._stderr = collections.deque(maxlen=STDERR_LINES)  # this worker's lines only
        self._drain = threading.Thread(
            target=keep_last_lines,
            args=(process.stderr, self._stderr),
            name="perftui-worker-stderr",
            daemon=True,
        )
        self._drain.start()
        self.launcher.send(process, self._message(start, stop))
        with self._lock:
            self._process = process
            if self.cancelled:
                self._cancel(process)
        return process

    def _wait(self, process: subprocess.Popen[str]) -> int:
        """The exit status of a worker whose event stream ended; one that hangs is killed."""
        try:
            returncode = process.wait(timeout=WORKER_EXIT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            returncode = process.wait()
        self._close(process)
        return returncode

    def _stop(self, process: subprocess.Popen[str]) -> None:
        """Kill a worker nobody reads any more and reap it."""
        with self._lock:
            if process.poll() is None:
                process.kill()
        process.wait()
        self._close(process)

    def _close(self, process: subprocess.Popen[str]) -> None:
        """Let the stderr reader take the dead worker's last lines, then close its pipes."""
        if self._drain is not None:
            self._drain.join(STDERR_DRAIN_S)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None and not (stream is process.stderr and self._drain_alive()):
                stream.close()

    def _drain_alive(self) -> bool:
        return self._drain is not None and self._drain.is_alive()

    def _death_message(self, returncode: int) -> str:
        last = self._stderr[-1] if self._stderr else "no message"
        return self.launcher.death_message(returncode, last)

    def _keep(self, event: protocol.RunFinished) -> protocol.RunFinished:
        run = replace(
            event.run,
            project=self.request.project.name,
            benchmark_id=self.benchmark_id,
            repetition=self._repetition(event.index),
            resolved={
                **event.run.resolved,
                "environment": self.launcher.environment(),
                **({"label": self.request.label} if self.request.label else {}),
            },
        )
        if self.store is not None:
            run = self.store.add_run(run, event.samples_ms)
        self.runs.append(run)
        return replace(event, run=run)
