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
import json
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace

from perftui.bench import protocol
from perftui.bench.environment import environment
from perftui.domain.records import BenchmarkRequest, RunResult
from perftui.domain.store import Store

STDERR_LINES = 20


class BenchmarkClient:
    def __init__(self, request: BenchmarkRequest, store: Store | None = None) -> None:
        self.store = store
        self.benchmark_id = ""
        if store is not None:
            project = store.ensure_project(request.project)
            request = replace(request, project=project)
            self.benchmark_id = store.add_benchmark(request)
        self.request = request
        self.runs: list[RunResult] = []
        self.cancelled = False
        self._process: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)

    @property
    def total(self) -> int:
        return len(self.request.configs)

    def cancel(self) -> None:
        """Ask the worker to stop; the run in progress is kept as cancelled."""
        with self._lock:
            self.cancelled = True
            if self._process is not None and self._process.poll() is None:
                self._process.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """Stop the worker at once (a second Ctrl-C); the run in progress is lost."""
        with self._lock:
            self.cancelled = True
            if self._process is not None and self._process.poll() is None:
                self._process.kill()

    def events(self) -> Iterator[protocol.Event]:
        """Run the whole matrix and yield its events; ends with one BenchmarkDone.

        A worker that dies (an engine crash, an abort on a bad model) fails the run it was
        measuring; a fresh worker goes on with the rest of the matrix."""
        start = 0
        while start < self.total and not self.cancelled:
            current: int | None = None
            process = self._spawn(start)
            assert process.stdout is not None
            for line in process.stdout:
                event = protocol.decode(line)
                if isinstance(event, protocol.RunStarted):
                    current = event.index
                elif isinstance(event, protocol.RunFinished):
                    event = self._keep(event)
                    current, start = None, event.index + 1
                elif isinstance(event, protocol.BenchmarkDone | protocol.Fatal):
                    process.wait()
                    yield event
                    return
                yield event
            returncode = process.wait()
            if current is None and start >= self.total:
                break
            index = start if current is None else current
            status = "cancelled" if self.cancelled else "failed"
            error = "cancelled" if self.cancelled else self._death_message(returncode)
            config = self.request.configs[index]
            lost = RunResult(config=config, status=status, error=error)
            yield self._keep(protocol.RunFinished(index, lost, None))
            start = index + 1
        yield protocol.BenchmarkDone(self.cancelled)

    def _spawn(self, start: int) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, "-m", "perftui.bench.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            start_new_session=True,  # Ctrl-C reaches the parent, which decides what to cancel
        )
        assert process.stdin is not None and process.stderr is not None
        threading.Thread(target=self._drain_stderr, args=(process,), daemon=True).start()
        process.stdin.write(json.dumps({"request": self.request.to_dict(), "start": start}) + "\n")
        process.stdin.close()
        with self._lock:
            self._process = process
            if self.cancelled:
                process.send_signal(signal.SIGTERM)
        return process

    def _drain_stderr(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            if line.strip():
                self._stderr.append(line.rstrip())

    def _death_message(self, returncode: int) -> str:
        if returncode < 0:
            try:
                how = f"signal {signal.Signals(-returncode).name}"
            except ValueError:
                how = f"signal {-returncode}"
        else:
            how = f"exit status {returncode}"
        last = self._stderr[-1] if self._stderr else "no message"
        return f"the benchmark worker died ({how}): {last}"

    def _keep(self, event: protocol.RunFinished) -> protocol.RunFinished:
        run = replace(
            event.run,
            project=self.request.project.name,
            benchmark_id=self.benchmark_id,
            resolved={**event.run.resolved, "environment": environment()},
        )
        if self.store is not None:
            run = self.store.add_run(run, event.samples_ms)
        self.runs.append(run)
        return replace(event, run=run)
