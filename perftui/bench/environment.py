"""What machine and software a run was measured on."""

from __future__ import annotations

import os
import platform
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

import perftui
from perftui.engines import CAPABILITIES

ISA_FLAGS = (
    "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
    "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile", "amx_int8", "amx_bf16", "amx_fp16",
)  # fmt: skip
"""The /proc/cpuinfo flags that decide how fast INT8, BF16 and FP16 run
(perftui.domain.measurement.context reads them)."""

GOVERNOR = Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")


def parse_cpuinfo(text: str) -> dict[str, Any]:
    """CPU model, physical cores, sockets and the ISA_FLAGS present, from /proc/cpuinfo's
    text; counts are None where the text does not say (a VM may hide its topology)."""
    model: str | None = None
    cores: set[tuple[str, str]] = set()
    sockets: set[str] = set()
    flags: list[str] = []
    physical = "0"
    for line in text.splitlines():
        key, _, value = (part.strip() for part in line.partition(":"))
        if key == "model name" and model is None:
            model = value
        elif key == "physical id":
            physical = value
            sockets.add(value)
        elif key == "core id":
            cores.add((physical, value))
        elif key == "flags" and not flags:
            flags = value.split()
    return {
        "cpu_model": model,
        "physical_cores": len(cores) or None,
        "sockets": len(sockets) or None,
        "isa": [flag for flag in ISA_FLAGS if flag in flags],
    }


def _read(path: str | Path) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        return None


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


@cache
def environment() -> dict[str, Any]:
    """CPU model, cores, sockets, frequency governor, ISA flags of interest, OS and
    software versions. An empty `isa` means the flags could not be read (no /proc/cpuinfo,
    or a CPU that is not x86)."""
    cpu = parse_cpuinfo(_read("/proc/cpuinfo") or "")
    governor = _read(GOVERNOR)
    return {
        **cpu,
        "cpu_model": cpu["cpu_model"] or platform.processor() or platform.machine(),
        "arch": platform.machine(),
        "logical_cores": os.cpu_count(),
        "governor": governor.strip() if governor else None,
        "os": platform.platform(),
        "python": platform.python_version(),
        "perftui": perftui.__version__,
        **{c.engine: _version(c.package) for c in CAPABILITIES.values()},
        "numpy": _version("numpy"),
    }
