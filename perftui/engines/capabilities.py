"""Each engine's capabilities, readable without loading the engine's library (the dashboard
and the CLI ask them before any engine is imported). The one list of engine names."""

from __future__ import annotations

from perftui.domain.capabilities import Capabilities
from perftui.domain.errors import InputError

_COMMON = frozenset({"batch", "threads", "requests", "api", "dims", "rate", "arrival"})
_ONNX_STANDARD = frozenset({"", "ai.onnx", "ai.onnx.ml"})

OPENVINO = Capabilities(
    engine="openvino",
    title="OpenVINO",
    short="ov",
    settings=_COMMON | {"streams", "hint", "precision", "pinning"},
    precisions=("f32", "bf16", "f16"),
    formats=("onnx", "openvino-ir"),
    quantizer="nncf",
    quantizer_title="NNCF",
    onnx_domains=_ONNX_STANDARD | {"com.microsoft", "org.openvinotoolkit", "org.pytorch.aten"},
    package="openvino",
    version_label="OpenVINO",
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
    onnx_domains=_ONNX_STANDARD
    | {
        "ai.onnx.training",
        "ai.onnx.preview.training",
        "com.microsoft",
        "com.microsoft.nchwc",
        "com.microsoft.experimental",
        "com.ms.internal.nhwc",
    },
    package="onnxruntime",
    version_label="ONNX RT",
)
CAPABILITIES = {c.engine: c for c in (OPENVINO, ONNXRUNTIME)}
ENGINES = tuple(CAPABILITIES)
"""The engines' names, as stored and typed (`--engine`'s choices)."""
DEFAULT_ENGINE = OPENVINO.engine
"""The engine a model gets where none is chosen, whatever its format (OpenVINO reads ONNX and
IR alike): `bench --engine`'s default and the New project screen's first choice."""


def capabilities(engine: str) -> Capabilities:
    """The capabilities of the engine called `engine`; InputError for an unknown name."""
    found = CAPABILITIES.get(engine)
    if found is None:
        raise InputError(f"unknown engine {engine!r}; choose one of: {', '.join(CAPABILITIES)}")
    return found
