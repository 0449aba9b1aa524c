"""A project's capacity in its report: the figure with its interval beside the closed-loop
maximum, and the traffic curve (the objective's statistic against the offered rate, the
objective's line, the capacity marked) with its table. The capacity is
perftui.domain.traffic.stored's, as everywhere else."""

from __future__ import annotations

from perftui.domain.measurement.figures import Samples, run_figures
from perftui.domain.report.parts import Point, Scatter, Section, Table
from perftui.domain.traffic.stored import StoredCapacity, closed_loop_max
from perftui.domain.traffic.wording import rate_text, verdict_text
from perftui.domain.units import ms


def _figure(value: float, lo: float | None, hi: float | None) -> str:
    ends = "–".join("?" if end is None else ms(end) for end in (lo, hi))
    return f"{ms(value)} ({ends})"


def capacity_section(name: str, stored: StoredCapacity, samples: Samples) -> Section:
    found, search = stored.capacity, stored.search
    if found.rate is None:
        headline = f"Capacity under {search.label}: no rate searched met it."
    else:
        state = "confirmed by a longer run" if found.confirmed else "not confirmed"
        upper = "not found" if found.hi is None else rate_text(found.hi)
        headline = (
            f"Capacity under {search.label}: {rate_text(found.rate)} requests/s, between the "
            f"highest rate that met it and the lowest that did not ({upper}); {state}; "
            f"{verdict_text(stored.verdict)}."
        )
    lines = [headline, f"Configuration: {stored.config.label()}, {stored.config.arrival} arrivals."]
    if stored.closed is not None:
        rate, interval = closed_loop_max(stored.closed, lambda r: run_figures(r, samples(r)))
        spread = "" if interval is None else f" ({rate_text(interval.lo)}–{rate_text(interval.hi)})"
        lines.append(f"Closed-loop maximum: {rate_text(rate)} requests/s{spread}.")
    if found.knee is not None:
        lines.append(f"Knee: {rate_text(found.knee)} requests/s (past it, queueing dominates).")
    if found.stopped:
        lines.append(f"The search stopped: {found.stopped}.")
    statistic = search.objectives[0].statistic
    bound = search.objectives[0].bound_ms
    points, rows = [], []
    for point in sorted(found.curve, key=lambda p: (p.rate, p.confirming)):
        f = point.figures
        judged = "meets" if point.meets else "saturated" if f.is_saturated else "fails"
        shown = f.latency.get(statistic)
        if shown is not None:
            points.append(Point(f.offered_rate, shown.value, f"{rate_text(f.rate)}/s {judged}"))
        rows.append(
            (
                rate_text(f.rate),
                rate_text(f.achieved_rate),
                *(
                    "-" if (x := f.latency.get(n)) is None else
                    _figure(x.value, None if x.open_ends[0] else x.lo,
                            None if x.open_ends[1] else x.hi)
                    for n in ("median", "p99")
                ),
                judged + (" (confirming)" if point.confirming else ""),
            )
        )  # fmt: skip
    curve = Scatter(
        f"Traffic curve: {statistic} against offered rate",
        "offered rate (requests/s)",
        f"{statistic} latency from arrival (ms)",
        tuple(points),
        (name,),
        threshold=found.rate,
        threshold_label="" if found.rate is None else f"capacity {rate_text(found.rate)}/s",
        level=bound,
        level_label=f"{statistic} ≤ {bound:g} ms",
    )
    table = Table(
        "Search runs",
        ("rate/s", "achieved/s", "median ms", "p99 ms", "judged"),
        tuple(rows),
        frozenset({0, 1, 2, 3}),
    )
    return Section("Capacity", tuple(lines), (curve, table))
