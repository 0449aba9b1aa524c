"""Fixed data and fake back ends for the dashboard tests (no engine, no child process)."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pytest

from perftui.bench import protocol
from perftui.domain.errors import InputError
from perftui.domain.model.model_info import ModelInfo, NodeFlops
from perftui.domain.records import (
    BenchmarkRequest,
    Budget,
    LatencyStats,
    LayerProfile,
    Project,
    RunConfig,
    RunResult,
    TensorSpec,
)
from perftui.inspection.conventions import resolve_shapes
from perftui.store.database import Store
from perftui.tui.app import PerftuiApp, create_app
from perftui.tui.services import Services
from tests.factories import flat_latency, run_result, traffic


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run `async def` tests in a fresh event loop (no asyncio plugin needed)."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = pyfuncitem._fixtureinfo.argnames
    asyncio.run(pyfuncitem.obj(**{name: pyfuncitem.funcargs[name] for name in names}))
    return True


ENV = {
    "cpu_model": "Test CPU @ 3.0GHz",
    "logical_cores": 8,
    "physical_cores": 4,
    "isa": ["sse4_2", "avx", "avx2", "fma", "avx512f"],
    "openvino": "2025.0",
    "onnxruntime": "1.20.0",
}
DEVICES = {"openvino": ["CPU", "GPU"], "onnxruntime": ["CPU"]}

INFO = ModelInfo(
    path="/models/net_fp32.onnx",
    format="onnx",
    inputs=(TensorSpec("input", "float32", ("batch", 3, 224, 224)),),
    outputs=(TensorSpec("logits", "float32", ("batch", 1000)),),
    op_counts={"Conv": 3, "Relu": 2, "Gemm": 1},
    parameters=3_500_000,
    parameter_bytes=14_000_000,
    flops=600_000_000,
    node_flops=(
        NodeFlops("conv1", "Conv", 300_000_000),
        NodeFlops("conv2", "Conv", 200_000_000),
        NodeFlops("fc", "Gemm", 100_000_000),
    ),
)
DYNAMIC_INFO = replace(
    INFO, inputs=(TensorSpec("input_ids", "int64", ("batch", "seq")),), format="onnx"
)
LAYERS = (
    LayerProfile("conv1", "Convolution", "jit_avx512_FP32", "FP32", "executed", 1.2),
    LayerProfile("relu1", "Eltwise", "jit_avx512_FP32", "FP32", "executed", 0.1),
    LayerProfile("conv2", "Convolution", "jit_avx512_I8", "I8", "executed", 0.8),
    LayerProfile("fq", "FakeQuantize", "undef", "", "not_run", 0.0),
    LayerProfile("fc", "FullyConnected", "gemm_FP32", "FP32", "executed", 0.4),
)


def stats(median: float) -> LatencyStats:
    return LatencyStats(
        median * 0.9,
        median * 1.02,
        median,
        median * 1.1,
        median * 1.3,
        median * 1.6,
        median * 0.05,
        0.05,
    )


def make_run(
    project: str,
    batch: int,
    threads: int,
    fps: float,
    second: int,
    layers: bool = False,
    status: str = "ok",
) -> RunResult:
    ok = status == "ok"
    return run_result(
        fps if ok else 0.0,
        config=RunConfig(batch=batch, threads=threads),
        status=status,
        error=None if ok else "InputError: bad things (during compile)",
        iterations=500 if ok else 0,
        duration_s=10.0 if ok else 0.0,
        first_inference_ms=12.5,
        compile_ms=150.0,
        latency_ms=stats(1000.0 * batch / fps) if ok else None,
        layers=LAYERS if layers else None,
        resolved={"threads": threads or 4, "streams": 1, "requests": 1, "environment": ENV},
        id=f"{project}-{batch}-{threads}-{second}",
        project=project,
        started_at=f"2025-03-01T10:{second // 60:02d}:{second % 60:02d}+00:00",
    )


def fill_store(path: Path) -> Store:
    """Two projects with a 2x2 matrix, a profile and a failed run; fixed ids and times."""
    store = Store(path)
    fp32 = store.add_project(Project("net-fp32", "/models/net_fp32.onnx", "openvino", "CPU"))
    store.add_project(Project("net-int8", "/models/net_int8.onnx", "onnxruntime", "CPU"))
    store.add_project(Project("empty-project", "/models/net_fp32.xml", "openvino", "GPU"))
    request = BenchmarkRequest(
        fp32,
        (RunConfig(1, 1), RunConfig(1, 2), RunConfig(4, 1), RunConfig(4, 2)),
        Budget(time_s=2.0),
    )
    bench = store.add_benchmark(request)
    runs = [
        make_run("net-fp32", 1, 1, 210.0, 1),
        make_run("net-fp32", 1, 2, 380.0, 2),
        make_run("net-fp32", 4, 1, 300.0, 3),
        make_run("net-fp32", 4, 2, 540.0, 4, True),
        make_run("net-fp32", 8, 2, 0.0, 5, status="failed"),
    ]
    for run in runs:
        store.add_run(replace(run, benchmark_id=bench), np.full(10, 4.0))
    store.add_run(make_run("net-int8", 1, 0, 650.0, 6, True))
    return store


SATURATED_FROM = 1000.0
"""The rate (requests/s) from which a fake open-loop run did not keep up."""


def open_loop(rate: float):
    """A fake open-loop run's figures at `rate`: latency from arrival rising with the rate,
    saturated from SATURATED_FROM."""
    saturated = rate >= SATURATED_FROM
    reasons = ("the queue grew through the window: waiting rose 120 ms",) * saturated
    p50 = 2.0 + rate / 200
    return traffic(rate, p50, p50 * (40 if saturated else 2), saturated=reasons)


def served(run: RunResult, rate: float) -> tuple[RunResult, np.ndarray]:
    """`run` as an open-loop run at `rate` (open_loop's figures) and its latencies from
    arrival, whose median and p99 are those figures'."""
    figures = open_loop(rate)
    p50, p99 = figures.latency["median"].value, figures.latency["p99"].value
    samples = np.interp(
        np.linspace(0, 1, run.iterations), (0, 0.5, 0.99, 1), (p50 / 2, p50, p99, p99)
    )
    run = replace(
        run,
        traffic=figures,
        throughput_fps=figures.achieved_rate * run.config.batch,
        latency_ms=flat_latency(p50, p99=p99, low=p50 / 2),
    )
    return run, samples


@dataclass
class FakeClient:
    """Replays a scripted benchmark: ticks for every config, then a finished run (stored)."""

    request: BenchmarkRequest
    store: Store | None
    ticks: int = 3
    gate: threading.Event | None = None
    fail_index: int | None = None
    noisy_index: int | None = None
    """This run's windows swing by 30 % (its verdict: noisy); the others' by 1 % (stable)."""
    invalid_index: int | None = None
    """This run's windows swing by 60 % (its verdict: invalid)."""
    runs: list[RunResult] = field(default_factory=list)
    cancelled: bool = False

    def __post_init__(self) -> None:
        if self.store is not None:
            project = self.store.ensure_project(self.request.project)
            self.request = replace(self.request, project=project)
            self.benchmark_id = self.store.add_benchmark(self.request)

    @property
    def total(self) -> int:
        return self.request.total_runs

    def cancel(self) -> None:
        self.cancelled = True
        if self.gate is not None:
            self.gate.set()

    def kill(self) -> None:
        self.cancel()

    def _label(self) -> dict[str, str]:
        """The request's label, carried by its runs as the real client does."""
        return {"label": self.request.label} if self.request.label else {}

    def events(self) -> Iterator[protocol.Event]:
        total = self.request.total_runs
        for index in range(total):
            repeat, config = self.request.scheduled(index)
            yield protocol.RunStarted(index, total, config)
            yield protocol.PhaseChanged(index, "timed")
            for n in range(1, self.ticks + 1):
                yield protocol.Progress(
                    index,
                    0.25 * n,
                    10 * n,
                    n / self.ticks,
                    100.0 * config.batch + 10 * n,
                    2.0 + 0.1 * n,
                )
                if self.gate is not None and n == 1:
                    self.gate.wait(10)
            status = "cancelled" if self.cancelled else "ok"
            run = make_run(
                self.request.project.name,
                config.batch,
                config.threads,
                100.0 * config.batch + 5,
                10 + index,
            )
            run = replace(run, config=config, repetition=repeat)  # all of the settings asked for
            if self.fail_index == index:
                run = replace(run, status="failed", error="worker died", latency_ms=None)
            swing = {self.noisy_index: 0.3, self.invalid_index: 0.6}.get(index, 0.01)
            run = replace(
                run,
                status=status if run.status == "ok" else run.status,
                id="",
                benchmark_id=getattr(self, "benchmark_id", ""),
                window_fps=tuple(run.throughput_fps * (1 + swing * (i % 3 - 1)) for i in range(12)),
                resolved={
                    **run.resolved,
                    **({"label": self.request.label} if self.request.label else {}),
                },
            )
            samples = None
            if config.rate is not None and run.status == "ok":
                run, samples = served(run, config.rate)
            elif run.latency_ms is not None:
                samples = np.linspace(0.95, 1.05, run.iterations) * run.latency_ms.median
            if self.store is not None:
                run = self.store.add_run(run, samples)
            self.runs.append(run)
            yield protocol.RunFinished(index, run, None)
            if self.cancelled:
                break
        yield protocol.BenchmarkDone(self.cancelled)


@dataclass
class FakeServices(Services):
    """No engines: fixed devices, inspection results and validation; a scripted client."""

    inspected: list[str] = field(default_factory=list)
    inspected_shapes: list[object] = field(default_factory=list)
    validated: list[BenchmarkRequest] = field(default_factory=list)
    clients: list[FakeClient] = field(default_factory=list)
    invalid: str | None = None
    gate: threading.Event | None = None
    fail_index: int | None = None
    noisy_index: int | None = None
    invalid_index: int | None = None
    ticks: int = 3
    busy_reasons: list[str] = field(default_factory=list)
    """What the busy-machine check finds (nothing: a quiet machine)."""

    def __post_init__(self) -> None:
        self.devices = lambda: dict(DEVICES)
        self.target_devices = lambda _db, _name: dict(DEVICES)
        self.inspect = self._inspect
        self.validate = self._validate
        self.client = self._client
        self.busy = lambda: list(self.busy_reasons)

    def _inspect(self, path: str, shapes: object = None) -> ModelInfo:
        self.inspected.append(path)
        self.inspected_shapes.append(shapes)
        if "broken" in path:
            raise InputError(f"cannot read model {path}: not an ONNX file")
        info = DYNAMIC_INFO if "encoder" in path else INFO
        # as the real inspection does: bound dims, else batch 1 and 128 for the others
        at = resolve_shapes(info.inputs, shapes if isinstance(shapes, dict) else {})
        return replace(info, path=path, flops_shapes=at)

    def _validate(self, request: BenchmarkRequest) -> None:
        self.validated.append(request)
        if self.invalid:
            raise InputError(self.invalid)

    def _client(self, request: BenchmarkRequest, store: Store) -> FakeClient:
        client = FakeClient(
            request,
            store,
            ticks=self.ticks,
            gate=self.gate,
            fail_index=self.fail_index,
            noisy_index=self.noisy_index,
            invalid_index=self.invalid_index,
        )
        self.clients.append(client)
        return client


@pytest.fixture
def services() -> FakeServices:
    return FakeServices()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "tui.json"
    fill_store(path)
    return path


@pytest.fixture
def app(db: Path, services: FakeServices) -> PerftuiApp:
    return create_app(db, services)


@pytest.fixture
def empty_app(tmp_path: Path, services: FakeServices) -> PerftuiApp:
    return create_app(tmp_path / "empty.json", services)
