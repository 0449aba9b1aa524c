"""The INT8 recipes: ONNX Runtime quantization, static QDQ (default) or dynamic, for ONNX
Runtime projects; NNCF for OpenVINO projects (perftui.optimize.nncf_recipe). `quantize_model`
picks the project engine's recipe.

Static (`quantize_static_qdq`) is the recipe of the shipped `mobilenet_int8.onnx`
(`sample_models/build.py` calls this function): `quant_pre_process` first (shape inference and
ORT graph optimisation, which folds BatchNormalization into the Conv weights so each Conv gets
one QDQ pair and per-channel scales), then `quantize_static` in QDQ format with per-channel
symmetric int8 weights, asymmetric uint8 activations and MinMax calibration. OpenVINO runs such
QDQ convolutions in I8; ONNX Runtime CPU fuses them into integer kernels.

Dynamic (`quantize_dynamic_int8`) stores int8 weights and quantizes activations at run time
(`DynamicQuantizeLinear` + `ConvInteger`/`MatMulInteger`); it needs no calibration data and
suits transformer and recurrent models more than CNNs.

Both first fit the model to the tools (perftui.optimize.onnx_prepare: weights that are graph
inputs kept as constants, old opsets converted), and write a model whose inputs and outputs
keep the source's declared shapes (dynamic batch names included) and whose opset imports
list only the domains the graph uses. onnx and onnxruntime are imported inside the functions.
"""

from __future__ import annotations

import contextlib
import logging
import re
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perftui.domain.errors import InputError
from perftui.domain.records import METHODS, Method
from perftui.optimize.onnx_prepare import prepare_for_quantization

Progress = Callable[[str, int, int], None]
"""Progress callback: (phase, done, total); total 0 for a phase without steps."""

QUANTIZED_OPS = frozenset(
    {
        "QuantizeLinear",
        "DynamicQuantizeLinear",
        "QLinearConv",
        "QLinearMatMul",
        "ConvInteger",
        "MatMulInteger",
        "com.microsoft.QuantizeLinear",
        "com.microsoft.DynamicQuantizeMatMul",
        "com.microsoft.QLinearAdd",
        "com.microsoft.QAttention",
        "FakeQuantize",
    }
)
"""Operators that show a model is already quantized (ONNX, and OpenVINO's `FakeQuantize`;
`DequantizeLinear` alone may be weight storage in an FP32 model, so it does not count)."""


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence ONNX Runtime's native log and Python warnings from the quantization tools."""
    import onnxruntime as ort

    root = logging.getLogger()
    level = root.level
    ort.set_default_logger_severity(3)
    root.setLevel(logging.CRITICAL)  # the tools log errors they then raise (or recover from)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        root.setLevel(level)


def tidy_quantized(model: Any, source: Any) -> None:
    """In place: give `model`'s graph inputs/outputs the shapes `source` declares (the tools may
    pin a dynamic dimension), and keep only the opset imports of domains the graph uses."""
    declared = {v.name: v for v in (*source.graph.input, *source.graph.output)}
    for value in (*model.graph.input, *model.graph.output):
        origin = declared.get(value.name)
        if origin is None or not origin.type.tensor_type.HasField("shape"):
            continue
        want = origin.type.tensor_type.shape
        have = value.type.tensor_type.shape
        if len(want.dim) == len(have.dim):
            have.CopyFrom(want)
    used = {node.domain for node in model.graph.node}
    kept = [op for op in model.opset_import if op.domain in used]
    del model.opset_import[:]
    model.opset_import.extend(kept)


@dataclass(frozen=True)
class Quantized:
    """What `quantize_model` made: the INT8 model file (ONNX, or IR `.xml` with its `.bin`)
    and what the recipe changed or chose, one line each."""

    model: Path
    tool: str
    changes: tuple[str, ...] = ()


def _finish(source: Path, target: Path) -> None:
    import onnx

    model = onnx.load(str(target))
    tidy_quantized(model, onnx.load(str(source), load_external_data=False))
    onnx.checker.check_model(model)
    onnx.save(model, str(target))


