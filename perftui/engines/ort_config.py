"""ONNX Runtime's side of perftui's settings: devices as execution providers, session options,
the inputs a session is run with, and its error messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

from perftui.domain.errors import InputError
from perftui.domain.records import TensorSpec
from perftui.engines.base import model_file

__all__ = [
    "IGNORED_PROVIDERS",
    "OPTIMIZED_WEIGHTS_FILE",
    "OPTIMIZED_WEIGHTS_MIN",
    "declared_inputs",
    "device_name",
    "first_line",
    "onnx_model_file",
    "session_options",
    "static_inputs",
]

LOG_ERRORS_ONLY = 3
"""ONNX Runtime log severity: errors only (its warnings would go to the worker's stderr)."""
_EXTERNAL_DATA_DIR = "session.model_external_initializers_file_folder_path"
OPTIMIZED_WEIGHTS_FILE = "session.optimized_model_external_initializers_file_name"
OPTIMIZED_WEIGHTS_MIN = "session.optimized_model_external_initializers_min_size_in_bytes"


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
IGNORED_PROVIDERS = ("AzureExecutionProvider",)
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


def declared_inputs(path: Path) -> list[TensorSpec]:
    """The model's inputs as its file declares them (initializers are not inputs)."""
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


def session_options(threads: int, model_path: Path) -> ort.SessionOptions:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = LOG_ERRORS_ONLY
    # The model is created from bytes; external weights are looked up beside the file.
    options.add_session_config_entry(_EXTERNAL_DATA_DIR, str(model_path.resolve().parent))
    return options


def onnx_model_file(model_path: str) -> Path:
    """The model file, which must be ONNX; InputError otherwise."""
    path = model_file(model_path)
    if path.suffix.lower() in (".xml", ".bin"):
        raise InputError(
            f"ONNX Runtime reads ONNX models; {path.name} is OpenVINO IR (use --engine openvino)"
        )
    return path


def check_fixed_dims(
    name: str, declared: Sequence[int | str | None], wanted: Sequence[int], batch: int
) -> None:
    """InputError where `wanted` differs from a fixed dimension: ONNX Runtime cannot reshape a
    model (OpenVINO can), so this is refused before any run, not failed inside one."""
    if len(declared) != len(wanted):
        raise InputError(
            f"input {name!r} has {len(declared)} dimensions, shape {list(wanted)} has {len(wanted)}"
        )
    for index, (have, want) in enumerate(zip(declared, wanted, strict=True)):
        if isinstance(have, int) and have > 0 and have != want:
            if index == 0:
                raise InputError(
                    f"input {name!r} has fixed dim 0 = {have}; batch {batch} needs a model with "
                    "a dynamic batch dimension (onnxruntime cannot reshape; openvino can)"
                )
            raise InputError(
                f"input {name!r} has fixed dim {index} = {have}; shape {list(wanted)} "
                "needs a model where that dimension is dynamic (onnxruntime cannot reshape)"
            )


def static_inputs(
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
        check_fixed_dims(value.name, list(value.shape), wanted, batch)
        dtype = _ORT_DTYPES.get(value.type, "float32")
        specs.append(TensorSpec(value.name, dtype, wanted))
    return specs
