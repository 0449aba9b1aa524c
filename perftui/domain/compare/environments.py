"""Two recorded environments side by side: what a comparison across machines rests on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from perftui.domain.measurement.context import BF16_ISA, F16_ISA, INT8_ISA

DASH = "—"
VECTORS = (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("avx", "AVX"), ("sse4_2", "SSE4.2"))
AMX = ("amx_tile", "amx_int8", "amx_bf16", "amx_fp16")


class EnvRow(NamedTuple):
    label: str
    a: str
    b: str

    @property
    def differs(self) -> bool:
        return self.a != self.b


def _cores(env: Mapping[str, Any]) -> str:
    if not env:
        return DASH
    text = f"{env.get('physical_cores') or '?'} phys, {env.get('logical_cores') or '?'} log"
    sockets = env.get("sockets")
    return f"{text}, {sockets} sockets" if sockets and sockets > 1 else text


def _flags(env: Mapping[str, Any], wanted: tuple[str, ...]) -> str:
    if not env.get("isa"):
        return DASH
    return " ".join(flag for flag in wanted if flag in env["isa"]) or "no"


def _vectors(env: Mapping[str, Any]) -> str:
    isa = env.get("isa") or ()
    return next((name for flag, name in VECTORS if flag in isa), DASH)


FIELDS = (
    ("Target", lambda env: str(env.get("target") or "local") if env else DASH),
    ("CPU", lambda env: str(env.get("cpu_model") or DASH)),
    ("Cores", _cores),
    ("Vectors", _vectors),
    ("INT8 ISA", lambda env: _flags(env, INT8_ISA)),
    ("BF16/FP16", lambda env: _flags(env, BF16_ISA + F16_ISA)),
    ("AMX", lambda env: _flags(env, AMX)),
    # each engine's version, under its name: the row is its capabilities' version_label
    # (tests/test_capabilities.py checks one row per engine)
    ("OpenVINO", lambda env: str(env.get("openvino") or DASH)),
    ("ONNX RT", lambda env: str(env.get("onnxruntime") or DASH)),
    ("perftui", lambda env: str(env.get("perftui") or DASH)),
    ("Governor", lambda env: str(env.get("governor") or DASH)),
    ("OS", lambda env: str(env.get("os") or DASH)),
)


def environment_rows(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[EnvRow]:
    """One row per property of the machine and its software, A's and B's ({}: none)."""
    return [EnvRow(label, show(a), show(b)) for label, show in FIELDS]


def environment_differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[EnvRow]:
    """The rows in which two recorded environments differ (the host, CPU, cores, ISA, engine
    versions, governor, ...): what a B/A across machines measures besides the model; empty
    when either is unknown ({})."""
    if not a or not b:
        return []
    return [row for row in environment_rows(a, b) if row.differs]
