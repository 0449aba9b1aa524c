"""What a run costs in memory: its resident size (RSS) around the phases of one run.

The worker reads them (perftui.bench.memory): the peak while the model is read and compiled,
the peak in the timed window and the resident size at the window's end, each also as the
increase over the worker's own size before it read its first model (the interpreter and the
engine libraries are not the model's cost). A figure that could not be had is None
("unknown"), never 0. Every figure is in MiB (2**20 bytes).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

MIB = 1024 * 1024
CLOSE_TO_AVAILABLE = 0.90
"""A peak from this share of the memory the run could have had (what it held at the window's
end plus what the machine still had available) is close to running out: the machine may have
reclaimed caches or swapped, and a neighbour would not have fitted."""


@dataclass(frozen=True)
class RunMemory:
    """Resident memory of one run, in MiB; None where it is unknown."""

    baseline_mib: float | None = None
    """The worker's resident size before it read its first model."""
    compile_peak_mib: float | None = None
    """The peak while the model was read and compiled."""
    window_peak_mib: float | None = None
    """The peak during the timed window."""
    end_mib: float | None = None
    """The resident size at the window's end."""
    model_mib: float | None = None
    """The model's files on disk (an IR's .xml and .bin)."""
    available_mib: float | None = None
    """The machine's available memory (MemAvailable) at the window's end."""

    @staticmethod
    def _over(value: float | None, base: float | None) -> float | None:
        return None if value is None or base is None else max(0.0, value - base)

    @property
    def compile_increase_mib(self) -> float | None:
        return self._over(self.compile_peak_mib, self.baseline_mib)

    @property
    def window_increase_mib(self) -> float | None:
        return self._over(self.window_peak_mib, self.baseline_mib)

    @property
    def end_increase_mib(self) -> float | None:
        return self._over(self.end_mib, self.baseline_mib)

    @property
    def peak_mib(self) -> float | None:
        """The larger of the two peaks that are known (None if neither is)."""
        known = [v for v in (self.compile_peak_mib, self.window_peak_mib) if v is not None]
        return max(known) if known else None

    @property
    def known(self) -> bool:
        return any(getattr(self, f.name) is not None for f in fields(self))

    def to_dict(self) -> dict[str, float | None]:
        """The measured figures and the three increases over the baseline (derived, so
        `from_dict` ignores them)."""
        out: dict[str, float | None] = {f.name: getattr(self, f.name) for f in fields(self)}
        out["compile_increase_mib"] = self.compile_increase_mib
        out["window_increase_mib"] = self.window_increase_mib
        out["end_increase_mib"] = self.end_increase_mib
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> RunMemory | None:
        """None for a run stored before memory was measured (or a document without it)."""
        if not isinstance(data, dict):
            return None

        def value(name: str) -> float | None:
            raw = data.get(name)
            if raw is None or isinstance(raw, bool):
                return None
            try:
                number = float(raw)
            except (TypeError, ValueError):
                return None
            return number if number >= 0 and number == number else None

        return cls(**{f.name: value(f.name) for f in fields(cls)})


def window_peak(memory: RunMemory | None) -> float | None:
    """A run's peak in the timed window (MiB), None when unknown."""
    return None if memory is None else memory.window_peak_mib


def mean_known(values: Iterable[float | None]) -> float | None:
    """The mean of the known values (repetitions of one configuration), None if none is."""
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def spread_mib(values: Iterable[float | None]) -> float | None:
    """Max - min of the known values, None for fewer than two."""
    known = [v for v in values if v is not None]
    return max(known) - min(known) if len(known) > 1 else None


def mib_text(value: float | None, *, missing: str = "-") -> str:
    """'123.4' below 1,000 MiB, '1,234' from there; `missing` for an unknown figure."""
    if value is None:
        return missing
    return f"{value:,.1f}" if value < 1000 else f"{value:,.0f}"


