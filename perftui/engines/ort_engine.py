"""ONNX Runtime engine: one InferenceSession; async = N Python threads calling session.run.

ONNX Runtime releases the GIL inside `run`, so concurrent threads on one session overlap;
latency is the wall time of each `run` call (perf_counter), Python call overhead included,
which is what a bare `session.run` loop would measure.
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from time import perf_counter
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

from perftui.domain.errors import InputError
from perftui.domain.records import AUTO, LayerProfile, RunConfig, TensorSpec
from perftui.engines.base import Engine, Prepared, Recorder, elapsed_ms

PROFILE_WARMUP = 2
"""Runs of the profiling session whose events are discarded (the first ones allocate)."""
ASYNC_AUTO_REQUESTS = 2
LOG_ERRORS_ONLY = 3
"""ONNX Runtime log severity: errors only (its warnings would go to the worker's stderr)."""
_EXTERNAL_DATA_DIR = "session.model_external_initializers_file_folder_path"
_OPTIMIZED_WEIGHTS_FILE = "session.optimized_model_external_initializers_file_name"
_OPTIMIZED_WEIGHTS_MIN = "session.optimized_model_external_initializers_min_size_in_bytes"

_DEVICE_NAMES = {
    "CPUExecutionProvider": "CPU",
    "CUDAExecutionProvider": "CUDA",
    "TensorrtExecutionProvider": "TensorRT",
    "ROCMExecutionProvider": "ROCM",
    "MIGraphXExecutionProvider": "MIGraphX",
    "OpenVINOExecutionProvider": "OpenVINO",
    "DmlExecutionProvider": "DML",
    "CoreMLExecutionProvider": "CoreML",
    "DnnlExecutionProvider": "DNNL",
    "QNNExecutionProvider": "QNN",
    "WebGpuExecutionProvider": "WebGPU",
}
_IGNORED_PROVIDERS = ("AzureExecutionProvider",)
_ORT_DTYPES = {
    "tensor(float)": "float32",
    "tensor(float16)": "float16",
    "tensor(double)": "float64",
    "tensor(int8)": "int8",
    "tensor(uint8)": "uint8",
    "tensor(int16)": "int16",
    "tensor(uint16)": "uint16",
    "tensor(int32)": "int32",
    "tensor(uint32)": "uint32",
    "tensor(int64)": "int64",
    "tensor(uint64)": "uint64",
    "tensor(bool)": "bool",
    "tensor(string)": "object",
}
_PROFILE_PRECISIONS = {
    "float": "FP32",
    "float16": "FP16",
    "bfloat16": "BF16",
    "double": "FP64",
    "int8": "I8",
    "uint8": "U8",
    "int16": "I16",
    "uint16": "U16",
    "int32": "I32",
    "uint32": "U32",
    "int64": "I64",
    "uint64": "U64",
    "bool": "BOOL",
}
_FLOAT_TYPES = ("float", "float16", "bfloat16", "double")
_COMPUTE_OPS = {"Conv", "ConvTranspose", "MatMul", "Gemm", "ConvInteger", "MatMulInteger"}
_EPILOGUE_OPS = {
    "Add",
    "Sum",
    "Mul",
    "Div",
    "Sub",
    "BatchNormalization",
    "Relu",
    "Clip",
    "LeakyRelu",
    "Sigmoid",
    "HardSigmoid",
    "HardSwish",
    "Tanh",
    "Erf",
    "Gelu",
}
"""Ops that ONNX Runtime fuses into a preceding Conv/MatMul/Gemm (used to name fused nodes)."""


def first_line(error: BaseException) -> str:
    """The first informative line of an ONNX Runtime exception, without its error-code prefix."""
    for line in str(error).splitlines():
        line = line.strip()
        if line:
            if line.startswith("[ONNXRuntimeError]"):
                line = line.split(" : ", 2)[-1]
            return line
    return type(error).__name__


def device_name(provider: str) -> str:
    """'CUDAExecutionProvider' -> 'CUDA'."""
    return _DEVICE_NAMES.get(provider, provider.removesuffix("ExecutionProvider"))


def precision_from_types(type_names: Sequence[str]) -> str:
    """Runtime precision of a kernel from its input element types: the first 8-bit integer
    input (I8/U8) if any, else the first float type, else the first type."""
    for name in type_names:
        if name in ("int8", "uint8"):
            return _PROFILE_PRECISIONS[name]
    for name in type_names:
        if name in _FLOAT_TYPES:
            return _PROFILE_PRECISIONS[name]
    return _PROFILE_PRECISIONS.get(type_names[0], type_names[0].upper()) if type_names else ""


def _dims(value: onnx.ValueInfoProto) -> tuple[int | str, ...]:
    dims: list[int | str] = []
    for dim in value.type.tensor_type.shape.dim:
        if dim.HasField("dim_value"):
            dims.append(int(dim.dim_value))
        else:
            dims.append(dim.dim_param or "?")
    return tuple(dims)


def _onnx_dtype(value: onnx.ValueInfoProto) -> str:
    elem_type = value.type.tensor_type.elem_type
    try:
        return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type)).name
    except (KeyError, TypeError, ValueError):
        return onnx.TensorProto.DataType.Name(elem_type).lower()


