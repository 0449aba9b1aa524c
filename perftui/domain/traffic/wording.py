"""A capacity in words, the same in the CLI, the report and the dashboard: rates, a capacity's
bracket and the detail's one line (the capacity with its interval under its objectives, the
closed-loop maximum with its interval and verdict, the configuration named)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perftui.domain.measurement.figures import Figures
    from perftui.domain.measurement.verdict import Verdict
    from perftui.domain.records import RunResult
    from perftui.domain.traffic.stored import StoredCapacity

FiguresOf = Callable[["RunResult"], "Figures | None"]


def rate_text(rate: float | None) -> str:
    """Requests per second: '1,411', '687.5'; '-' where there is none."""
    return "-" if rate is None else f"{rate:,.4g}"


def bracket_text(lo: float | None, hi: float | None) -> str:
    """A capacity's interval: '[612, 650]' (hi None: no failing rate was found above)."""
    return f"[{rate_text(lo)}, {'?' if hi is None else rate_text(hi)}]"


def verdict_text(verdict: Verdict | None, *, reasons: bool = True) -> str:
    """The verdict of a capacity's runs (StoredCapacity.verdict): 'its runs invalid: other
    processes used 45% of the CPUs'; 'its runs stable'; without the reasons where a line
    says them apart."""
    if verdict is None:
        return "its runs' verdict unknown"
    said = f": {'; '.join(verdict.reasons)}" if reasons and verdict.reasons else ""
    return f"its runs {verdict.status}{said}"


def _span(lo: float | None, hi: float | None) -> str:
    return f"{rate_text(lo)}–{'?' if hi is None else rate_text(hi)}"


def closed_max_text(stored: StoredCapacity, figures: FiguresOf) -> str:
    """'closed-loop max 1,411/s (1,388–1,436, noisy)': the rate the capacity lies below."""
    from perftui.domain.traffic.stored import closed_loop_max

    if stored.closed is None:
        return "closed-loop max not measured (its run did not succeed)"
    rate, interval = closed_loop_max(stored.closed, figures)
    found = figures(stored.closed)
    inside = [] if interval is None else [_span(interval.lo, interval.hi)]
    inside += [] if found is None else [found.verdict.status]
    return f"closed-loop max {rate_text(rate)}/s" + (f" ({', '.join(inside)})" if inside else "")


def capacity_line(stored: StoredCapacity, figures: FiguresOf) -> str:
    """'b1 t1 sync poisson: capacity 492/s (492–514) at p99 ≤ 10 ms, its runs stable,
    closed-loop max 1,392/s (1,363–1,423, stable), confirmed': the capacity's interval is
    [the highest rate that met, the lowest that failed]."""
    found, search = stored.capacity, stored.search
    config = f"{stored.config.label()} {stored.config.arrival}"
    if found.rate is None:
        head = f"no rate searched met {search.label}"
    else:
        head = (
            f"capacity {rate_text(found.rate)}/s ({_span(found.rate, found.hi)}) at {search.label}"
            f", {verdict_text(stored.verdict)}"
        )
    if not search.ended:
        state = "the search did not end"
    elif found.rate is None:
        state = f"stopped: {found.stopped}" if found.stopped else ""
    else:
        state = "confirmed" if found.confirmed else "not confirmed"
    parts = [head, closed_max_text(stored, figures), *([state] if state else [])]
    return f"{config}: {', '.join(parts)}"
