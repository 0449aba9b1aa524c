"""The INT8 recipe of OpenVINO projects: NNCF, as OpenVINO's own documentation quantizes.

The project's model (IR or ONNX) is read with OpenVINO and handed to NNCF as an `ov.Model`:

- static: ``nncf.quantize`` calibrated on the samples (post-training quantization: MinMax
  statistics, fast bias correction; ``ModelType.TRANSFORMER`` for attention models, NNCF's
  scheme for them, with SmoothQuant);
- dynamic: ``nncf.compress_weights`` (int8 weights, asymmetric; the CPU plugin computes with
  float activations), which needs no calibration data.

The result is OpenVINO IR (``ov.save_model``, weights not compressed to FP16, so the only
change from the source is the quantization). Dynamic input dimensions stay dynamic, but an
IR does not keep their names (an ONNX ``seq`` reads back as ``?``). nncf and openvino are
imported inside the functions; nncf does not need torch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from perftui.domain.errors import InputError
from perftui.domain.records import Method
from perftui.optimize.quantize import Progress

FUSED_ATTENTION = frozenset({"ScaledDotProductAttention"})
"""OpenVINO operators that are attention themselves."""


def attention_found(model: Any) -> str | None:
    """Why `model` (an ``ov.Model``) is an attention model, in words, or None.

    By structure, not by operator names (a softmax and a Gemm make every classifier): a
    fused attention operator, or a MatMul of two activations (query x key, weights x value),
    where a classifier's MatMul multiplies an activation by constant weights."""
    constant: dict[Any, bool] = {}

    def from_constants(node: Any) -> bool:
        """Whether the node computes from constants alone (weights, however converted)."""
        found = constant.get(node)
        if found is None:
            kind = node.get_type_name()
            found = kind == "Constant" or (
                kind != "Parameter"
                and node.get_input_size() > 0
                and all(from_constants(i.get_source_output().get_node()) for i in node.inputs())
            )
            constant[node] = found
        return found

    for op in model.get_ordered_ops():  # topological: the recursion above stays shallow
        kind = op.get_type_name()
        if kind in FUSED_ATTENTION:
            return f"a fused attention operator ({op.get_friendly_name()})"
        if kind == "MatMul" and not any(
            from_constants(i.get_source_output().get_node()) for i in op.inputs()
        ):
            return f"a MatMul of two activations ({op.get_friendly_name()})"
        from_constants(op)
    return None


WEIGHTED = frozenset({"Convolution", "GroupConvolution", "MatMul"})
"""OpenVINO operators whose second input is a weight that NNCF quantizes when constant."""


def fold_weights(model: Any) -> str | None:
    """Fold the constant subgraphs of `model` (an ``ov.Model``, changed in place) when weights
    are made at load time by ConstantOfShape (old model-zoo graphs), so that they become
    constants, which NNCF quantizes (unfolded, 53 of an old ResNet-50's convolutions stayed
    in float); the note that says so, or None when no weight was made that way."""

    def generated() -> int:
        return sum(
            op.get_type_name() in WEIGHTED
            and _made_by_constant_of_shape(op.input(1).get_source_output().get_node())
            for op in model.get_ordered_ops()
        )

    before = generated()
    if not before:
        return None
    try:
        from openvino import passes
    except ImportError:  # OpenVINO before 2025
        from openvino.runtime import passes
    manager = passes.Manager()
    manager.register_pass(passes.ConstantFolding())
    manager.run_passes(model)
    return (
        f"{before - generated()} of {before} weights made at load time by ConstantOfShape"
        " folded to constants, so NNCF could quantize their layers"
    )


def _made_by_constant_of_shape(node: Any) -> bool:
    """Whether `node` computes from constants alone, one of them a ConstantOfShape (OpenVINO
    reads it as Broadcast of a constant)."""
    seen: set[Any] = set()
    stack, found = [node], False
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        kind = current.get_type_name()
        if kind == "Parameter":
            return False
        found = found or kind == "Broadcast"
        stack.extend(i.get_source_output().get_node() for i in current.inputs())
    return found


def _nncf() -> Any:
    try:
        import nncf
    except ImportError as exc:
        raise InputError(
            f"quantizing an OpenVINO project needs the nncf package ({exc}); install it with"
            " pip install nncf"
        ) from None
    import logging

    nncf.set_log_level(logging.ERROR)
    return nncf


def quantize_openvino(
    source: str | Path,
    target: str | Path,
    method: Method,
    samples: Sequence[Mapping[str, np.ndarray]],
    progress: Progress | None = None,
) -> tuple[str, ...]:
    """INT8 of `source` as OpenVINO IR `target` (``.xml``, its ``.bin`` beside it); what the
    recipe chose, one line each, for the project's notes."""
    import openvino as ov

    from perftui.engines.openvino_config import port_name

    nncf = _nncf()
    report = progress or (lambda phase, done, total: None)
    report("preparing", 0, 0)
    model = ov.Core().read_model(str(source))
    folded = fold_weights(model)
    attention = attention_found(model)
    if method == "static":
        names = [port_name(port) for port in model.inputs]
        total, fed = len(samples), [0]

        def feed(sample: Mapping[str, np.ndarray]) -> list[np.ndarray]:
            # NNCF takes a sample once per statistics pass; the first pass is the calibration
            fed[0] += 1
            if fed[0] <= total:
                report("calibrating", fed[0], total)
            if fed[0] == total:
                report("quantizing", 0, 0)
            return [sample[name] for name in names]

        quantized = nncf.quantize(
            model,
            nncf.Dataset(list(samples), feed),
            subset_size=total,
            model_type=nncf.ModelType.TRANSFORMER if attention else None,
        )
        notes = ["nncf.quantize (post-training, MinMax statistics, fast bias correction)"]
        if attention:
            notes.append(
                f"NNCF's transformer scheme (SmoothQuant), for {attention}: an attention model"
            )
        else:
            notes.append("NNCF's default scheme: no attention found (no MatMul of two activations)")
    else:
        report("quantizing", 0, 0)
        quantized = nncf.compress_weights(model, mode=nncf.CompressWeightsMode.INT8_ASYM)
        notes = ["nncf.compress_weights: int8 weights, float activations"]
    ov.save_model(quantized, str(target), compress_to_fp16=False)
    return (folded, *notes) if folded else tuple(notes)
