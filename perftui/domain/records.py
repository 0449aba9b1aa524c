"""Plain records shared by the engines, the runner, the store, the CLI and the dashboard.

Every record converts to and from the JSON shapes of the headless CLI contract
(`to_dict` / `from_dict`), which is also how they travel over the worker pipe and
how they are stored.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from perftui.domain.measurement.load import MachineLoad
from perftui.domain.measurement.memory import RunMemory
from perftui.domain.model.shapes import DimPoint, ShapeBindings, as_bindings
from perftui.domain.resolved import Resolved, read_resolved, unreported

if TYPE_CHECKING:
    from perftui.domain.settings import LabelPart
    from perftui.domain.traffic.figures import TrafficFigures
    from perftui.domain.traffic.search import CapacitySearch

HINTS = ("latency", "throughput", "cumulative_throughput", "none")
APIS = ("sync", "async")
PRECISIONS = ("f32", "bf16", "f16")
Method = Literal["static", "dynamic"]
METHODS: tuple[Method, ...] = ("static", "dynamic")
"""How `optimize` quantizes: calibrated activations (static) or at run time (dynamic)."""
RUN_STATUSES = ("ok", "failed", "cancelled")
EXECUTED = "executed"
"""The status of a profiled layer that ran (others: "not_run", "optimized_out")."""

Auto = Literal["auto"]
AUTO: Auto = "auto"


@dataclass(frozen=True)
class TensorSpec:
    """A model input or output: dims are ints, or a name (str) where the dimension is dynamic."""

    name: str
    dtype: str  # numpy dtype name: "float32", "int64", "uint8", ...
    shape: tuple[int | str, ...]

    @property
    def dynamic_dims(self) -> tuple[int, ...]:
        """Indices of the dimensions that are not fixed."""
        return tuple(i for i, d in enumerate(self.shape) if not isinstance(d, int) or d < 0)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype, "shape": list(self.shape)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TensorSpec:
        return cls(name=data["name"], dtype=data["dtype"], shape=tuple(data["shape"]))


@dataclass(frozen=True)
class RunConfig:
    """One point of a benchmark matrix: one field per setting of perftui.domain.settings.

    `threads == 0` means the engine's own default; `streams`/`requests` may be "auto"
    (OpenVINO derives them from the hint; ONNX Runtime has one session, no streams, and in
    async mode two concurrent requests, perftui.engines.ort_engine.ASYNC_AUTO_REQUESTS).
    Sync mode always has one request in flight, whatever `requests` says.
    """

    batch: int = 1
    threads: int = 0
    streams: int | Auto = AUTO
    requests: int | Auto = AUTO
    hint: str = "latency"
    api: str = "sync"
    precision: str | None = None
    dims: DimPoint = ()
    """Named dimensions bound for this run (perftui.domain.model.shapes), e.g. (("seq", 128),)."""
    pinning: str = AUTO
    """OpenVINO's CPU pinning of inference threads: "on", "off" or "auto" (the engine's own)."""
    rate: float | None = None
    """Open loop: requests (batches) offered per second, issued at their scheduled times
    whatever the engine is doing (perftui.domain.traffic); None: closed loop."""
    arrival: str = "poisson"
    """How an open loop's requests arrive (perftui.domain.traffic.arrivals.ARRIVALS)."""

    def to_dict(self) -> dict[str, Any]:
        # not asdict: it deep-copies field by field, for every run an import stores
        from perftui.domain.settings import stored  # the registry reads RunConfig

        return stored(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        fields["dims"] = tuple((str(k), int(v)) for k, v in dict(fields.get("dims") or {}).items())
        if fields.get("rate") is not None:
            fields["rate"] = float(fields["rate"])
        return cls(**fields)

    def parts(self) -> list[LabelPart]:
        """The parts every label of this configuration picks from (domain.settings)."""
        from perftui.domain.settings import config_parts

        return config_parts(self)

    def label(self) -> str:
        """The whole label, e.g. 'b4 t2 s:auto r:auto async' (the hint only where it is not
        the api's own; 'p:f32' when a precision was asked for; the dims, 'seq=128')."""
        return " ".join(text for _, text, quiet in self.parts() if not quiet)


@dataclass(frozen=True)
class Budget:
    """Stop condition of the timed window: both minimums must be reached."""

    time_s: float = 10.0
    iterations: int = 100
    warmup: int = 10
    profile_iterations: int = 50

    def window_at(self, rate: float) -> float:
        """The timed window of a run at `rate` (open loop): requests are offered for the
        time, or for as long as the iterations take to arrive if that is longer (both
        minimums, counted in arrivals, so a saturated engine cannot stretch it)."""
        return max(self.time_s, self.iterations / rate)


@dataclass(frozen=True)
class LatencyStats:
    """Per-request latency summary in milliseconds (percentiles by nearest rank).

    A statistic the source did not report (benchmark_app reports no p90, p99 or spread) is
    None, never 0: a missing p90 must not pass a latency budget or show as 0.00 ms."""

    min: float
    mean: float
    median: float
    p90: float | None
    p99: float | None
    max: float
    stdev: float | None
    cv: float | None

    def to_dict(self) -> dict[str, float | None]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: dict[str, Any], unreported: Collection[str] = ()) -> LatencyStats:
        """`unreported` names statistics to read as None whatever the data holds."""

        def value(name: str) -> float | None:
            raw = None if name in unreported else data.get(name)
            if raw is None:
                return None if name in OPTIONAL_STATS else 0.0
            return float(raw)

        values: dict[str, Any] = {name: value(name) for name in cls.__dataclass_fields__}
        return cls(**values)


