"""Each engine's capabilities, readable without loading the engine's library (the dashboard
and the CLI ask them before any engine is imported)."""

from __future__ import annotations

from perftui.domain.capabilities import Capabilities
from perftui.domain.errors import InputError

_COMMON = frozenset({"batch", "threads", "requests", "api", "dims"})

OPENVINO = Capabilities(
    engine="openvino",
    title="OpenVINO",
    short="ov",
    settings=_COMMON | {"streams", "hint", "precision", "pinning"},
    precisions=("f32", "bf16", "f16"),
    formats=("onnx", "openvino-ir"),
    quantizer="nncf",
    quantizer_title="NNCF",
)
ONNXRUNTIME = Capabilities(
    engine="onnxruntime",
    title="ONNX Runtime",
    short="ort",
    settings=_COMMON,
    precisions=(),
    formats=("onnx",),
    quantizer="onnxruntime",
    quantizer_title="ONNX Runtime quantization",
)
CAPABILITIES = {c.engine: c for c in (OPENVINO, ONNXRUNTIME)}


def capabilities(engine: str) -> Capabilities:
    """The capabilities of the engine called `engine`; InputError for an unknown name."""
    found = CAPABILITIES.get(engine)
    if found is None:
        raise InputError(f"unknown engine {engine!r}; choose one of: {', '.join(CAPABILITIES)}")
    return found