class OrtPrepared(Prepared):
    """One InferenceSession; `requests` threads share it in async mode."""

    def __init__(
        self,
        *,
        inputs: list[TensorSpec],
        read_ms: float,
        compile_ms: float,
        resolved: dict[str, Any],
        session: ort.InferenceSession,
        model_bytes: bytes,
        model_path: Path,
        threads: int,
        providers: list[str],
        profile: bool,
    ) -> None:
        super().__init__(inputs=inputs, read_ms=read_ms, compile_ms=compile_ms, resolved=resolved)
        self._session = session
        self._model_bytes = model_bytes if profile else b""  # kept only for the profile pass
        self._model_path = model_path
        self._threads = threads
        self._providers = providers
        self._profile = profile
        self._feeds: dict[str, np.ndarray] | None = None

    def bind(self, feeds: Mapping[str, np.ndarray]) -> None:
        missing = [spec.name for spec in self.inputs if spec.name not in feeds]
        if missing:
            raise InputError(f"no input data for {', '.join(repr(m) for m in missing)}")
        bound = {}
        for spec in self.inputs:
            data = np.ascontiguousarray(feeds[spec.name], dtype=np.dtype(spec.dtype))
            if tuple(data.shape) != tuple(spec.shape):
                raise InputError(
                    f"input {spec.name!r} data has shape {list(data.shape)}, "
                    f"the session expects {list(spec.shape)}"
                )
            bound[spec.name] = data
        self._feeds = bound

    def infer_once(self) -> float:
        feeds = self._bound_feeds()
        start = perf_counter()
        self._session.run(None, feeds)
        return perf_counter() - start

    def run_async(self, recorder: Recorder) -> None:
        feeds = self._bound_feeds()
        run = self._session.run
        done = recorder.done
        record = recorder.record
        failures: list[BaseException] = []

        def worker() -> None:
            try:
                while not failures and not done():
                    start = perf_counter()
                    run(None, feeds)
                    record(perf_counter() - start)
            except BaseException as error:  # re-raised in the calling thread
                failures.append(error)

        threads = [
            threading.Thread(target=worker, name=f"perftui-ort-request-{i}", daemon=True)
            for i in range(int(self.resolved["requests"]))
        ]
        recorder.begin()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise failures[0]

    def layer_profile(self, iterations: int) -> list[LayerProfile]:
        """Per-node kernel times from ONNX Runtime's profiler, in a fresh profiling session so
        that neither earlier runs nor the profiler's event limit can distort them."""
        if not self._profile:
            raise RuntimeError("layer_profile needs a model prepared with profile=True")
        if iterations < 1:
            raise ValueError("iterations must be at least 1")
        feeds = self._bound_feeds()
        with tempfile.TemporaryDirectory(prefix="perftui-ort-profile-") as folder:
            options = _session_options(self._threads, self._model_path)
            options.enable_profiling = True
            options.profile_file_prefix = str(Path(folder) / "profile")
            optimized = Path(folder) / "optimized.onnx"
            options.optimized_model_filepath = str(optimized)
            options.add_session_config_entry(_OPTIMIZED_WEIGHTS_FILE, "optimized.weights")
            options.add_session_config_entry(_OPTIMIZED_WEIGHTS_MIN, "1024")
            session = ort.InferenceSession(
                self._model_bytes, sess_options=options, providers=self._providers
            )
            for _ in range(PROFILE_WARMUP + iterations):
                session.run(None, feeds)
            with open(session.end_profiling(), encoding="utf-8") as handle:
                events = json.load(handle)
            graph = _load_graph(optimized)
        original = _load_graph_bytes(self._model_bytes)
        return profile_rows(events, iterations, graph, original)

    def _bound_feeds(self) -> dict[str, np.ndarray]:
        if self._feeds is None:
            raise RuntimeError("bind() input data before running requests")
        return self._feeds


