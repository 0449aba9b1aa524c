"""The JSON-lines events the worker streams to its parent, as typed records.

One event per line on the worker's event pipe:
  {"event": "started", "index", "total", "config": {...}}
  {"event": "phase", "index", "phase": compile|first_inference|warmup|timed|profile}
  {"event": "tick", "index", "elapsed_s", "iterations", "fraction", "throughput_fps", "latency_ms"}
  {"event": "finished", "index", "run": {RunResult}, "samples": base64 float32 ms | null}
  {"event": "done", "cancelled": bool}
  {"event": "fatal", "error": str}   (the request itself could not be run)
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from perftui.domain.records import RunConfig, RunResult


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
class Fatal:
    error: str


Event = RunStarted | PhaseChanged | Progress | RunFinished | BenchmarkDone | Fatal


def samples_to_wire(samples_ms: np.ndarray) -> str:
    """Latency samples for the pipe: float32 little-endian -> base64, uncompressed (the
    stored form, perftui.store.codec, is a compressed, self-describing document)."""
    return base64.b64encode(np.asarray(samples_ms, dtype="<f4").tobytes()).decode("ascii")


def samples_from_wire(text: str) -> np.ndarray:
    """The samples `samples_to_wire` encoded, as float64 ms."""
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
    if kind == "fatal":
        return Fatal(str(data["error"]))
    raise ValueError(f"unknown worker event {kind!r}")
