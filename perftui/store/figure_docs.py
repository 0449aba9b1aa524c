"""Figures (domain.measurement.figures: intervals and verdict) as stored documents: each run's
in its shard line, each project's headline configurations' in its figures file, so neither
showing a project nor the projects list reads samples.

Stored figures are tagged with the `METHOD` that computed them: a version of perftui whose
method differs computes them again instead of showing what another method found. The domain
modules (and numpy) load only when figures are made or read back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from perftui.domain.records import RunResult

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.measurement.figures import Figures
    from perftui.domain.measurement.uncertainty import Interval

__all__ = ["METHOD", "encoded", "figures_doc", "figures_from_doc"]

METHOD = "5"
"""The version of how figures are computed (domain.measurement: figures, uncertainty,
verdict) and stored here. Figures stored by another method are computed again, not shown
as if this one found them: change it with any change to what those modules compute
(tests/test_figures_method.py fails until it is changed)."""


def _interval(found: Interval | None) -> list[Any] | None:
    """[value, lo, hi, n, lower end open, upper end open, log_se, df]: a list, since the
    figures of each project's best runs are parsed and written with the document by every
    write."""
    if found is None:
        return None
    lower, upper = found.open_ends
    return [
        found.value,
        found.lo,
        found.hi,
        found.n,
        int(lower),
        int(upper),
        found.log_se,
        found.df,
    ]


def figures_doc(run: RunResult, samples_ms: np.ndarray | None) -> dict[str, Any]:
    """The run's figures as stored."""
    from perftui.domain.measurement.figures import run_figures

    return encoded(run_figures(run, samples_ms))


def encoded(found: Figures) -> dict[str, Any]:
    """`found` as stored (`figures_from_doc` reads it back equal)."""
    return {
        "fps": found.throughput_fps,
        "t": _interval(found.throughput),
        "l": {name: _interval(value) for name, value in found.latency.items()},
        "v": found.verdict.status,
        "r": list(found.verdict.reasons),
    }


def figures_from_doc(doc: dict[str, Any]) -> Figures:
    """The Figures `figures_doc` stored; ValueError (or KeyError/TypeError) if `doc` is not
    one."""
    from perftui.domain.measurement.figures import Figures
    from perftui.domain.measurement.uncertainty import Interval
    from perftui.domain.measurement.verdict import Verdict

    def interval(value: list[Any] | None) -> Interval | None:
        if value is None:
            return None
        found, lo, hi, n, lower, upper, log_se, df = value
        return Interval(
            float(found), float(lo), float(hi), int(n), (bool(lower), bool(upper)), log_se, df
        )

    latency = {str(name): interval(value) for name, value in doc["l"].items()}
    return Figures(
        throughput_fps=float(doc["fps"]),
        throughput=interval(doc["t"]),
        latency={name: value for name, value in latency.items() if value is not None},
        verdict=Verdict(str(doc["v"]), tuple(str(r) for r in doc["r"])),
    )
