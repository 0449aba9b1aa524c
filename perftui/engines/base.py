"""The interface every engine implements. No engine library is imported here."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np

from perftui.domain.capabilities import Capabilities
from perftui.domain.errors import InputError
from perftui.domain.records import AUTO, LayerProfile, RunConfig, TensorSpec
from perftui.domain.resolved import Resolved
from perftui.engines.capabilities import CAPABILITIES

PROFILE_WARMUP = 2
"""Unprofiled requests before a per-layer profile (the first ones allocate and are slow)."""

NOT_TAKEN: dict[str, tuple[tuple[object, ...], str]] = {
    "streams": ((AUTO, 1), "{title} has no streams; use --streams auto"),
    "precision": (
        (None, "f32"),
        "{title} runs the model's own precision; --precision {value} needs the {takers}"
        " engine (or a model converted to that precision)",
    ),
}
"""Settings an engine may not take (`Capabilities.takes`): the values that ask nothing of it,
and the line that refuses any other. The hint is left out: an engine without one runs alike
whatever it says."""


def check_not_taken(capabilities: Capabilities, config: RunConfig) -> None:
    """InputError for a setting the engine does not take, set to more than NOT_TAKEN allows."""
    for setting, (neutral, message) in NOT_TAKEN.items():
        value = getattr(config, setting)
        if not capabilities.takes(setting) and value not in neutral:
            takers = " or ".join(c.engine for c in CAPABILITIES.values() if c.takes(setting))
            raise InputError(message.format(title=capabilities.title, value=value, takers=takers))


class Recorder(ABC):
    """Receives completed requests from an engine's timed loop (see perftui.bench.recorder)."""

    @abstractmethod
    def begin(self) -> None:
        """Mark the first submit of the timed window."""

    @abstractmethod
    def record(self, latency_s: float) -> None:
        """One request completed now, after `latency_s` seconds. Thread-safe."""

    @abstractmethod
    def done(self) -> bool:
        """True once the stop condition is met or the run was cancelled."""


@dataclass
class Prepared(ABC):
    """A model read and compiled for one RunConfig, with its input tensors bound."""

    inputs: list[TensorSpec]
    read_ms: float
    compile_ms: float
    resolved: Resolved = field(default_factory=lambda: Resolved())

    @abstractmethod
    def bind(
        self, feeds: Mapping[str, np.ndarray], others: Sequence[Mapping[str, np.ndarray]] = ()
    ) -> None:
        """Bind the input data used by every later request (outside any timed loop). With
        `others`, the samples [feeds, *others] are cycled over the requests in flight: request
        i of an async run uses sample i mod n; sync requests and profiles use `feeds`."""

    def check_feeds(self, feeds: Mapping[str, np.ndarray]) -> None:
        """InputError naming the inputs that `feeds` has no data for."""
        missing = [spec.name for spec in self.inputs if spec.name not in feeds]
        if missing:
            raise InputError(f"no input data for {', '.join(repr(m) for m in missing)}")

    @abstractmethod
    def infer_once(self) -> float:
        """One synchronous request on the bound inputs; returns its latency in seconds."""

    def run_sync(self, recorder: Recorder) -> None:
        """Back-to-back synchronous requests until the recorder says done."""
        recorder.begin()
        while not recorder.done():
            recorder.record(self.infer_once())

    @abstractmethod
    def run_async(self, recorder: Recorder) -> None:
        """Keep `resolved['requests']` requests in flight until the recorder says done,
        then wait for the ones in flight (they are recorded too)."""

    @abstractmethod
    def slots(self, n: int) -> list[Callable[[], object]]:
        """`n` independent request slots on the bound inputs (slot i uses sample i mod the
        samples bound): a call runs one request synchronously, with the GIL released, and
        returns once its result is ready; the n slots may run at once from n threads (an
        open-loop run, perftui.bench.open_loop)."""

    @abstractmethod
    def layer_profile(self, iterations: int) -> list[LayerProfile]:
        """Per-layer times averaged over `iterations` synchronous requests.

        Only valid when prepared with profile=True (a separate, slower compilation)."""


