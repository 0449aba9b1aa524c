"""Run a model on a project's engine and device, as the checks before an INT8 model is saved.

- `check_runs`: compile the model and run one request through perftui's own engine code
  (`Engine.prepare`, `bind`, `infer_once`), the path of every later benchmark, so a model
  that would fail every run is refused before it is stored.
- `open_model`: the same engine and device, returning outputs, for the accuracy check
  (OpenVINO: the model reshaped to the samples' static shapes and compiled, the FP32
  reference in f32 explicitly: OpenVINO's default on a CPU with AVX-512 BF16 or AMX is bf16;
  ONNX Runtime: a session on the device's execution provider, CPU behind it).

Engine libraries are imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perftui.domain.errors import InputError
from perftui.domain.records import RunConfig
from perftui.optimize.quantize import error_line

Shapes = Mapping[str, tuple[int, ...]]


@dataclass(frozen=True)
class LoadedModel:
    """A model compiled on one engine and device: its output names, a run function and the
    inference precision the engine compiled it for ('model' on ONNX Runtime)."""

    outputs: tuple[str, ...]
    run: Callable[[Mapping[str, np.ndarray]], list[np.ndarray]]
    precision: str


def where(engine: str, device: str) -> str:
    return f"{engine}/{device}"


def check_runs(
    path: str | Path, engine: str, device: str, shapes: Shapes, feeds: Mapping[str, np.ndarray]
) -> None:
    """Compile `path` with the project's engine as a benchmark does and run one request on
    `feeds`; InputError saying why when it does not."""
    from perftui.engines import get_engine

    try:
        prepared = get_engine(engine).prepare(str(path), device, RunConfig(), shapes)
        prepared.bind(feeds)
        prepared.infer_once()
    except Exception as exc:  # engines raise RuntimeError and their own types
        raise InputError(
            f"the INT8 model does not run on {where(engine, device)}: {error_line(exc)};"
            " nothing was saved"
        ) from None


def open_model(
    path: str | Path, engine: str, device: str, shapes: Shapes, what: str, *, exact: bool = False
) -> LoadedModel:
    """`path` compiled on `engine`/`device` (in f32 when `exact`, else at the engine's default
    precision, as a benchmark runs it); InputError (one line) naming `what` ("FP32" or
    "INT8") when it does not load."""
    path = Path(path)
    try:
        if engine == "openvino":
            return _openvino(path, device, shapes, exact)
        return _onnxruntime(path, device)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(
            f"the {what} model {path.name} does not load on {where(engine, device)}:"
            f" {error_line(exc)}"
        ) from None


def _openvino(path: Path, device: str, shapes: Shapes, exact: bool) -> LoadedModel:
    import openvino as ov
    import openvino.properties.hint as hints

    from perftui.engines.openvino_config import compiled_property, port_name, reshape

    core = ov.Core()
    model = core.read_model(str(path))
    reshape(model, shapes, path)
    config = {hints.inference_precision(): ov.Type.f32} if exact else {}
    compiled = core.compile_model(model, device, config)
    precision = compiled_property(compiled, hints.inference_precision())
    request = compiled.create_infer_request()
    inputs = [(port, port_name(port)) for port in compiled.inputs]

    def run(feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        request.infer({port: feeds[name] for port, name in inputs})
        return [np.array(request.get_output_tensor(i).data) for i in range(len(compiled.outputs))]

    names = tuple(
        port.get_any_name() if port.get_names() else f"output {i}"
        for i, port in enumerate(compiled.outputs)
    )
    said = precision.get_type_name() if isinstance(precision, ov.Type) else "?"
    return LoadedModel(names, run, said)


def _onnxruntime(path: Path, device: str) -> LoadedModel:
    import onnxruntime as ort

    from perftui.engines.ort_config import device_name

    providers = [
        p
        for p in ort.get_available_providers()
        if device.upper() in (device_name(p).upper(), p.upper())
    ]
    if not providers:
        raise InputError(f"device {device!r} is not available to onnxruntime on this machine")
    if "CPUExecutionProvider" not in providers:
        providers.append("CPUExecutionProvider")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(path), options, providers=providers)
    names = tuple(o.name for o in session.get_outputs())
    return LoadedModel(names, lambda feeds: list(session.run(list(names), dict(feeds))), "model")
