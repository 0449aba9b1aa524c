"""OpenVINO engine: read, reshape and compile a model; sync requests and an AsyncInferQueue.

Latencies come from `InferRequest.latency`, which OpenVINO measures in C++ around the
inference itself (as benchmark_app reports them), so Python call overhead is not counted in
the latency; it is counted in throughput, which the recorder measures in wall time.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import openvino as ov
import openvino.properties as props
import openvino.properties.hint as hints

from perftui.domain.errors import InputError
from perftui.domain.records import LayerProfile, RunConfig, TensorSpec
from perftui.domain.resolved import Resolved
from perftui.engines.base import (
    PROFILE_WARMUP,
    Engine,
    LoadedModel,
    Prepared,
    Recorder,
    check_profile_request,
    elapsed_ms,
    request_count,
)
from perftui.engines.capabilities import OPENVINO
from perftui.engines.openvino_config import (
    compile_config,
    compiled_property,
    dtype_name,
    first_line,
    ir_model_file,
    onnx_dim_names,
    port_name,
    reshape,
)
from perftui.engines.openvino_profile import counters_are_cumulative, layer_rows

VIRTUAL_DEVICES = ("AUTO", "MULTI", "HETERO", "BATCH")
"""Devices that dispatch to others; they never appear in Core.available_devices."""


class OpenVinoPrepared(Prepared):
    """A compiled model with one sync request and, for the async API, an AsyncInferQueue."""

    def __init__(
        self,
        *,
        inputs: list[TensorSpec],
        read_ms: float,
        compile_ms: float,
        resolved: Resolved,
        core: ov.Core,
        model: ov.Model | None,
        compiled: ov.CompiledModel,
        device: str,
        properties: dict[str, Any],
        api: str,
        profile: bool,
    ) -> None:
        super().__init__(inputs=inputs, read_ms=read_ms, compile_ms=compile_ms, resolved=resolved)
        self._core = core
        self._model = model  # kept only for a profiling recompile
        self._compiled = compiled
        self._device = device
        self._properties = properties
        self._api = api
        self._profile = profile
        self._feeds: dict[str, np.ndarray] = {}
        self._samples: list[Mapping[str, np.ndarray]] = []
        self._request: ov.InferRequest | None = None
        self._queue: ov.AsyncInferQueue | None = None
        self._used = False

    def bind(
        self, feeds: Mapping[str, np.ndarray], others: Sequence[Mapping[str, np.ndarray]] = ()
    ) -> None:
        samples = [feeds, *others]
        for sample in samples:
            self.check_feeds(sample)
        self._samples = samples
        self._feeds = {spec.name: np.asarray(feeds[spec.name]) for spec in self.inputs}
        self._request = self._compiled.create_infer_request()
        _fill(self._request, self._compiled, self._feeds)
        if self._api == "async":
            self._queue = ov.AsyncInferQueue(self._compiled, int(self.resolved["requests"]))
            for i, request in enumerate(self._queue):
                _fill(request, self._compiled, samples[i % len(samples)])

    def infer_once(self) -> float:
        request = self._bound_request()
        self._used = True
        # share_outputs: no copy of the outputs into fresh numpy arrays on every call.
        request.infer(share_outputs=True)
        return request.latency * 1e-3

    def run_async(self, recorder: Recorder) -> None:
        """benchmark_app's loop: wait for an idle request, record the latency OpenVINO
        measured for its last inference, start it again. No Python callback: a callback makes
        every completion take the GIL from an OpenVINO thread (benchmarks/README.md,
        fidelity.py)."""
        if self._queue is None:
            raise RuntimeError("run_async needs a model prepared with api='async' and bound")
        self._used = True
        queue = self._queue
        record, done = recorder.record, recorder.done
        idle, start = queue.get_idle_request_id, queue.start_async
        in_flight: set[int] = set()
        recorder.begin()
        while not done():
            request_id = idle()  # waits, with the GIL released, until one is free
            if request_id in in_flight:
                record(queue[request_id].latency * 1e-3)
            else:
                in_flight.add(request_id)
            start()
        queue.wait_all()
        for request_id in in_flight:  # the requests still in flight when the window closed
            record(queue[request_id].latency * 1e-3)

    def slots(self, n: int) -> list[Callable[[], object]]:
        """An infer request of its own per slot; `infer` waits with the GIL released."""
        self._bound_request()
        self._used = True  # their inferences count in the graph's profiling counters
        requests = [self._compiled.create_infer_request() for _ in range(n)]
        for i, request in enumerate(requests):
            _fill(request, self._compiled, self._samples[i % len(self._samples)])
        return [functools.partial(request.infer, share_outputs=True) for request in requests]

    def layer_profile(self, iterations: int) -> list[LayerProfile]:
        """Per-layer times of `iterations` sync requests after PROFILE_WARMUP unprofiled ones.

        OpenVINO's CPU plugin reports, per node, the running average (in whole microseconds)
        over every inference of that stream's graph since compilation, not the last request's
        time; a stream's graph is shared by all requests and sync requests rotate over the
        streams. So the profile needs a graph that only it has used and one stream: the
        difference of two cumulative readings then gives the mean over the profiled requests.
        With several streams it recompiles with one stream and each stream's thread count.
        """
        check_profile_request(self._profile, iterations)
        compiled = self._profiling_model()
        self._used = True  # a second profile must not start from these counters
        request = compiled.create_infer_request()
        _fill(request, compiled, self._bound_feeds())
        for _ in range(PROFILE_WARMUP):
            request.infer(share_outputs=True)
        if counters_are_cumulative(compiled):
            before = {i.node_name: i.real_time.total_seconds() for i in request.profiling_info}
            for _ in range(iterations):
                request.infer(share_outputs=True)
            infos = request.profiling_info
            total = PROFILE_WARMUP + iterations
            times = {
                i.node_name: (
                    total * i.real_time.total_seconds()
                    - PROFILE_WARMUP * before.get(i.node_name, 0.0)
                )
                / iterations
                for i in infos
            }
        else:  # devices whose counters describe the last request only
            times = {}
            for _ in range(iterations):
                request.infer(share_outputs=True)
                infos = request.profiling_info
                for i in infos:
                    times[i.node_name] = times.get(i.node_name, 0.0) + i.real_time.total_seconds()
            times = {name: value / iterations for name, value in times.items()}
        return layer_rows(compiled, infos, times)

    def _bound_request(self) -> ov.InferRequest:
        if self._request is None:
            raise RuntimeError("bind() input data before running requests")
        return self._request

    def _bound_feeds(self) -> dict[str, np.ndarray]:
        self._bound_request()
        return self._feeds

    def _profiling_model(self) -> ov.CompiledModel:
        """This compiled model if its graph is unused and single-stream, else a fresh one."""
        streams = compiled_property(self._compiled, props.num_streams())
        if not self._used and (streams is None or int(streams) <= 1):
            return self._compiled
        properties = dict(self._properties)
        threads = compiled_property(self._compiled, props.inference_num_threads())
        if streams is not None and int(streams) > 1:
            properties[props.num_streams()] = 1
            if threads:
                properties[props.inference_num_threads()] = max(1, int(threads) // int(streams))
        assert self._model is not None
        return self._core.compile_model(self._model, self._device, properties)


def _fill(request: ov.InferRequest, compiled: ov.CompiledModel, feeds: Mapping[str, Any]) -> None:
    """Copy the feeds into the request's own input tensors (allocated by the plugin)."""
    for port in compiled.inputs:
        name = port_name(port)
        tensor = request.get_tensor(port)
        data = feeds[name]
        if tuple(tensor.shape) != tuple(data.shape):
            raise InputError(
                f"input {name!r} data has shape {list(data.shape)}, "
                f"the compiled model expects {list(tensor.shape)}"
            )
        tensor.data[...] = data