OPTIONAL_STATS = ("p90", "p99", "stdev", "cv")
"""The LatencyStats fields a source may leave unreported (None)."""


@dataclass(frozen=True)
class LayerProfile:
    """One executed (or fused/skipped) layer of a per-layer profile, time averaged per request."""

    name: str
    type: str
    exec_type: str
    precision: str
    status: str  # "executed" | "not_run" | "optimized_out"
    time_ms: float
    original_names: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        # by hand: asdict's deep copy took most of `show --json` for profiled projects
        return {
            "name": self.name,
            "type": self.type,
            "exec_type": self.exec_type,
            "precision": self.precision,
            "status": self.status,
            "time_ms": self.time_ms,
            "original_names": list(self.original_names),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LayerProfile:
        get = data.get  # positional: a profile has hundreds of rows, an import many profiles
        return cls(
            str(data["name"]),
            str(data["type"]),
            str(get("exec_type", "")),
            str(get("precision", "")),
            str(get("status", "executed")),
            float(get("time_ms", 0.0)),
            tuple(get("original_names") or ()),
        )


@dataclass(frozen=True)
class RunResult:
    """One measured point of the matrix (an "inference experiment")."""

    config: RunConfig
    status: str = "ok"
    error: str | None = None
    iterations: int = 0
    duration_s: float = 0.0
    throughput_fps: float = 0.0
    first_inference_ms: float = 0.0
    compile_ms: float = 0.0
    read_ms: float = 0.0
    latency_ms: LatencyStats | None = None
    layers: tuple[LayerProfile, ...] | None = None
    resolved: Resolved = field(default_factory=lambda: Resolved())
    """What the engine actually used (streams, requests, threads, precision, shapes, ...)."""
    repetition: int = 0
    """Which repetition of its configuration in its benchmark this run is (0 = the first;
    stored and sent as "repeat")."""
    window_fps: tuple[float, ...] = ()
    """Throughput of consecutive windows of the timed window (domain.measurement.uncertainty)."""
    load: MachineLoad | None = None
    """CPU time of the whole machine during the timed window (perftui.domain.measurement.load)."""
    memory: RunMemory | None = None
    """Resident memory around the run's phases (domain.measurement.memory); None: not measured."""
    traffic: TrafficFigures | None = None
    """An open-loop run's figures (config.rate set): offered and achieved rate, latency from
    arrival, queue and service apart, saturation; None for a closed-loop run."""
    id: str = ""
    project: str = ""
    benchmark_id: str = ""
    started_at: str = ""

    def to_dict(self, *, with_layers: bool = True) -> dict[str, Any]:
        """As JSON types; the layers None unless `with_layers`."""
        found: dict[str, Any] = {
            "id": self.id,
            "project": self.project,
            "benchmark_id": self.benchmark_id,
            "started_at": self.started_at,
            "config": self.config.to_dict(),
            "status": self.status,
            "error": self.error,
            "iterations": self.iterations,
            "duration_s": self.duration_s,
            "throughput_fps": self.throughput_fps,
            "first_inference_ms": self.first_inference_ms,
            "compile_ms": self.compile_ms,
            "read_ms": self.read_ms,
            "latency_ms": self.latency_ms.to_dict() if self.latency_ms else None,
            "layers": None,
            "resolved": dict(self.resolved),
            "repeat": self.repetition,
            "window_fps": list(self.window_fps),
            "load": self.load.to_dict() if self.load else None,
            "memory": self.memory.to_dict() if self.memory else None,
        }
        if self.traffic is not None:  # a closed-loop run's document stays as it was
            found["traffic"] = self.traffic.to_dict()
        if with_layers and self.layers is not None:
            found["layers"] = [layer.to_dict() for layer in self.layers]
        return found

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunResult:
        from perftui.domain.traffic.figures import TrafficFigures  # its imports lead back here

        latency = data.get("latency_ms")
        resolved = data.get("resolved")
        layers = data.get("layers")
        return cls(
            config=RunConfig.from_dict(data["config"]),
            status=str(data.get("status", "ok")),
            error=data.get("error"),
            iterations=int(data.get("iterations", 0)),
            duration_s=float(data.get("duration_s", 0.0)),
            throughput_fps=float(data.get("throughput_fps", 0.0)),
            first_inference_ms=float(data.get("first_inference_ms", 0.0)),
            compile_ms=float(data.get("compile_ms", 0.0)),
            read_ms=float(data.get("read_ms", 0.0)),
            latency_ms=LatencyStats.from_dict(latency, unreported(resolved)) if latency else None,
            layers=tuple(LayerProfile.from_dict(x) for x in layers) if layers is not None else None,
            resolved=read_resolved(resolved),
            repetition=int(data.get("repeat", 0)),
            window_fps=tuple(float(x) for x in data.get("window_fps") or ()),
            load=MachineLoad.from_dict(data["load"]) if data.get("load") else None,
            memory=RunMemory.from_dict(data.get("memory")),
            traffic=TrafficFigures.from_dict(data["traffic"]) if data.get("traffic") else None,
            id=str(data.get("id", "")),
            project=str(data.get("project", "")),
            benchmark_id=str(data.get("benchmark_id", "")),
            started_at=str(data.get("started_at", "")),
        )


LOCAL = "local"
"""The target that is this machine."""


@dataclass(frozen=True)
class Project:
    """A model + engine + device under a unique name."""

    name: str
    model: str
    engine: str
    device: str = "CPU"
    created_at: str = ""
    source_project: str | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    target: str = LOCAL
    """Where it is measured: this machine or a named SSH target (perftui.targets)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Project:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


@dataclass(frozen=True)
class BenchmarkRequest:
    """What a person asked to measure: one project over a matrix, with a budget."""

    project: Project
    configs: tuple[RunConfig, ...]
    budget: Budget = Budget()
    shapes: ShapeBindings = field(default_factory=ShapeBindings)
    profile: bool = False
    seed: int = 0
    data: str | None = None
    """--data: a file or folder of the person's own input arrays (perftui.bench.data)."""

    def __post_init__(self) -> None:
        # a mapping of input name to whole shape is still accepted, as before named dimensions
        object.__setattr__(self, "shapes", as_bindings(self.shapes))

    repeat: int = 1
    """How many times each configuration is measured (perftui.domain.forms.bench.REPEAT_DEFAULT)."""
    label: str = ""
    """What the benchmark is for, carried by its runs in `resolved["label"]`; "quick look"
    (perftui.domain.measurement.verdict.QUICK_LOOK) marks runs too short for a verdict. The parent's
    alone: not sent to the worker nor stored with the benchmark."""

    @property
    def repetitions(self) -> int:
        """How many runs of each configuration (`repeat`, at least 1)."""
        return max(1, self.repeat)

    def scheduled(self, index: int) -> tuple[int, RunConfig]:
        """(repetition, config) of the index-th run: repetitions are interleaved across the
        matrix (1a 2a 3a 1b 2b 3b ...), so a drift of the machine falls on every
        configuration alike. `len(configs) * repeat` runs in all."""
        repetition, position = divmod(index, len(self.configs))
        return repetition, self.configs[position]

    @property
    def total_runs(self) -> int:
        return len(self.configs) * self.repetitions

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project.to_dict(),
            "configs": [c.to_dict() for c in self.configs],
            "budget": asdict(self.budget),
            "shapes": self.shapes.to_dict(),
            "profile": self.profile,
            "seed": self.seed,
            "data": self.data,
            "repeat": self.repeat,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BenchmarkRequest:
        return cls(
            project=Project.from_dict(data["project"]),
            configs=tuple(RunConfig.from_dict(c) for c in data["configs"]),
            budget=Budget(**data.get("budget", {})),
            shapes=ShapeBindings.from_dict(data.get("shapes")),
            profile=bool(data.get("profile", False)),
            seed=int(data.get("seed", 0)),
            data=data.get("data"),
            repeat=int(data.get("repeat", 1)),
        )


@dataclass(frozen=True)
class StoredBenchmark:
    """A benchmark request as the store keeps it: its id, its project's name and when it was
    asked. Runs point to it by `RunResult.benchmark_id`."""

    id: str
    project_name: str
    created_at: str
    request: BenchmarkRequest
    capacity: CapacitySearch | None = None
    """A capacity search's objectives and how it ended (`perftui capacity`); None for a
    benchmark of a matrix."""

    def to_dict(self) -> dict[str, Any]:
        found = {
            "id": self.id,
            "project_name": self.project_name,
            "created_at": self.created_at,
            **self.request.to_dict(),
        }
        if self.capacity is not None:  # a matrix's document stays as it was
            found["capacity"] = self.capacity.to_dict()
        return found

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StoredBenchmark:
        """KeyError, TypeError, ValueError or AttributeError if `data` is not one."""
        from perftui.domain.traffic.search import CapacitySearch

        request = BenchmarkRequest.from_dict(data)
        capacity = data.get("capacity")
        return cls(
            id=str(data["id"]),
            project_name=str(data.get("project_name", request.project.name)),
            created_at=str(data.get("created_at", "")),
            request=request,
            capacity=CapacitySearch.from_dict(capacity) if capacity else None,
        )
