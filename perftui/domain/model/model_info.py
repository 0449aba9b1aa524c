"""What model inspection found in a model file (perftui.inspection reads it; these are data)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from perftui.domain.records import TensorSpec

__all__ = ["FLOPS_CONVENTION", "ModelInfo", "NodeFlops"]

FLOPS_CONVENTION = "2 x multiply-accumulates"
"""What a FLOP count means everywhere perftui shows one (a ResNet-50's 4.09 GMAC is 8.18 G)."""


@dataclass(frozen=True)
class NodeFlops:
    """Theoretical FLOPs of one node at batch 1: 2 x multiply-accumulates, or per element."""

    name: str
    op_type: str
    flops: int
    known: bool = True
    """False where the node's shapes could not be inferred (its `flops` are then 0)."""
    cheap: bool = False
    """A cheap op (elementwise, normalisation, softmax), counted per element, not in
    `ModelInfo.flops`."""
    fused_names: tuple[str, ...] = ()
    """The elementwise nodes this node's output flows into, one consumer at a time (bias Add,
    activation): engines fuse them into one kernel and may name it after the last of them
    (OpenVINO's FullyConnected takes the bias Add's name and drops the MatMul's)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "op_type": self.op_type,
            "flops": self.flops,
            "known": self.known,
            "cheap": self.cheap,
            "fused_names": list(self.fused_names),
        }


@dataclass(frozen=True)
class ModelInfo:
    """What `inspect_model` found in a model file (conventions: perftui.inspection.conventions)."""

    path: str
    format: str  # "onnx" | "openvino-ir"
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    op_counts: dict[str, int]
    parameters: int
    parameter_bytes: int
    flops: int
    """Of the Conv / MatMul-like nodes (2 x multiply-accumulates)."""
    node_flops: tuple[NodeFlops, ...]
    flops_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Static input shapes the FLOPs were computed for."""

    @property
    def cheap_flops(self) -> int:
        """Of the cheap ops (elementwise, normalisation, softmax), not in `flops`."""
        return sum(node.flops for node in self.node_flops if node.cheap)

    @property
    def unknown_flops(self) -> tuple[NodeFlops, ...]:
        """Counted nodes whose FLOPs are unknown (their shapes could not be inferred)."""
        return tuple(node for node in self.node_flops if not node.known)

    @property
    def dynamic(self) -> bool:
        """True when some input has a dynamic dimension."""
        return any(spec.dynamic_dims for spec in self.inputs)

    def flops_at(self) -> str:
        """The shapes `flops` are at, in a few words: 'batch 2, seq=32' (the first input's
        first dimension, then each dynamic dimension by its name; an input with a dimension
        the model does not name, whole: 'x[1,3,128,128]')."""
        said: list[str] = []
        for spec in self.inputs:
            dims = self.flops_shapes.get(spec.name)
            if dims is None:
                continue
            if not said and dims:
                said.append(f"batch {dims[0]}")
            later = [i for i in spec.dynamic_dims if i > 0 and i < len(dims)]
            if any(not isinstance(spec.shape[i], str) or spec.shape[i] == "?" for i in later):
                said.append(spec.name + "[" + ",".join(str(d) for d in dims) + "]")
                continue
            said += [f"{spec.shape[i]}={dims[i]}" for i in later]
        return ", ".join(dict.fromkeys(said)) or "shapes unknown"

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (`perftui inspect --json`)."""
        return {
            "path": self.path,
            "format": self.format,
            "inputs": [spec.to_dict() for spec in self.inputs],
            "outputs": [spec.to_dict() for spec in self.outputs],
            "op_counts": dict(self.op_counts),
            "parameters": self.parameters,
            "parameter_bytes": self.parameter_bytes,
            "flops": self.flops,
            "flops_convention": FLOPS_CONVENTION,
            "flops_shapes": {k: list(v) for k, v in self.flops_shapes.items()},
            "node_flops": [n.to_dict() for n in self.node_flops],
            "flops_cheap": self.cheap_flops,
            "flops_unknown": [n.name for n in self.unknown_flops],
        }