class OpenVinoEngine(Engine):
    capabilities = OPENVINO

    def __init__(self) -> None:
        self._core: ov.Core | None = None

    @property
    def core(self) -> ov.Core:
        if self._core is None:
            self._core = ov.Core()
        return self._core

    def version(self) -> str:
        return ov.get_version()

    def devices(self) -> list[str]:
        return list(self.core.available_devices)

    def model_inputs(self, model_path: str) -> list[TensorSpec]:
        path = ir_model_file(model_path)
        model = self._read(path)
        dim_names = onnx_dim_names(path) if path.suffix.lower() == ".onnx" else {}
        specs = []
        for port in model.inputs:
            name = port_name(port)
            names = dim_names.get(name, [])
            dims: list[int | str] = []
            for i, dim in enumerate(port.get_partial_shape()):
                if dim.is_static:
                    dims.append(dim.get_length())
                else:
                    dims.append((names[i] if i < len(names) else None) or "?")
            specs.append(TensorSpec(name, dtype_name(port.get_element_type()), tuple(dims)))
        return specs

    def prepare(
        self,
        model_path: str,
        device: str,
        config: RunConfig,
        shapes: Mapping[str, tuple[int, ...]],
        *,
        profile: bool = False,
    ) -> OpenVinoPrepared:
        self.check_device(device)
        properties = compile_config(config, profile=profile)
        path = ir_model_file(model_path)
        start = time.perf_counter()
        model = self._read(path)
        read_ms = elapsed_ms(start)
        reshape(model, shapes, path)
        start = time.perf_counter()
        try:
            compiled = self.core.compile_model(model, device, properties)
        except RuntimeError as error:
            raise RuntimeError(
                f"openvino could not compile {path.name} for {device}: {first_line(error)}"
            ) from error
        compile_ms = elapsed_ms(start)

        requests = request_count(
            config,
            lambda: int(compiled_property(compiled, props.optimal_number_of_infer_requests()) or 1),
        )
        streams = compiled_property(compiled, props.num_streams())
        threads = compiled_property(compiled, props.inference_num_threads())
        hint = compiled_property(compiled, hints.performance_mode())
        precision = compiled_property(compiled, hints.inference_precision())
        inputs = [
            TensorSpec(
                port_name(port),
                dtype_name(port.get_element_type()),
                tuple(port.get_partial_shape().to_shape()),
            )
            for port in compiled.inputs
        ]
        resolved = Resolved(
            streams=int(streams) if streams is not None else None,
            threads=int(threads) if threads is not None else None,
            requests=requests,
            hint=str(hint.name if hasattr(hint, "name") else hint).lower() if hint else None,
            precision=precision.get_type_name() if isinstance(precision, ov.Type) else None,
            shapes={spec.name: [int(d) for d in spec.shape] for spec in inputs},  # static
            device=device,
        )
        execution_devices = compiled_property(compiled, "EXECUTION_DEVICES")
        if execution_devices:
            resolved["execution_devices"] = [str(d) for d in execution_devices]
        return OpenVinoPrepared(
            inputs=inputs,
            read_ms=read_ms,
            compile_ms=compile_ms,
            resolved=resolved,
            core=self.core,
            model=model if profile else None,
            compiled=compiled,
            device=device,
            properties=properties,
            api=config.api,
            profile=profile,
        )

    def load_outputs(
        self, model_path: str, device: str, shapes: Mapping[str, tuple[int, ...]], exact: bool
    ) -> LoadedModel:
        """Reshaped to `shapes` and compiled; `exact` asks for f32 explicitly (OpenVINO's
        default on a CPU with AVX-512 BF16 or AMX is bf16)."""
        path = Path(model_path)
        model = self.core.read_model(str(path))
        reshape(model, shapes, path)
        config = {hints.inference_precision(): ov.Type.f32} if exact else {}
        compiled = self.core.compile_model(model, device, config)
        precision = compiled_property(compiled, hints.inference_precision())
        request = compiled.create_infer_request()
        inputs = [(port, port_name(port)) for port in compiled.inputs]

        def run(feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
            request.infer({port: feeds[name] for port, name in inputs})
            return [
                np.array(request.get_output_tensor(i).data) for i in range(len(compiled.outputs))
            ]

        names = tuple(
            port.get_any_name() if port.get_names() else f"output {i}"
            for i, port in enumerate(compiled.outputs)
        )
        said = precision.get_type_name() if isinstance(precision, ov.Type) else "?"
        return LoadedModel(names, run, said)

    def check_device(self, device: str) -> None:
        """A device from `devices()` ("GPU.1"), its family ("GPU"), or a virtual device
        (AUTO, MULTI:GPU,CPU, HETERO:..., BATCH:...) whose targets are all available.
        OpenVINO's names are case-sensitive ("cpu" does not compile), so they are here too."""
        available = self.devices()
        known = set(available) | {d.split(".", 1)[0] for d in available}
        family, _, targets = device.partition(":")
        if family in VIRTUAL_DEVICES:
            # "AUTO:-CPU" excludes a device; "MULTI:CPU(4),GPU(2)" gives request counts
            wanted = [t.strip().lstrip("-").split("(", 1)[0] for t in targets.split(",")]
            missing = [t for t in wanted if t and t not in known]
        else:
            missing = [device] if device not in known else []
        if missing:
            raise InputError(
                f"device {missing[0]!r} is not available to openvino on this machine; "
                f"available: {', '.join([*available, *VIRTUAL_DEVICES]) or 'none'}"
            )

    def _read(self, path: Path) -> ov.Model:
        try:
            return self.core.read_model(str(path))
        except RuntimeError as error:
            raise InputError(
                f"could not read model {path} with openvino: {first_line(error)}"
            ) from error


ENGINE = OpenVinoEngine()
