"""ONNX Runtime's profiler output as per-layer rows: kernel times per node of the optimized
graph, their runtime precision, and the original ONNX nodes fused into each."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import onnx

from perftui.domain.records import LayerProfile

__all__ = ["load_graph", "load_graph_bytes", "precision_from_types", "profile_rows"]


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


def load_graph(path: Path) -> onnx.GraphProto | None:
    try:
        return onnx.load(str(path), load_external_data=False).graph
    except Exception:  # no optimized model written (e.g. a provider that cannot save it)
        return None


def load_graph_bytes(data: bytes) -> onnx.GraphProto | None:
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
        if anchor is None or anchor not in self._nodes:
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