def _load_graph(path: Path) -> onnx.GraphProto | None:
    try:
        return onnx.load(str(path), load_external_data=False).graph
    except Exception:  # no optimized model written (e.g. a provider that cannot save it)
        return None


def _load_graph_bytes(data: bytes) -> onnx.GraphProto | None:
    try:
        return onnx.load_model_from_string(data).graph
    except Exception:
        return None


def profile_rows(
    events: list[dict[str, Any]],
    iterations: int,
    graph: onnx.GraphProto | None,
    original: onnx.GraphProto | None,
) -> list[LayerProfile]:
    """Per-node rows from a profile: kernel events of the last `iterations` model runs,
    averaged per run; nodes of the optimized `graph` that never ran are 'not_run'."""
    runs = sorted(
        (e for e in events if e.get("cat") == "Session" and e.get("name") == "model_run"),
        key=lambda e: e["ts"],
    )
    kept = runs[-iterations:]
    if not kept:
        return []
    since = kept[0]["ts"]
    times: dict[str, float] = {}
    kernels: dict[str, dict[str, Any]] = {}
    for event in events:
        name = event.get("name", "")
        if event.get("cat") != "Node" or not name.endswith("_kernel_time") or event["ts"] < since:
            continue
        node = name.removesuffix("_kernel_time")
        times[node] = times.get(node, 0.0) + float(event.get("dur", 0))
        kernels.setdefault(node, event.get("args", {}))
    namer = _OriginalNames(original, graph) if original is not None else None
    rows: list[LayerProfile] = []
    nodes = {node.name: node for node in graph.node} if graph is not None else {}
    order = list(nodes) + [name for name in kernels if name not in nodes]
    for name in order:
        node = nodes.get(name)
        args = kernels.get(name)
        originals = namer.names(name, node) if namer is not None else ()
        if args is None:
            op_type = node.op_type if node is not None else ""
            rows.append(LayerProfile(name, op_type, "", "", "not_run", 0.0, originals))
            continue
        op_name = str(args.get("op_name", node.op_type if node is not None else ""))
        input_types = [next(iter(t), "") for t in args.get("input_type_shape", []) if t]
        rows.append(
            LayerProfile(
                name=name,
                type=op_name,
                exec_type=f"{op_name}:{args.get('provider', '')}",
                precision=precision_from_types(input_types),
                status="executed",
                time_ms=round(times[name] / len(kept) / 1000.0, 6),
                original_names=originals,
            )
        )
    return rows


