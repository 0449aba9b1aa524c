"""OpenVINO's per-layer performance counters as per-layer rows (see
`OpenVinoPrepared.layer_profile` for how the counters are read)."""

from __future__ import annotations

import openvino as ov

from perftui.domain.model.profile import precision_from_exec_type
from perftui.domain.records import LayerProfile
from perftui.engines.openvino_config import compiled_property

__all__ = ["counters_are_cumulative", "layer_rows"]


_STATUS = {"EXECUTED": "executed", "NOT_RUN": "not_run", "OPTIMIZED_OUT": "optimized_out"}


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
