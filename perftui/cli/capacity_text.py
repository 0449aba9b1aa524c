"""`perftui capacity`'s output: a search run's progress line, the capacity as text (with the
closed-loop maximum beside it and the traffic curve as a table) and as the JSON document."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from perftui.cli.textfmt import table
from perftui.domain.traffic.capacity import judge
from perftui.domain.traffic.wording import bracket_text, rate_text, verdict_text
from perftui.domain.units import ms

if TYPE_CHECKING:
    from perftui.domain.compare.capacity import CapacityRatio
    from perftui.domain.measurement.figures import Figures
    from perftui.domain.measurement.uncertainty import Interval
    from perftui.domain.records import Project, RunResult
    from perftui.domain.traffic.capacity import Point
    from perftui.domain.traffic.figures import TrafficFigures
    from perftui.domain.traffic.objective import Objective
    from perftui.domain.traffic.stored import StoredCapacity

FiguresOf = Callable[["RunResult"], "Figures | None"]


def _interval_ms(found: Interval | None) -> str:
    if found is None:
        return "-"
    lo = "?" if found.open_ends[0] else ms(found.lo)
    hi = "?" if found.open_ends[1] else ms(found.hi)
    return f"{ms(found.value)} ({lo}-{hi})"


def judged(figures: TrafficFigures, reasons: Sequence[str]) -> str:
    """meets, saturated or fails, as a word."""
    if not reasons:
        return "meets"
    return "saturated" if figures.is_saturated else "fails"


def point_line(run: RunResult, objectives: Sequence[Objective]) -> str:
    """One search run as it finished: rate, achieved, p99 with its interval, the judgement."""
    figures = run.traffic
    if figures is None:
        return f"rate {rate_text(run.config.rate)}/s: {run.status}: {run.error}"
    reasons = judge(figures, objectives)
    why = f" ({reasons[0]})" if reasons else ""
    return (
        f"rate {rate_text(figures.rate)}/s: achieved {rate_text(figures.achieved_rate)}/s,"
        f" p99 {_interval_ms(figures.latency.get('p99'))} ms: {judged(figures, reasons)}{why}"
    )


def closed_text(stored: StoredCapacity, figures: FiguresOf) -> str:
    from perftui.domain.traffic.stored import closed_loop_max

    if stored.closed is None:
        return "closed-loop maximum: not measured (its run did not succeed)"
    rate, interval = closed_loop_max(stored.closed, figures)
    spread = "" if interval is None else f" ({rate_text(interval.lo)}-{rate_text(interval.hi)})"
    found = figures(stored.closed)
    verdict = "" if found is None else f", verdict {found.verdict.status}"
    return f"closed-loop maximum {rate_text(rate)} requests/s{spread}{verdict}"


def curve_rows(curve: Sequence[Point]) -> list[list[str]]:
    rows = []
    for point in sorted(curve, key=lambda p: (p.rate, p.confirming)):
        f = point.figures
        rows.append(
            [
                rate_text(f.rate),
                rate_text(f.offered_rate),
                rate_text(f.achieved_rate),
                _interval_ms(f.latency.get("median")),
                _interval_ms(f.latency.get("p99")),
                judged(f, point.reasons) + (" (confirming)" if point.confirming else ""),
            ]
        )
    return rows


CURVE_HEADERS = ("rate/s", "offered/s", "achieved/s", "p50 ms", "p99 ms", "judged")


def capacity_text(project: Project, stored: StoredCapacity, figures: FiguresOf) -> str:
    found = stored.capacity
    search = stored.search
    if found.rate is None:
        headline = f"no rate met {search.label}"
    else:
        state = "confirmed" if found.confirmed else "not confirmed"
        headline = (
            f"capacity {rate_text(found.rate)} requests/s, interval "
            f"{bracket_text(found.rate, found.hi)}, under {search.label} ({state}), "
            f"{verdict_text(stored.verdict)}"
        )
    if not search.ended:
        ending = "the search did not end (its process died); the runs it finished are shown"
    elif found.stopped:
        ending = f"the search stopped: {found.stopped}"
    else:
        ending = "the search ended with a confirming run"
    lines = [
        f"{project.name}: {project.model} on {project.engine}/{project.device}",
        f"configuration {stored.config.label()} (batch {stored.config.batch}: a request is a"
        f" batch), {stored.config.arrival} arrivals",
        headline,
        closed_text(stored, figures),
        f"knee {rate_text(found.knee)} requests/s (p99 within 2x its lowest-rate value up to it)"
        if found.knee is not None
        else "knee: not found (too few runs that kept up)",
        f"{ending} ({found.elapsed_s:.0f} s)",
        "",
        table(CURVE_HEADERS, curve_rows(found.curve), right={0, 1, 2}),
    ]
    return "\n".join(lines)


def capacity_document(
    project: Project, stored: StoredCapacity, figures: FiguresOf
) -> dict[str, Any]:
    """The JSON contract of `perftui capacity --json` (README.md): rates in requests per
    second, times in ms, intervals as [lo, hi] (null: open or not found)."""
    from perftui.domain.traffic.stored import closed_loop_max

    closed = None
    if stored.closed is not None:
        rate, interval = closed_loop_max(stored.closed, figures)
        found = figures(stored.closed)
        closed = {
            "run_id": stored.closed.id,
            "rate": rate,
            "rate_ci": interval.as_list() if interval else None,
            "verdict": found.verdict.to_dict() if found else None,
        }
    return {
        "project": project.name,
        "model": project.model,
        "engine": project.engine,
        "device": project.device,
        "benchmark_id": stored.benchmark_id,
        "config": stored.config.to_dict(),
        "config_label": stored.config.label(),
        "ended": stored.search.ended,
        "budget_s": stored.search.budget_s,
        **stored.capacity.to_dict(),
        "capacity_verdict": _verdict_doc(stored),
        "closed_loop": closed,
    }


def _verdict_doc(stored: StoredCapacity) -> dict[str, Any] | None:
    """`capacity_verdict`: the verdict of the runs at the capacity's rate; null: none met."""
    return None if stored.verdict is None else stored.verdict.to_dict()


def ratio_document(ratio: CapacityRatio) -> dict[str, Any]:
    def side(stored: StoredCapacity) -> dict[str, Any]:
        found = stored.capacity
        return {
            "benchmark_id": stored.benchmark_id,
            "objectives": found.to_dict()["objectives"],
            "config": stored.config.to_dict(),
            "capacity": found.rate,
            "capacity_ci": [found.rate, found.hi],
            "capacity_verdict": _verdict_doc(stored),
            "confirmed": found.confirmed,
        }

    return {
        "a": side(ratio.a),
        "b": side(ratio.b),
        "ratio": ratio.value,
        "ratio_ci": None if ratio.value is None else [ratio.lo, ratio.hi],
        "why_not": ratio.why_not or None,
    }