class _OriginalNames:
    """Names of the original ONNX nodes behind an optimized-graph node, by ONNX Runtime's
    naming of fused nodes: a kept name, a "<name>_token_N" or "<name>/<Fusion>" rename, or a
    "<output tensor>_nchwc" layout node; extended over the epilogue ops (BatchNorm, activation,
    bias Add) that were fused into a Conv/MatMul/Gemm. A heuristic: empty when unsure."""

    def __init__(self, original: onnx.GraphProto, optimized: onnx.GraphProto | None) -> None:
        self._nodes = {node.name: node for node in original.node if node.name}
        self._producer = {out: node.name for node in original.node for out in node.output}
        self._consumers: dict[str, list[str]] = {}
        for node in original.node:
            for name in node.input:
                self._consumers.setdefault(name, []).append(node.name)
        kept = {node.name for node in optimized.node} if optimized is not None else set()
        self._fused = set(self._nodes) - kept
        self._order = {name: i for i, name in enumerate(self._nodes)}

    def names(self, name: str, node: onnx.NodeProto | None) -> tuple[str, ...]:
        if name in self._nodes:
            return (name,)
        anchor = self._anchor(name, node)
        if anchor not in self._nodes:
            return ()
        found = {anchor, *self._backward(anchor), *self._forward(anchor)}
        return tuple(sorted(found, key=self._order.__getitem__))

    def _anchor(self, name: str, node: onnx.NodeProto | None) -> str | None:
        base = name
        while "_token_" in base and base.rsplit("_token_", 1)[1].isdigit():
            base = base.rsplit("_token_", 1)[0]
        if base in self._nodes:
            return base
        if name.endswith("_nchwc"):
            return self._producer.get(name.removesuffix("_nchwc"))
        parts = name.rstrip("/").split("/")
        for end in range(len(parts) - 1, 0, -1):
            prefix = "/".join(parts[:end])
            if prefix in self._nodes:
                return prefix
        if node is not None and not node.op_type.startswith("Reorder"):
            for output in node.output:
                if output in self._producer:
                    return self._producer[output]
        return None

    def _single_fused_consumer(self, tensor: str) -> str | None:
        consumers = self._consumers.get(tensor, [])
        if len(consumers) == 1 and consumers[0] in self._fused:
            return consumers[0]
        return None

    def _backward(self, anchor: str) -> list[str]:
        """From a fused epilogue op back to the Conv/MatMul/Gemm it was fused into."""
        found: list[str] = []
        current = self._nodes[anchor]
        while current.op_type in _EPILOGUE_OPS:
            previous = None
            for tensor in current.input:
                producer = self._producer.get(tensor)
                if (
                    producer in self._fused
                    and self._single_fused_consumer(tensor) == current.name
                    and self._nodes[producer].op_type in _EPILOGUE_OPS | _COMPUTE_OPS
                ):
                    previous = self._nodes[producer]
                    break
            if previous is None:
                break
            found.append(previous.name)
            current = previous
            if current.op_type in _COMPUTE_OPS:
                break
        return found

    def _forward(self, anchor: str) -> list[str]:
        """From a Conv/MatMul/Gemm forward over the epilogue ops fused into it."""
        found: list[str] = []
        current = self._nodes[anchor]
        if current.op_type not in _COMPUTE_OPS:
            return found
        while len(current.output) == 1:
            consumer = self._single_fused_consumer(current.output[0])
            if consumer is None or self._nodes[consumer].op_type not in _EPILOGUE_OPS:
                break
            found.append(consumer)
            current = self._nodes[consumer]
        return found


def _session_options(threads: int, model_path: Path) -> ort.SessionOptions:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = LOG_ERRORS_ONLY
    # The model is created from bytes; external weights are looked up beside the file.
    options.add_session_config_entry(_EXTERNAL_DATA_DIR, str(model_path.resolve().parent))
    return options


