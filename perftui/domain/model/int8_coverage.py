"""How much of an INT8 model's time runs in 8-bit layers, and which compute layers stayed
in float: an INT8 model that barely quantized (8 of 138 layers, its convolutions in BF16)
is measured as INT8 but is not one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perftui.domain.records import EXECUTED, LayerProfile

INT8_PRECISIONS = frozenset({"I8", "U8"})
"""Runtime precisions of a profile's layers (perftui.engines' vocabulary) that mean INT8."""
COMPUTE_TYPES = frozenset(
    {"Convolution", "GroupConvolution", "FullyConnected", "MatMul", "Gemm", "Conv", "Deconvolution"}
)
"""Layer types that quantization is for: the products that take a model's time."""


@dataclass(frozen=True)
class Int8Coverage:
    share: float
    """The share of the profiled time spent in 8-bit layers."""
    layers: int
    executed: int
    in_float: tuple[tuple[str, int, float], ...]
    """Compute layer types that kept float layers: (type, layers, share of the time)."""

    def text(self) -> str:
        """'62% of the time in 8-bit layers (28 of 58); still in float: GroupConvolution
        (16 layers, 30% of the time)'."""
        head = f"{100 * self.share:.0f}% of the time in 8-bit layers ({self.layers} of"
        head += f" {self.executed})"
        if not self.in_float:
            return head
        kept = ", ".join(
            f"{kind} ({count} layer{'s' if count != 1 else ''}, {100 * share:.0f}% of the time)"
            for kind, count, share in self.in_float
        )
        return f"{head}; still in float: {kept}"


def int8_coverage(layers: Sequence[LayerProfile]) -> Int8Coverage | None:
    """The coverage of a profile; None without executed layers or without any time."""
    executed = [layer for layer in layers if layer.status == EXECUTED]
    total = sum(layer.time_ms for layer in executed)
    if not executed or total <= 0:
        return None
    eight = [layer for layer in executed if layer.precision in INT8_PRECISIONS]
    kept: dict[str, tuple[int, float]] = {}
    for layer in executed:
        if layer.type in COMPUTE_TYPES and layer.precision not in INT8_PRECISIONS:
            count, time_ms = kept.get(layer.type, (0, 0.0))
            kept[layer.type] = (count + 1, time_ms + layer.time_ms)
    in_float = tuple(
        (kind, count, time_ms / total)
        for kind, (count, time_ms) in sorted(kept.items(), key=lambda kv: -kv[1][1])
    )
    return Int8Coverage(
        share=sum(layer.time_ms for layer in eight) / total,
        layers=len(eight),
        executed=len(executed),
        in_float=in_float,
    )
