"""A worker that stops answering (SIGSTOP): the watchdog kills it and fails its run, and a
cancel still ends the benchmark, with the real worker process and a real engine."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from perftui.bench import protocol
from perftui.bench.client import BenchmarkClient
from perftui.store.database import Store
from tests.test_bench_client import request

pytestmark = pytest.mark.engine


def stop_worker_once_measuring(client: BenchmarkClient):
    """The events of the benchmark, the worker stopped (SIGSTOP) at its first progress."""
    stopped = False
    for event in client.events():
        if isinstance(event, protocol.Progress) and not stopped:
            assert client._process is not None
            os.kill(client._process.pid, signal.SIGSTOP)
            stopped = True
            yield event, True
            continue
        yield event, False


def test_a_silent_worker_is_killed_and_its_run_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERFTUI_WATCHDOG_S", "2")
    store = Store(tmp_path / "db.json")
    client = BenchmarkClient(request([1], time_s=60), store)
    assert client.watchdog_s == 2
    events = [event for event, _ in stop_worker_once_measuring(client)]
    (finished,) = [e for e in events if isinstance(e, protocol.RunFinished)]
    assert finished.run.status == "failed"
    assert "sent nothing for 2 s" in (finished.run.error or "")
    assert isinstance(events[-1], protocol.BenchmarkDone) and not events[-1].cancelled
    assert [r.status for r in store.runs("p")] == ["failed"]


def test_cancel_answers_even_when_the_worker_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERFTUI_WATCHDOG_S", "600")  # the cancel, not the watchdog, ends it
    client = BenchmarkClient(request([1, 2], time_s=60))
    events = []
    for event, stopped in stop_worker_once_measuring(client):
        events.append(event)
        if stopped:
            client.cancel()  # SIGCONT, SIGTERM, then SIGKILL after the grace period
    statuses = [e.run.status for e in events if isinstance(e, protocol.RunFinished)]
    assert statuses == ["cancelled"]
    assert isinstance(events[-1], protocol.BenchmarkDone) and events[-1].cancelled


def test_the_default_limit_leaves_room_for_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PERFTUI_WATCHDOG_S", raising=False)
    assert BenchmarkClient(request([1], time_s=600)).watchdog_s == 1800
    assert BenchmarkClient(request([1], time_s=1)).watchdog_s == 120