def quantize_static_qdq(
    source: str | Path,
    target: str | Path,
    samples: Sequence[Mapping[str, np.ndarray]],
    progress: Progress | None = None,
) -> tuple[str, ...]:
    """Static QDQ INT8 of `source` into `target`, calibrated (MinMax) on `samples`; what
    `prepare_for_quantization` changed.

    `progress` gets ("preparing", 0, 0), ("calibrating", i, n) as sample i is fed, and
    ("quantizing", 0, 0) once calibration has seen every sample.
    """
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    report = progress or (lambda phase, done, total: None)
    total = len(samples)

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self._index = 0

        def get_next(self) -> dict[str, np.ndarray] | None:
            if self._index >= total:
                if self._index == total:
                    self._index += 1
                    report("quantizing", 0, 0)
                return None
            self._index += 1
            report("calibrating", self._index, total)
            return dict(samples[self._index - 1])

    with tempfile.TemporaryDirectory(prefix="perftui-quant-") as tmp:
        report("preparing", 0, 0)
        pre, changes = _pre_process(Path(source), Path(tmp))
        quantize_static(
            str(pre),
            str(target),
            Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            extra_options={"ActivationSymmetric": False, "WeightSymmetric": True},
        )
    _finish(Path(source), Path(target))
    return changes


def quantize_dynamic_int8(
    source: str | Path, target: str | Path, progress: Progress | None = None
) -> tuple[str, ...]:
    """Dynamic INT8 of `source` into `target`: int8 weights, activations quantized at run time;
    what `prepare_for_quantization` changed."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    report = progress or (lambda phase, done, total: None)
    with tempfile.TemporaryDirectory(prefix="perftui-quant-") as tmp:
        report("preparing", 0, 0)
        pre, changes = _pre_process(Path(source), Path(tmp))
        report("quantizing", 0, 0)
        quantize_dynamic(str(pre), str(target), weight_type=QuantType.QInt8)
    _finish(Path(source), Path(target))
    return changes


def _pre_process(source: Path, tmp: Path) -> tuple[Path, tuple[str, ...]]:
    """`source` fitted to the tools, then through `quant_pre_process` (shape inference, graph
    optimisation): the model to quantize, and what fitting it changed."""
    from onnxruntime.quantization.shape_inference import quant_pre_process

    fitted, pre = tmp / "fitted.onnx", tmp / "pre.onnx"
    changes = prepare_for_quantization(source, fitted)
    quant_pre_process(str(fitted), str(pre), skip_symbolic_shape=True)
    return pre, changes


def quantize_model(
    source: str | Path,
    workdir: Path,
    method: Method,
    samples: Sequence[Mapping[str, np.ndarray]] = (),
    progress: Progress | None = None,
    *,
    quantizer: str,
) -> Quantized:
    """Quantize with `method` by `quantizer` (an engine's `Capabilities.quantizer`: "nncf",
    or "onnxruntime" for ONNX Runtime's tools) into `workdir`; InputError (one line) when the
    tools fail on this model.

    `samples` calibrate the static method (ignored by the dynamic one); NNCF's scheme follows
    the model's structure (perftui.optimize.nncf_recipe). Files may be left in `workdir` on
    failure; the caller owns it.
    """
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; choose from: {', '.join(METHODS)}")
    if method == "static" and not samples:
        raise InputError("static quantization needs at least one calibration sample")
    name = Path(source).name
    try:
        with quiet():
            if quantizer == "nncf":
                from perftui.optimize.nncf_recipe import quantize_openvino

                target = workdir / "int8.xml"
                changes = quantize_openvino(source, target, method, samples, progress)
                return Quantized(target, quantizer, changes)
            target = workdir / "int8.onnx"
            if method == "static":
                changes = quantize_static_qdq(source, target, samples, progress)
            else:
                changes = quantize_dynamic_int8(source, target, progress)
            return Quantized(target, quantizer, changes)
    except InputError:
        raise
    except MemoryError:
        raise InputError(f"ran out of memory quantizing {name}; use fewer --samples") from None
    except Exception as exc:  # onnx / onnxruntime / nncf raise many types, multi-line texts
        raise InputError(f"could not quantize {name} ({method}): {error_line(exc)}") from None


def error_line(exc: BaseException) -> str:
    """One readable line from an onnx/onnxruntime/openvino exception (no status codes, no
    temp paths, no C++ source locations)."""
    lines = [line.strip() for line in str(exc).splitlines()]
    text = " ".join(line for line in lines if not line.startswith(("Exception from ", "Check '")))
    text = " ".join(text.split())
    text = text.replace("[ONNXRuntimeError] : ", "").replace("onnx.onnx_cpp2py_export.", "")
    text = re.sub(r"^\d+ : [A-Z_]+ : ", "", text)
    text = re.sub(r"Load model from \S+ failed: ?", "", text)
    text = text.strip() or type(exc).__name__
    return text if len(text) <= 240 else text[:237] + "..."
