"""What machine and software a run was measured on."""

from __future__ import annotations

import os
import platform
from functools import cache
from importlib import metadata
from typing import Any

import perftui

ISA_FLAGS = (
    "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
    "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile", "amx_int8", "amx_bf16", "amx_fp16",
)  # fmt: skip


def _cpuinfo() -> tuple[str, int | None, list[str]]:
    model, cores, flags = platform.processor() or platform.machine(), set(), []
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            text = handle.read()
    except OSError:
        return model, None, flags
    physical = "0"
    for line in text.splitlines():
        key, _, value = (part.strip() for part in line.partition(":"))
        if key == "model name":
            model = value
        elif key == "physical id":
            physical = value
        elif key == "core id":
            cores.add((physical, value))
        elif key == "flags" and not flags:
            flags = value.split()
    return model, len(cores) or None, flags


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


@cache
def environment() -> dict[str, Any]:
    """CPU model, core counts, ISA flags of interest, OS and software versions."""
    model, physical_cores, flags = _cpuinfo()
    return {
        "cpu_model": model,
        "logical_cores": os.cpu_count(),
        "physical_cores": physical_cores,
        "isa": [flag for flag in ISA_FLAGS if flag in flags],
        "os": platform.platform(),
        "python": platform.python_version(),
        "perftui": perftui.__version__,
        "openvino": _version("openvino"),
        "onnxruntime": _version("onnxruntime"),
        "numpy": _version("numpy"),
    }
