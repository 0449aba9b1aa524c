"""OpenVINO's side of perftui's settings: compile properties, model reading and reshaping,
input names and types, compiled-model properties, and its error messages."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import openvino as ov
import openvino.properties as props
import openvino.properties.hint as hints

from perftui.domain.errors import InputError
from perftui.domain.records import AUTO, RunConfig
from perftui.engines.base import model_file

__all__ = [
    "compile_config",
    "compiled_property",
    "dtype_name",
    "first_line",
    "ir_model_file",
    "onnx_dim_names",
    "port_name",
    "reshape",
]


_HINTS = {
    "latency": hints.PerformanceMode.LATENCY,
    "throughput": hints.PerformanceMode.THROUGHPUT,
    "cumulative_throughput": hints.PerformanceMode.CUMULATIVE_THROUGHPUT,
}
_PRECISIONS = {"f32": ov.Type.f32, "bf16": ov.Type.bf16, "f16": ov.Type.f16}


def first_line(error: BaseException) -> str:
    """The informative line of an OpenVINO exception, without its source-location preamble."""
    lines = [line.strip() for line in str(error).splitlines()]
    lines = [line for line in lines if line and not line.startswith(("Exception from ", "Check '"))]
    for line in lines:
        if not line.endswith(":"):
            return line
    return lines[0] if lines else type(error).__name__


def port_name(port: ov.Output) -> str:
    """The input's own name. Compiling can merge a removed node's output names into the input
    (GPT-2's `input_ids` also answers to `/Reshape_output_0`), and `get_any_name` then picks
    whichever sorts first; the Parameter's friendly name is the one the model declared."""
    friendly = port.get_node().get_friendly_name()
    names = port.get_names()
    if not names or friendly in names:  # an IR input without tensor names has only the node's
        return friendly
    return port.get_any_name()


def dtype_name(element_type: ov.Type) -> str:
    try:
        return np.dtype(element_type.to_dtype()).name
    except (RuntimeError, TypeError):
        return element_type.get_type_name()


def onnx_dim_names(path: Path) -> dict[str, list[str | None]]:
    """Dynamic dimension names of an ONNX model's inputs (OpenVINO does not keep them)."""
    try:
        import onnx

        graph = onnx.load(str(path), load_external_data=False).graph
    except Exception:
        return {}
    return {
        value.name: [dim.dim_param or None for dim in value.type.tensor_type.shape.dim]
        for value in graph.input
    }


def compiled_property(compiled: ov.CompiledModel, name: str) -> Any:
    """A compiled-model property, or None where the device does not report it (AUTO, ...)."""
    try:
        return compiled.get_property(name)
    except RuntimeError:
        return None


def compile_config(config: RunConfig, *, profile: bool) -> dict[str, Any]:
    """RunConfig mapped to OpenVINO compile properties."""
    properties: dict[str, Any] = {}
    if config.threads > 0:
        properties[props.inference_num_threads()] = config.threads
    if config.streams != AUTO:
        properties[props.num_streams()] = int(config.streams)
    if config.hint != "none":
        if config.hint not in _HINTS:
            raise InputError(
                f"unknown hint {config.hint!r}; choose one of: {', '.join([*_HINTS, 'none'])}"
            )
        properties[hints.performance_mode()] = _HINTS[config.hint]
    if config.precision is not None:
        if config.precision not in _PRECISIONS:
            raise InputError(
                f"unknown precision {config.precision!r}; choose one of: {', '.join(_PRECISIONS)}"
            )
        properties[hints.inference_precision()] = _PRECISIONS[config.precision]
    if config.pinning != AUTO:
        properties[hints.enable_cpu_pinning()] = config.pinning == "on"
    if profile:
        properties[props.enable_profiling()] = True
    return properties


def ir_model_file(model_path: str) -> Path:
    """The model file; an OpenVINO IR .xml needs its .bin beside it (InputError otherwise)."""
    path = model_file(model_path)
    if path.suffix.lower() == ".xml" and not path.with_suffix(".bin").is_file():
        raise InputError(f"OpenVINO IR {model_path} needs its weights beside it: {path.stem}.bin")
    return path


def reshape(model: ov.Model, shapes: Mapping[str, tuple[int, ...]], path: Path) -> None:
    """Give every input its static shape (OpenVINO compiles static shapes fastest)."""
    ports = {port_name(port): port for port in model.inputs}
    unknown = [name for name in shapes if name not in ports]
    if unknown:
        raise InputError(
            f"model {path.name} has no input {unknown[0]!r}; its inputs are: {', '.join(ports)}"
        )
    if not shapes:
        return
    try:
        model.reshape({ports[name]: ov.PartialShape(list(shape)) for name, shape in shapes.items()})
    except RuntimeError as error:
        wanted = ", ".join(f"{name}{list(shape)}" for name, shape in shapes.items())
        raise InputError(
            f"openvino cannot reshape {path.name} to {wanted}: {first_line(error)}"
        ) from error