def memory_findings(memory: RunMemory | None) -> list[str]:
    """A reason when a peak came close to the memory the run could have had."""
    if memory is None or memory.available_mib is None or memory.end_mib is None:
        return []
    peak = memory.peak_mib
    room = memory.available_mib + memory.end_mib
    if peak is None or room <= 0 or peak < CLOSE_TO_AVAILABLE * room:
        return []
    return [
        f"memory: its peak {mib_text(peak)} MiB came within {1 - CLOSE_TO_AVAILABLE:.0%} of "
        f"the {mib_text(room)} MiB it could have had; the machine may have swapped"
    ]


def runs_peak_text(memories: Iterable[RunMemory | None], *, compile: bool = False) -> str:
    """The timed window's peak (`compile`: the compile peak) of one configuration's runs:
    '223.6', or with repetitions their mean and half their range, '223.6 ±1.2'; '?' where no
    run's peak is known."""
    peaks = [
        (m.compile_peak_mib if compile else m.window_peak_mib) if m else None for m in memories
    ]
    mean = mean_known(peaks)
    if mean is None:
        return "?"
    spread = spread_mib(peaks)
    return mib_text(mean) + (f" ±{mib_text(spread / 2)}" if spread is not None else "")


def run_peak(run: Any) -> float | None:
    """A run's (perftui.domain.records.RunResult) overall peak: compile or window, MiB."""
    memory = getattr(run, "memory", None)
    return None if memory is None else memory.peak_mib


def fits_memory(run: Any, max_memory_mib: float | None) -> bool:
    """True without a limit, else when the run's peak is known and at or under it (a run
    whose peak is unknown cannot be shown to fit)."""
    if max_memory_mib is None:
        return True
    peak = run_peak(run)
    return peak is not None and peak <= max_memory_mib


@dataclass(frozen=True)
class MemoryRatio:
    """B/A of two configurations' timed-window peaks (their repetitions' mean), and of the
    increases over each worker's baseline."""

    a_mib: float
    b_mib: float
    a_increase_mib: float | None
    b_increase_mib: float | None

    @property
    def ratio(self) -> float:
        return self.b_mib / self.a_mib

    @property
    def increase_ratio(self) -> float | None:
        a, b = self.a_increase_mib, self.b_increase_mib
        return b / a if a and b is not None else None

    @property
    def text(self) -> str:
        """'memory B/A 0.62x: peak 98.9 vs 158.3 MiB (model's own 24.4 vs 83.3 MiB, 0.29x)'."""
        own = ""
        if self.a_increase_mib is not None and self.b_increase_mib is not None:
            own = f" (above the baseline {mib_text(self.a_increase_mib)} vs "
            own += f"{mib_text(self.b_increase_mib)} MiB"
            own += f", {self.increase_ratio:.2f}x)" if self.increase_ratio is not None else ")"
        return (
            f"memory B/A {self.ratio:.2f}x: window peak {mib_text(self.a_mib)} vs "
            f"{mib_text(self.b_mib)} MiB{own}"
        )

    def to_dict(self) -> dict[str, float | None]:
        return {
            "ratio": self.ratio,
            "a_peak_mib": self.a_mib,
            "b_peak_mib": self.b_mib,
            "a_increase_mib": self.a_increase_mib,
            "b_increase_mib": self.b_increase_mib,
            "increase_ratio": self.increase_ratio,
        }


def memory_ratio(
    a: Iterable[RunMemory | None], b: Iterable[RunMemory | None]
) -> MemoryRatio | None:
    """B/A of the window peaks of two configurations' runs; None where either is unknown."""
    a, b = list(a), list(b)
    a_peak = mean_known(m.window_peak_mib if m else None for m in a)
    b_peak = mean_known(m.window_peak_mib if m else None for m in b)
    if a_peak is None or b_peak is None or a_peak <= 0:
        return None
    return MemoryRatio(
        a_peak,
        b_peak,
        mean_known(m.window_increase_mib if m else None for m in a),
        mean_known(m.window_increase_mib if m else None for m in b),
    )
