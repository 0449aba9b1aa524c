"""A run's figures (perftui.domain.figures: intervals and verdict) as kept in the document for
each project's best runs, so the projects list shows them without reading a run or its
samples.

Stored figures are tagged with a digest of the code that computes them: a version of perftui
whose method differs computes them again instead of showing what another method found. The
domain modules (and numpy) load only when figures are made or read back.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from typing import TYPE_CHECKING, Any

from perftui.domain.records import RunResult

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.figures import Figures
    from perftui.domain.uncertainty import Interval

__all__ = ["figures_doc", "figures_from_doc", "method"]

METHOD_MODULES = ("perftui.domain.figures", "perftui.domain.uncertainty", "perftui.domain.verdict")


@functools.cache
def method() -> str:
    """A digest of the source of the modules that compute figures (read, not imported)."""
    digest = hashlib.sha256()
    for name in METHOD_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            with open(spec.origin, "rb") as handle:
                digest.update(handle.read())
    return digest.hexdigest()[:16]


def _interval(found: Interval | None) -> dict[str, Any] | None:
    if found is None:
        return None
    return {
        "value": found.value,
        "lo": found.lo,
        "hi": found.hi,
        "n": found.n,
        "open_ends": list(found.open_ends),
        "log_se": found.log_se,
        "df": found.df,
    }


def figures_doc(run: RunResult, samples_ms: np.ndarray | None) -> dict[str, Any]:
    """The run's figures as stored."""
    from perftui.domain.figures import run_figures

    found = run_figures(run, samples_ms)
    return {
        "throughput_fps": found.throughput_fps,
        "throughput": _interval(found.throughput),
        "latency": {name: _interval(value) for name, value in found.latency.items()},
        "verdict": {"status": found.verdict.status, "reasons": list(found.verdict.reasons)},
    }


def figures_from_doc(doc: dict[str, Any]) -> Figures:
    """The Figures `figures_doc` stored; ValueError (or KeyError/TypeError) if `doc` is not
    one."""
    from perftui.domain.figures import Figures
    from perftui.domain.uncertainty import Interval
    from perftui.domain.verdict import Verdict

    def interval(value: dict[str, Any] | None) -> Interval | None:
        if value is None:
            return None
        lower, upper = value["open_ends"]
        return Interval(
            float(value["value"]),
            float(value["lo"]),
            float(value["hi"]),
            int(value["n"]),
            (bool(lower), bool(upper)),
            value["log_se"],
            value["df"],
        )

    latency = {str(name): interval(value) for name, value in doc["latency"].items()}
    verdict = doc["verdict"]
    return Figures(
        throughput_fps=float(doc["throughput_fps"]),
        throughput=interval(doc["throughput"]),
        latency={name: value for name, value in latency.items() if value is not None},
        verdict=Verdict(str(verdict["status"]), tuple(str(r) for r in verdict["reasons"])),
    )
