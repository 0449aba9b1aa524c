"""The JSON-lines events a child sends its parent, as typed records, and the one
way to write them (`event_stream`) and to read them (`read`).

One event per line on the child's event pipe (its stdout; anything a library prints goes
to stderr). A benchmark worker:
  {"event": "started", "index", "total", "config": {...}}
  {"event": "phase", "index", "phase": compile|first_inference|warmup|timed|profile}
  {"event": "tick", "index", "elapsed_s", "iterations", "fraction", "throughput_fps", "latency_ms"}
  {"event": "finished", "index", "run": {RunResult}, "samples": base64 float32 ms | null}
  {"event": "done", "cancelled": bool}
A capacity worker (perftui.bench.capacity_worker) sends a benchmark's events (the closed-loop
run, then each search run as it is judged, its config's rate set) and, before "done":
  {"event": "capacity", "outcome": {Capacity.to_dict() without its curve}}
The optimize worker (perftui.optimize.worker):
  {"event": "step", "phase": str, "done": int, "total": int}   (total 0: a phase without steps)
  {"event": "warning", "text": str}
  {"event": "handback", "result": {OptimizeResult.handback}}
Either:
  {"event": "fatal", "error": str}   (the request itself could not be run)

numpy is imported only to encode or decode samples: the optimize runner reads events and
loads no numpy.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from perftui.domain.records import RunConfig, RunResult

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class RunStarted:
    index: int
    total: int
    config: RunConfig


@dataclass(frozen=True)
class PhaseChanged:
    index: int
    phase: str


@dataclass(frozen=True)
class Progress:
    index: int
    elapsed_s: float
    iterations: int
    fraction: float
    throughput_fps: float
    latency_ms: float


@dataclass(frozen=True)
class RunFinished:
    index: int
    run: RunResult
    samples_ms: np.ndarray | None


@dataclass(frozen=True)
class BenchmarkDone:
    cancelled: bool


@dataclass(frozen=True)
class SearchEnded:
    """How a capacity search ended (perftui.domain.traffic.capacity.Capacity.to_dict, its
    curve left out: the search's runs came as RunFinished events)."""

    outcome: dict[str, Any]


@dataclass(frozen=True)
class Fatal:
    error: str


@dataclass(frozen=True)
class Step:
    """A child's progress: `phase` with `done` of `total` steps (total 0: no steps)."""

    phase: str
    done: int = 0
    total: int = 0

    @property
    def text(self) -> str:
        return f"{self.phase} {self.done}/{self.total}" if self.total else self.phase

    @property
    def fraction(self) -> float | None:
        """Share of the phase done, or None for a phase without steps."""
        return min(1.0, self.done / self.total) if self.total else None


@dataclass(frozen=True)
class OptimizeWarning:
    """Something the user should know about the result (e.g. random calibration data)."""

    text: str


@dataclass(frozen=True)
class Handback:
    """What the optimize child made, for its parent to store."""

    result: dict[str, Any]


Event = (
    RunStarted
    | PhaseChanged
    | Progress
    | RunFinished
    | BenchmarkDone
    | SearchEnded
    | Step
    | OptimizeWarning
    | Handback
    | Fatal
)


class ProtocolError(ValueError):
    """A line on the event pipe that is not an event."""


def samples_to_wire(samples_ms: np.ndarray) -> str:
    """Latency samples for the pipe: float32 little-endian -> base64, uncompressed (the
    stored form, perftui.store.codec, is a compressed, self-describing document)."""
    import numpy as np

    return base64.b64encode(np.asarray(samples_ms, dtype="<f4").tobytes()).decode("ascii")


def samples_from_wire(text: str) -> np.ndarray:
    """The samples `samples_to_wire` encoded, as float64 ms."""
    import numpy as np

    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float64)


def encode(event: Event) -> str:
    """One JSON line (without the newline)."""
    data: dict[str, Any]
    if isinstance(event, RunStarted):
        data = {
            "event": "started",
            "index": event.index,
            "total": event.total,
            "config": event.config.to_dict(),
        }
    elif isinstance(event, PhaseChanged):
        data = {"event": "phase", "index": event.index, "phase": event.phase}
    elif isinstance(event, Progress):
        data = {"event": "tick", **event.__dict__}
    elif isinstance(event, RunFinished):
        samples = None if event.samples_ms is None else samples_to_wire(event.samples_ms)
        data = {
            "event": "finished",
            "index": event.index,
            "run": event.run.to_dict(),
            "samples": samples,
        }
    elif isinstance(event, BenchmarkDone):
        data = {"event": "done", "cancelled": event.cancelled}
    elif isinstance(event, SearchEnded):
        data = {"event": "capacity", "outcome": event.outcome}
    elif isinstance(event, Step):
        data = {"event": "step", "phase": event.phase, "done": event.done, "total": event.total}
    elif isinstance(event, OptimizeWarning):
        data = {"event": "warning", "text": event.text}
    elif isinstance(event, Handback):
        data = {"event": "handback", "result": event.result}
    else:
        data = {"event": "fatal", "error": event.error}
    return json.dumps(data, separators=(",", ":"))


def decode(line: str) -> Event:
    data = json.loads(line)
    kind = data.pop("event")
    if kind == "started":
        return RunStarted(data["index"], data["total"], RunConfig.from_dict(data["config"]))
    if kind == "phase":
        return PhaseChanged(data["index"], data["phase"])
    if kind == "tick":
        return Progress(**data)
    if kind == "finished":
        samples = data.get("samples")
        return RunFinished(
            data["index"],
            RunResult.from_dict(data["run"]),
            None if samples is None else samples_from_wire(samples),
        )
    if kind == "done":
        return BenchmarkDone(bool(data["cancelled"]))
    if kind == "capacity":
        return SearchEnded(dict(data["outcome"]))
    if kind == "step":
        return Step(str(data["phase"]), int(data["done"]), int(data["total"]))
    if kind == "warning":
        return OptimizeWarning(str(data["text"]))
    if kind == "handback":
        return Handback(dict(data["result"]))
    if kind == "fatal":
        return Fatal(str(data["error"]))
    raise ValueError(f"unknown worker event {kind!r}")


def read(lines: Iterable[str]) -> Iterator[Event]:
    """The events of a child's event pipe, as they come; ProtocolError at a line that is
    not one (blank lines are skipped)."""
    for line in lines:
        if not line.strip():
            continue
        try:
            event = decode(line)
        except (AttributeError, KeyError, TypeError, ValueError):
            shown = line.strip()
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            raise ProtocolError(f"a line that is not an event: {shown!r}") from None
        yield event


def event_stream() -> TextIO:
    """In a child: keep the real stdout for events and point fd 1 at stderr for what the
    libraries print (an engine's logs, a quantizer's progress bars)."""
    events_fd = os.dup(sys.stdout.fileno())
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return os.fdopen(events_fd, "w", buffering=1, encoding="utf-8")


def event_writer() -> Callable[[Event], None]:
    """In a child: `event_stream` and the one way to write an event on it, a line each
    (the stream is line-buffered: each event reaches the parent as it is written)."""
    events = event_stream()

    def emit(event: Event) -> None:
        events.write(encode(event) + "\n")

    return emit
