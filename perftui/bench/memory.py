"""Reads the worker's own resident memory around a run's phases (perftui.domain.measurement.memory).

Linux keeps a process's peak resident size as `VmHWM` in /proc/self/status, and writing "5"
to /proc/self/clear_refs sets it back to the present size: a reset before a phase and one
read after it give that phase's peak, with no sampling thread and nothing done while the
timed window runs. Where the files cannot be read (another OS), a figure is None; where the
kernel refuses the reset, the peaks are None (the high-water mark would then include
earlier phases) and the sizes still known.

PERFTUI_MEMORY=0 in the environment turns the readings off (benchmarks/memory_overhead.py).
"""

from __future__ import annotations

import os
from pathlib import Path

from perftui.domain.measurement.memory import MIB, RunMemory

STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")
MEMINFO = Path("/proc/meminfo")
SWITCH = "PERFTUI_MEMORY"


def _kib_fields(path: Path, names: tuple[str, ...]) -> dict[str, float]:
    """The named 'Name:  1234 kB' lines of a /proc file, in MiB ({} where unreadable)."""
    found: dict[str, float] = {}
    try:
        with path.open("rb") as handle:
            for line in handle:
                key, _, rest = line.partition(b":")
                name = key.decode("ascii", "replace")
                if name in names:
                    parts = rest.split()
                    if parts and parts[-1] == b"kB":
                        found[name] = int(parts[0]) * 1024 / MIB
    except (OSError, ValueError):
        return {}
    return found


def sizes(status: Path = STATUS) -> tuple[float | None, float | None]:
    """(peak since the last reset, resident now) in MiB; None each where unknown."""
    found = _kib_fields(status, ("VmHWM", "VmRSS"))
    return found.get("VmHWM"), found.get("VmRSS")


def reset_peak(clear_refs: Path = CLEAR_REFS) -> bool:
    """Set the peak back to the present size; False where the kernel refuses."""
    try:
        with clear_refs.open("w", encoding="ascii") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def available_mib(meminfo: Path = MEMINFO) -> float | None:
    """The machine's MemAvailable in MiB, None where unknown."""
    return _kib_fields(meminfo, ("MemAvailable",)).get("MemAvailable")


def model_size_mib(model_path: str) -> float | None:
    """The model's files on disk: an ONNX file (external data not counted), or an IR's
    .xml and .bin; None where they cannot be read."""
    path = Path(model_path)
    try:
        total = path.stat().st_size
        if path.suffix.lower() == ".xml":
            weights = path.with_suffix(".bin")
            total += weights.stat().st_size if weights.exists() else 0
    except OSError:
        return None
    return total / MIB


def release_freed() -> None:
    """Hand memory an earlier run freed back to the system (glibc's malloc_trim), so that a
    run's figures stand less on an earlier run's leftovers; nothing where there is no glibc."""
    import gc

    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


_BASELINE: list[float | None] = []
"""This process's resident size before it read its first model (read once, then kept)."""


def worker_baseline() -> float | None:
    """The worker's own size before its first model was read: the interpreter, perftui and
    the engine's libraries (what a later run holds above it is that run's cost, and what
    earlier runs left behind)."""
    if not _BASELINE:
        _BASELINE.append(sizes()[1])
    return _BASELINE[0]


def enabled() -> bool:
    return os.environ.get(SWITCH, "1").strip().lower() not in ("0", "off", "no", "false")


class MemoryProbe:
    """One run's readings, taken by the worker at the edges of its phases:
    `before_read()`, `after_compile()`, `window_start()`, `window_end()`, then `result()`."""

    def __init__(self, model_path: str, on: bool | None = None) -> None:
        self.model_path = model_path
        self.on = enabled() if on is None else on
        self.baseline: float | None = None
        self.compile_peak: float | None = None
        self.window_peak: float | None = None
        self.end: float | None = None
        self.available: float | None = None
        self._compile_reset = self._window_reset = False

    def before_read(self) -> None:
        if self.on:
            release_freed()
            self.baseline = worker_baseline()
            self._compile_reset = reset_peak()

    def after_compile(self) -> None:
        if self.on:
            peak, _ = sizes()
            self.compile_peak = peak if self._compile_reset else None

    def window_start(self) -> None:
        if self.on:
            self._window_reset = reset_peak()

    def window_end(self) -> None:
        if self.on:
            peak, self.end = sizes()
            self.window_peak = peak if self._window_reset else None
            self.available = available_mib()

    def result(self) -> RunMemory | None:
        """The readings (None when turned off)."""
        if not self.on:
            return None
        return RunMemory(
            baseline_mib=self.baseline,
            compile_peak_mib=self.compile_peak,
            window_peak_mib=self.window_peak,
            end_mib=self.end,
            model_mib=model_size_mib(self.model_path),
            available_mib=self.available,
        )
