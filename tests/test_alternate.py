"""The order in which `compare --measure` runs its rounds, and how a cancel or a fatal error
ends it. Scripted clients stand in for the workers: this is about the order of the rounds
(the real engine's run is tested in test_cli_compare_measure.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from perftui.bench import protocol
from perftui.bench.alternate import Alternation
from perftui.domain.compare import Side
from perftui.domain.errors import InputError
from perftui.domain.limits import pair_host
from perftui.domain.records import BenchmarkRequest, Project, RunConfig, RunResult


class ScriptedClient:
    """A client whose rounds finish at once, or end in `fatal`; it logs what it ran."""

    def __init__(self, name: str, rounds: int, log: list[str], fatal_round: int = -1) -> None:
        project = Project(name=name, model="m.onnx", engine="onnxruntime")
        self.request = BenchmarkRequest(project=project, configs=(RunConfig(),), repeat=rounds)
        self.total = rounds
        self.cancelled = False
        self.closed = False
        self.log = log
        self.name = name
        self.fatal_round = fatal_round

    def cancel(self) -> None:
        self.cancelled = True

    def kill(self) -> None:
        self.cancelled = True

    def events(self) -> Iterator[Any]:
        try:
            for index in range(self.total):
                if index == self.fatal_round:
                    yield protocol.Fatal(f"{self.name} broke")
                    return
                self.log.append(f"{self.name}{index + 1}")
                yield protocol.RunStarted(index, self.total, RunConfig())
                yield protocol.RunFinished(index, RunResult(config=RunConfig()), None)
            yield protocol.BenchmarkDone(self.cancelled)
        finally:
            self.closed = True


def test_rounds_alternate_which_side_goes_first():
    log: list[str] = []
    a, b = ScriptedClient("A", 3, log), ScriptedClient("B", 3, log)
    events = list(Alternation(a, b).events())  # type: ignore[arg-type]
    assert log == ["A1", "B1", "B2", "A2", "A3", "B3"]
    finished = [(side, e.index) for side, e in events if isinstance(e, protocol.RunFinished)]
    A, B = Side.A, Side.B
    assert finished == [(A, 0), (B, 1), (B, 2), (A, 3), (A, 4), (B, 5)]
    assert all(e.total == 6 for _, e in events if isinstance(e, protocol.RunStarted))
    assert a.closed and b.closed


def test_a_cancel_ends_the_measurement_after_the_run_in_progress():
    log: list[str] = []
    a, b = ScriptedClient("A", 3, log), ScriptedClient("B", 3, log)
    alternation = Alternation(a, b)  # type: ignore[arg-type]
    for _side, event in alternation.events():
        if isinstance(event, protocol.RunFinished) and event.index == 2:
            alternation.cancel()
    assert log == ["A1", "B1", "B2"] and a.cancelled and b.cancelled
    assert a.closed and b.closed


def test_a_fatal_error_ends_the_measurement():
    log: list[str] = []
    a, b = ScriptedClient("A", 3, log), ScriptedClient("B", 3, log, fatal_round=1)
    events = list(Alternation(a, b).events())  # type: ignore[arg-type]
    assert log == ["A1", "B1"]
    assert isinstance(events[-1][1], protocol.Fatal) and events[-1][0] is Side.B


def test_a_pair_runs_on_one_machine_or_is_refused():
    def on(name: str, target: str) -> Project:
        return Project(name=name, model="m.onnx", engine="onnxruntime", target=target)

    assert pair_host([on("a", "box"), on("b", "box")], None) == "box"
    assert pair_host([on("a", "local")], None) == "local"
    assert pair_host([], "box") == "box"  # two model files: the --target
    with pytest.raises(InputError, match="a is measured on target 'h1', not on target 'h2': pairs"):
        pair_host([on("a", "h1")], "h2")
    with pytest.raises(InputError, match="b is measured on target 'h2', not on target 'h1'"):
        pair_host([on("a", "h1"), on("b", "h2")], None)
    with pytest.raises(InputError, match="a is measured on this machine, not on target 'h1'"):
        pair_host([on("a", "local")], "h1")
