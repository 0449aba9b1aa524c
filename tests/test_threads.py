"""perftui.threads: the one way requests run on threads of their own."""

from __future__ import annotations

import threading

import pytest

from perftui.threads import Parallel


def test_every_item_runs_on_a_thread_of_its_own_named_after_the_work() -> None:
    seen: dict[int, str] = {}
    lock = threading.Lock()

    def work(item: int) -> None:
        with lock:
            seen[item] = threading.current_thread().name

    Parallel(work, "perftui-test").run([10, 20, 30])
    assert sorted(seen) == [10, 20, 30]
    assert sorted(seen.values()) == ["perftui-test-0", "perftui-test-1", "perftui-test-2"]


def test_a_failure_is_raised_in_the_caller_and_tells_the_others_to_stop() -> None:
    stopped = threading.Event()

    def work(item: int) -> None:
        if item == 0:
            raise RuntimeError("request 0 failed")
        while not parallel.failed:  # a request loop: stops once another failed
            threading.Event().wait(0.001)
        stopped.set()

    parallel = Parallel(work, "perftui-test")
    with pytest.raises(RuntimeError, match="request 0 failed"):
        parallel.run([0, 1])
    assert stopped.is_set()


def test_tick_runs_in_the_caller_while_the_threads_work() -> None:
    release = threading.Event()
    ticks: list[str] = []

    def tick() -> None:
        ticks.append(threading.current_thread().name)
        if len(ticks) == 3:
            release.set()

    Parallel(lambda _item: release.wait(10) or None, "perftui-test").run([0], tick, 0.001)
    assert ticks[:3] == [threading.current_thread().name] * 3
