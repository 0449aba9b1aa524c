"""OpenVINO's per-layer performance counters as per-layer rows (see
`OpenVinoPrepared.layer_profile` for how the counters are read)."""

from __future__ import annotations

import openvino as ov

from perftui.domain.records import LayerProfile
from perftui.engines.openvino_config import compiled_property

__all__ = ["counters_are_cumulative", "layer_rows", "precision_from_exec_type"]


_STATUS = {"EXECUTED": "executed", "NOT_RUN": "not_run", "OPTIMIZED_OUT": "optimized_out"}
_PRECISION_NAMES = {
    "FP32": "FP32",
    "F32": "FP32",
    "FP16": "FP16",
    "F16": "FP16",
    "BF16": "BF16",
    "FP64": "FP64",
    "F64": "FP64",
    "I4": "I4",
    "U4": "U4",
    "I8": "I8",
    "U8": "U8",
    "I16": "I16",
    "U16": "U16",
    "I32": "I32",
    "U32": "U32",
    "I64": "I64",
    "U64": "U64",
    "U1": "U1",
    "BOOLEAN": "BOOL",
    "BOOL": "BOOL",
}
"""Runtime precision names, normalised to the vocabulary both engines report (FP32, I8, ...)."""


def precision_from_exec_type(exec_type: str) -> str:
    """Runtime precision from an exec_type suffix: "jit_avx2_I8" -> "I8",
    "brgconv_avx2_f32" -> "FP32"; "" when the suffix names no precision ("undef")."""
    suffix = exec_type.rsplit("_", 1)[-1].upper() if exec_type else ""
    return _PRECISION_NAMES.get(suffix, "")


def counters_are_cumulative(compiled: ov.CompiledModel) -> bool:
    """True where the executing devices are CPU, whose counters are running averages."""
    devices = compiled_property(compiled, "EXECUTION_DEVICES") or []
    return bool(devices) and all(str(d).upper().startswith("CPU") for d in devices)


def _original_names(compiled: ov.CompiledModel) -> dict[str, tuple[str, ...]]:
    """Runtime node name -> the names of the original model's nodes fused into it."""
    names: dict[str, tuple[str, ...]] = {}
    try:
        ops = compiled.get_runtime_model().get_ordered_ops()
    except RuntimeError:
        return names
    for op in ops:
        info = op.get_rt_info()
        if "originalLayersNames" not in info:
            continue
        value = str(info["originalLayersNames"].astype(str))
        parts = [part for part in (p.strip() for p in value.split(",")) if part]
        for part in list(parts):
            # the ONNX frontend splits a Conv with bias into "<name>/WithoutBiases" + Add
            base = part.removesuffix("/WithoutBiases")
            if base != part and base not in parts:
                parts.append(base)
        if parts:
            names[op.get_friendly_name()] = tuple(parts)
    return names


def layer_rows(
    compiled: ov.CompiledModel, infos: list[ov.ProfilingInfo], times: dict[str, float]
) -> list[LayerProfile]:
    """One row per counter, with `times` (seconds per request by node name) as its time."""
    originals = _original_names(compiled)
    rows = []
    for info in infos:
        status = _STATUS.get(info.status.name, info.status.name.lower())
        precision = precision_from_exec_type(info.exec_type) if status == "executed" else ""
        rows.append(
            LayerProfile(
                name=info.node_name,
                type=info.node_type,
                exec_type=info.exec_type,
                precision=precision,
                status=status,
                time_ms=round(max(0.0, times.get(info.node_name, 0.0)) * 1000.0, 6),
                original_names=originals.get(info.node_name, ()),
            )
        )
    return rows
