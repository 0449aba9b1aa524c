"""What a run actually ran with, as its engine and its worker report it (a run's `resolved`,
stored as JSON under that name): one meaning per key on both engines, and older stored
runs' words for "not said" read as None when a run is loaded, not rewritten in its file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict


class Resolved(TypedDict, total=False):
    """What a run ran with, as its engine and its worker report it: a run's `resolved`,
    stored as JSON under that name. Each key has one meaning whatever the engine."""

    streams: int | None
    """Streams the engine ran (ONNX Runtime: 1); None where it does not say."""
    threads: int | None
    """Threads the engine ran; None where it chose them and does not say (ONNX Runtime's
    auto, 0 in the configuration)."""
    requests: int
    """Requests kept in flight (sync: 1)."""
    hint: str | None
    """OpenVINO's performance hint as compiled; None for an engine without hints."""
    precision: str | None
    """The inference precision the engine ran ('f32', 'bf16', 'f16'); 'model' where each op
    runs in the model's own types (ONNX Runtime); None where the engine does not say."""
    shapes: dict[str, list[int]]
    """Each input's static shape as compiled."""
    device: str
    execution_devices: list[str]
    """The devices OpenVINO ran on (AUTO and MULTI name theirs)."""
    providers: list[str]
    """ONNX Runtime's execution providers."""
    inputs: dict[str, Any]
    """Per input: shape, dtype, values and why (perftui.bench.inputs)."""
    data: dict[str, Any]
    """The user's input data: path, sha256, samples (perftui.bench.data)."""
    profile_error: str
    """Why the per-layer profile could not be read."""
    environment: dict[str, Any]
    """The machine and software it ran on (perftui.bench.environment)."""
    label: str
    """What the benchmark is for (a quick look, a gate's or a tune's label)."""
    benchmark_app: dict[str, Any]
    """An imported benchmark_app report: its source, options and what it did not report."""


OLD_RESOLVED = {"threads": ("auto",), "hint": ("n/a (onnxruntime)",)}
"""Values older runs stored for "not said", read as None: ONNX Runtime's threads and hint."""


def read_resolved(data: Mapping[str, Any] | None) -> Resolved:
    """A stored run's `resolved`, with older runs' words for "not said" read as None."""
    resolved: dict[str, Any] = dict(data or {})
    for key, words in OLD_RESOLVED.items():
        if resolved.get(key) in words:
            resolved[key] = None
    return Resolved(**resolved)  # type: ignore[typeddict-item]  # stored keys: not checked here


def unreported(data: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The statistics a stored run's source did not report: benchmark_app imports made
    before None existed stored them as 0 and named them under "benchmark_app"."""
    source = (data or {}).get("benchmark_app")
    return tuple(source.get("unreported") or ()) if isinstance(source, dict) else ()
