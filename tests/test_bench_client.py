"""The parent side of a benchmark with the real worker process and a real engine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from perftui.bench import protocol
from perftui.bench.client import BenchmarkClient
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.store.database import Store
from tests.conftest import MOBILENET, ROOT
from tests.process_helpers import read_line

pytestmark = pytest.mark.engine


def request(batches: list[int], time_s: float = 0.2, engine: str = "onnxruntime"):
    project = Project(name="p", model=str(MOBILENET), engine=engine)
    configs = tuple(RunConfig(batch=b) for b in batches)
    return BenchmarkRequest(project, configs, Budget(time_s=time_s, iterations=5, warmup=1))


def test_events_in_order_and_runs_saved(tmp_path: Path):
    store = Store(tmp_path / "db.json")
    client = BenchmarkClient(replace(request([1, 2], time_s=0.6), label="quick look"), store)
    events = list(client.events())
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "RunStarted" and kinds[-1] == "BenchmarkDone"
    assert "Progress" in kinds and kinds.count("RunFinished") == 2
    phases = [e.phase for e in events if isinstance(e, protocol.PhaseChanged)][:4]
    assert phases == ["compile", "first_inference", "warmup", "timed"]
    stored = store.runs("p")
    assert {r.id for r in stored} == {r.id for r in client.runs}
    assert all(r.benchmark_id == client.benchmark_id for r in stored)
    assert store.latency_samples(stored[0].id).size == stored[0].iterations
    assert stored[0].resolved["environment"]["logical_cores"] >= 1
    assert all(r.resolved["label"] == "quick look" for r in stored)  # the verdict reads it


def test_a_worker_that_dies_fails_its_run_and_the_rest_goes_on(tmp_path: Path):
    store = Store(tmp_path / "db.json")
    client = BenchmarkClient(request([1, 2, 4], time_s=30), store)
    killed = False
    finished = []
    for event in client.events():
        if isinstance(event, protocol.Progress) and event.index == 0 and not killed:
            assert client._process is not None
            os.kill(client._process.pid, signal.SIGKILL)  # as an engine crash would
            killed = True
        if isinstance(event, protocol.Progress) and event.index == 1:
            client.cancel()  # a fresh worker measured run 2; no need to wait for it
        if isinstance(event, protocol.RunFinished):
            finished.append(event.run)
    assert finished[0].status == "failed" and "SIGKILL" in (finished[0].error or "")
    assert finished[1].status == "cancelled" and finished[1].iterations > 0
    assert len(finished) == 2 and len(store.runs("p")) == 2


def test_cancel_from_another_thread_keeps_the_finished_runs(tmp_path: Path):
    store = Store(tmp_path / "db.json")
    client = BenchmarkClient(request([1, 2], time_s=30), store)
    finished = []
    for event in client.events():
        if isinstance(event, protocol.Progress) and event.index == 0:
            threading.Timer(0.1, client.cancel).start()
        if isinstance(event, protocol.RunFinished):
            finished.append(event.run)
        last = event
    assert isinstance(last, protocol.BenchmarkDone) and last.cancelled
    assert [r.status for r in finished] == ["cancelled"]
    assert finished[0].iterations > 0 and finished[0].latency_ms is not None
    assert [r.status for r in store.runs("p")] == ["cancelled"]


def test_unknown_engine_in_the_worker_is_fatal_not_a_crash():
    client = BenchmarkClient(request([1], engine="tensorrt"))
    events = list(client.events())
    assert isinstance(events[-1], protocol.Fatal) and "tensorrt" in events[-1].error


class _CrashingClient(BenchmarkClient):
    """A worker that says what went wrong on stderr (a lot, then the reason) and aborts."""

    worker_command = (
        sys.executable,
        "-c",
        "import os, sys; sys.stdin.readline(); sys.stderr.write('noise\\n' * 5000);"
        "sys.stderr.write('engine: fatal abort in kernel\\n'); sys.stderr.flush(); os.abort()",
    )


def test_a_dead_workers_last_stderr_line_is_its_error_every_time():
    # the stderr reader used to be raced: the run's error sometimes said "no message"
    for _ in range(10):
        client = _CrashingClient(request([1]))
        finished = [e for e in client.events() if isinstance(e, protocol.RunFinished)]
        assert finished[0].run.status == "failed"
        assert "SIGABRT" in (finished[0].run.error or "")
        assert "fatal abort in kernel" in (finished[0].run.error or "")


def test_a_cancel_before_the_worker_starts_records_the_first_run_as_cancelled(tmp_path: Path):
    store = Store(tmp_path / "db.json")
    client = BenchmarkClient(request([1, 2], time_s=30), store)
    client.cancel()
    events = list(client.events())
    finished = [e.run for e in events if isinstance(e, protocol.RunFinished)]
    assert [r.status for r in finished] == ["cancelled"]
    assert isinstance(events[-1], protocol.BenchmarkDone) and events[-1].cancelled
    assert [r.status for r in store.runs("p")] == ["cancelled"]


def test_a_consumer_that_stops_reading_leaves_no_worker_behind():
    client = BenchmarkClient(request([1], time_s=30))
    events = client.events()
    for event in events:
        if isinstance(event, protocol.Progress):
            break
    process = client._process
    assert process is not None and process.poll() is None
    events.close()  # as a dashboard worker that is cancelled, or an exception in the loop
    assert process.poll() is not None


LOCK_HOLDER = textwrap.dedent(
    """
    import signal, sys, time
    from perftui.bench.client import BenchmarkClient
    from tests.test_bench_client import request

    client = BenchmarkClient(request([1]))
    # as the CLI does: the handler cancels, in the main thread, whatever that thread was doing
    signal.signal(signal.SIGTERM, lambda *_: client.cancel())
    with client._lock:  # as in _spawn, when the signal comes
        print("holding", flush=True)
        while not client.cancelled:
            time.sleep(0.01)  # the handler runs here, in this thread, under the lock
    print("cancelled", flush=True)
    """
)


def test_cancel_from_a_signal_handler_that_interrupted_the_lock_holder():
    # the CLI's SIGTERM/SIGINT handler calls cancel() in the main thread, which may hold the
    # client's lock at that moment: a real signal to a real process must not deadlock it
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    try:
        assert read_line(holder.stdout).strip() == "holding"
        holder.send_signal(signal.SIGTERM)
        assert read_line(holder.stdout, timeout_s=30).strip() == "cancelled"
        assert holder.wait(timeout=30) == 0
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=30)


def test_a_worker_cancelled_before_its_first_run_still_reports_that_run(monkeypatch):
    # SIGTERM after the worker installed its handlers but before the first run started
    from perftui.bench import worker

    class NoEngine:
        def model_inputs(self, model_path: str):
            raise AssertionError("a cancelled run must not read or compile the model")

    def engine_then_cancel(name: str):
        os.kill(os.getpid(), signal.SIGTERM)  # handled by the worker's Cancellation
        return NoEngine()

    monkeypatch.setattr(worker, "get_engine", engine_then_cancel)
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    events: list[protocol.Event] = []
    try:
        worker.run_request(request([1, 2]), 0, events.append)
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    assert [type(e).__name__ for e in events] == ["RunStarted", "RunFinished", "BenchmarkDone"]
    finished = events[1]
    assert isinstance(finished, protocol.RunFinished) and finished.run.status == "cancelled"
    assert isinstance(events[-1], protocol.BenchmarkDone) and events[-1].cancelled