@dataclass(frozen=True)
class LoadedModel:
    """A model compiled on one engine and device for its outputs (the INT8 accuracy check):
    its output names, a run function and the inference precision the engine compiled it for
    ('model' where the engine runs the model's own)."""

    outputs: tuple[str, ...]
    run: Callable[[Mapping[str, np.ndarray]], list[np.ndarray]]
    precision: str


class Engine(ABC):
    capabilities: ClassVar[Capabilities]
    """What it takes, reads and quantizes with (perftui.engines.capabilities)."""

    @property
    def name(self) -> str:
        return self.capabilities.engine

    @abstractmethod
    def version(self) -> str: ...

    @abstractmethod
    def devices(self) -> list[str]:
        """Devices as the engine reports them on this machine (e.g. ["CPU"])."""

    def check_config(self, config: RunConfig) -> None:
        """InputError for a setting this engine cannot honour (checked before any run): by
        default, a setting it does not take set to more than NOT_TAKEN's neutral values."""
        check_not_taken(self.capabilities, config)

    def check_device(self, device: str) -> None:
        """InputError unless `device` names a device this engine can run on here; engines
        override it where more than the names in `devices()` work (OpenVINO's AUTO, ...)."""
        available = self.devices()
        if device not in available:
            raise InputError(
                f"device {device!r} is not available to {self.name} on this machine; "
                f"available: {', '.join(available) or 'none'}"
            )

    @abstractmethod
    def model_inputs(self, model_path: str) -> list[TensorSpec]:
        """Inputs as declared by the model file (dynamic dims as names or -1)."""

    def check_shapes(  # noqa: B027 - a hook: engines that reshape accept any shape
        self, declared: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]], batch: int
    ) -> None:
        """InputError for static shapes this engine cannot give the model (checked before any
        run); engines that reshape any dimension (OpenVINO) accept them all."""

    @abstractmethod
    def prepare(
        self,
        model_path: str,
        device: str,
        config: RunConfig,
        shapes: Mapping[str, tuple[int, ...]],
        *,
        profile: bool = False,
    ) -> Prepared:
        """Read and compile the model with `config` mapped to the engine's own knobs.

        `shapes` are the static input shapes already resolved by perftui.bench.inputs
        (batch applied); raise InputError for a device the engine does not have."""

    @abstractmethod
    def load_outputs(
        self, model_path: str, device: str, shapes: Mapping[str, tuple[int, ...]], exact: bool
    ) -> LoadedModel:
        """The model compiled on `device` for the static `shapes`, returning its outputs: in
        f32 when `exact`, else at the engine's default precision, as a benchmark runs it."""


def elapsed_ms(start: float) -> float:
    """Milliseconds since a time.perf_counter() reading."""
    return (time.perf_counter() - start) * 1000.0


def model_file(model_path: str) -> Path:
    """The model's path; InputError unless it is an existing file."""
    path = Path(model_path)
    if not path.is_file():
        raise InputError(f"model file not found: {model_path}")
    return path


def request_count(config: RunConfig, auto: Callable[[], int]) -> int:
    """Requests in flight: one in sync mode, else `config.requests`, where "auto" asks the
    engine (`auto()`); InputError below one."""
    if config.api == "sync":
        requests = 1
    elif config.requests == AUTO:
        requests = auto()
    else:
        requests = int(config.requests)
    if requests < 1:
        raise InputError(f"requests must be at least 1, not {requests}")
    return requests


def check_profile_request(profiled: bool, iterations: int) -> None:
    """The preconditions of `Prepared.layer_profile`: prepared with profile=True, and at
    least one iteration."""
    if not profiled:
        raise RuntimeError("layer_profile needs a model prepared with profile=True")
    if iterations < 1:
        raise ValueError("iterations must be at least 1")