class OrtEngine(Engine):
    name = "onnxruntime"

    def version(self) -> str:
        return ort.__version__

    def devices(self) -> list[str]:
        return [device_name(p) for p in self._providers() if p not in _IGNORED_PROVIDERS]

    def model_inputs(self, model_path: str) -> list[TensorSpec]:
        path = _model_file(model_path)
        try:
            graph = onnx.load(str(path), load_external_data=False).graph
        except Exception as error:
            raise InputError(
                f"could not read model {path} with onnxruntime: {first_line(error)}"
            ) from error
        initializers = {init.name for init in graph.initializer}
        return [
            TensorSpec(value.name, _onnx_dtype(value), _dims(value))
            for value in graph.input
            if value.name not in initializers
        ]

    def prepare(
        self,
        model_path: str,
        device: str,
        config: RunConfig,
        shapes: Mapping[str, tuple[int, ...]],
        *,
        profile: bool = False,
    ) -> OrtPrepared:
        providers = self._providers_for(device)
        self.check_config(config)
        if config.api == "sync":
            requests = 1
        elif config.requests == AUTO:
            requests = ASYNC_AUTO_REQUESTS
        else:
            requests = int(config.requests)
        if requests < 1:
            raise InputError(f"requests must be at least 1, not {requests}")

        path = _model_file(model_path)
        start = time.perf_counter()
        model_bytes = path.read_bytes()
        read_ms = elapsed_ms(start)
        options = _session_options(config.threads, path)
        start = time.perf_counter()
        try:
            session = ort.InferenceSession(model_bytes, sess_options=options, providers=providers)
        except Exception as error:
            raise InputError(
                f"could not read model {path} with onnxruntime: {first_line(error)}"
            ) from error
        compile_ms = elapsed_ms(start)
        inputs = _static_inputs(session, shapes, config.batch)
        resolved: dict[str, Any] = {
            "streams": 1,
            "threads": config.threads if config.threads > 0 else "auto",
            "requests": requests,
            "hint": "n/a (onnxruntime)",
            "precision": "model",
            "shapes": {spec.name: list(spec.shape) for spec in inputs},
            "device": device,
            "providers": list(session.get_providers()),
        }
        return OrtPrepared(
            inputs=inputs,
            read_ms=read_ms,
            compile_ms=compile_ms,
            resolved=resolved,
            session=session,
            model_bytes=model_bytes,
            model_path=path,
            threads=config.threads,
            providers=providers,
            profile=profile,
        )

    def check_config(self, config: RunConfig) -> None:
        if config.streams not in (AUTO, 1):
            raise InputError("ONNX Runtime has no streams; use --streams auto")
        if config.precision not in (None, "f32"):
            raise InputError(
                f"ONNX Runtime runs the model's own precision; --precision {config.precision} "
                "needs the openvino engine (or a model converted to that precision)"
            )
        if config.threads < 0:
            raise InputError(f"threads must be 0 (engine default) or more, not {config.threads}")

    def check_device(self, device: str) -> None:
        self._providers_for(device)

    @staticmethod
    def _providers() -> list[str]:
        return list(ort.get_available_providers())

    def _providers_for(self, device: str) -> list[str]:
        """Execution providers for a device name; the CPU provider backs up any other."""
        for provider in self._providers():
            if provider in _IGNORED_PROVIDERS:
                continue
            if device.upper() in (device_name(provider).upper(), provider.upper()):
                if provider == "CPUExecutionProvider":
                    return [provider]
                return [provider, "CPUExecutionProvider"]
        raise InputError(
            f"device {device!r} is not available to onnxruntime on this machine; "
            f"available: {', '.join(self.devices()) or 'none'}"
        )


def _model_file(model_path: str) -> Path:
    path = Path(model_path)
    if not path.is_file():
        raise InputError(f"model file not found: {model_path}")
    if path.suffix.lower() in (".xml", ".bin"):
        raise InputError(
            f"ONNX Runtime reads ONNX models; {path.name} is OpenVINO IR (use --engine openvino)"
        )
    return path


def _static_inputs(
    session: ort.InferenceSession, shapes: Mapping[str, tuple[int, ...]], batch: int
) -> list[TensorSpec]:
    """The session's inputs at the requested static shapes; ONNX Runtime cannot reshape a
    model, so a requested size that differs from a fixed dimension is an InputError."""
    names = [value.name for value in session.get_inputs()]
    unknown = [name for name in shapes if name not in names]
    if unknown:
        raise InputError(f"model has no input {unknown[0]!r}; its inputs are: {', '.join(names)}")
    specs = []
    for value in session.get_inputs():
        if value.name not in shapes:
            raise InputError(f"no shape given for input {value.name!r}")
        wanted = tuple(int(d) for d in shapes[value.name])
        declared = list(value.shape)
        if len(declared) != len(wanted):
            raise InputError(
                f"input {value.name!r} has {len(declared)} dimensions, "
                f"shape {list(wanted)} has {len(wanted)}"
            )
        for index, (have, want) in enumerate(zip(declared, wanted, strict=True)):
            if isinstance(have, int) and have > 0 and have != want:
                if index == 0:
                    raise InputError(
                        f"input {value.name!r} has fixed dim 0 = {have}; batch {batch} needs "
                        "a model with a dynamic batch dimension"
                    )
                raise InputError(
                    f"input {value.name!r} has fixed dim {index} = {have}; shape {list(wanted)} "
                    "needs a model where that dimension is dynamic (ONNX Runtime cannot reshape)"
                )
        dtype = _ORT_DTYPES.get(value.type, "float32")
        specs.append(TensorSpec(value.name, dtype, wanted))
    return specs


ENGINE = OrtEngine()
