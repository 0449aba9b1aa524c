"""What a run's throughput costs: the machine's price per hour over the inferences it does.

The price is the one recorded with the run (its environment's `price_per_hour`, written when
it was measured), so a later change of a machine's price does not rewrite past costs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from perftui.domain.units import spread_text

if TYPE_CHECKING:
    from perftui.domain.measurement.figures import ConfigGroup
    from perftui.domain.measurement.uncertainty import Interval
    from perftui.domain.records import RunResult

PRICE_KEY = "price_per_hour"
"""The key of the price in a run's recorded environment."""
COST_HEADER = "$/M inf"
"""Cost per million inferences, in the price's currency."""


def cost_per_million(throughput_fps: float | None, price_per_hour: float | None) -> float | None:
    """The price of a million inferences at `throughput_fps` (None: either is unknown or the
    throughput is not above 0)."""
    if throughput_fps is None or price_per_hour is None or throughput_fps <= 0:
        return None
    return price_per_hour / (throughput_fps * 3600.0) * 1e6


def environment_price(environment: Mapping[str, Any] | None) -> float | None:
    """The price per hour an environment records; None when none was set."""
    price = (environment or {}).get(PRICE_KEY)
    if isinstance(price, bool) or not isinstance(price, int | float) or price < 0:
        return None
    return float(price)


def with_price(environment: Mapping[str, Any], price_per_hour: float | None) -> dict[str, Any]:
    """`environment` recording the machine's `price_per_hour` (None: no price set, as it was)."""
    if price_per_hour is None:
        return dict(environment)
    return {**environment, PRICE_KEY: price_per_hour}


def run_price(run: RunResult) -> float | None:
    return environment_price(run.resolved.get("environment"))


def runs_price(runs: Iterable[RunResult]) -> float | None:
    """The price the runs were measured at (the first that records one)."""
    return next((price for run in runs if (price := run_price(run)) is not None), None)


def run_cost(run: RunResult) -> float | None:
    """A run's cost per million inferences at its recorded price."""
    fps = run.throughput_fps if run.status == "ok" else None
    return cost_per_million(fps, run_price(run))


def group_cost(group: ConfigGroup) -> float | None:
    """A configuration's cost per million inferences: its combined throughput at the price
    its runs were measured at."""
    if not group.ok_runs:
        return None
    return cost_per_million(group.figures.throughput_fps, runs_price(group.ok_runs))


def cost_ci(throughput: Interval | None, price_per_hour: float | None) -> Interval | None:
    """The 95 % interval of the cost per million inferences at `throughput`'s interval: its
    ends swap (the fastest end is the cheapest), and a throughput that may be 0 leaves the
    cost unbounded above (too noisy)."""
    from dataclasses import replace

    value = cost_per_million(throughput.value if throughput else None, price_per_hour)
    if throughput is None or value is None:
        return None
    low = cost_per_million(throughput.hi, price_per_hour) or value
    high = cost_per_million(throughput.lo, price_per_hour) or math.inf
    ends = (throughput.open_ends[1], throughput.open_ends[0])
    return replace(throughput, value=value, lo=low, hi=high, open_ends=ends)


def cost_ci_text(
    cost: float | None, throughput: Interval | None, price_per_hour: float | None
) -> str:
    """A cost per million inferences with the 95 % interval its `throughput`'s interval
    gives at `price_per_hour`: '0.412 ±3%' ('-' for no cost)."""
    if cost is None:
        return cost_text(cost)
    return cost_text(cost) + spread_text(cost_ci(throughput, price_per_hour))


def cost_text(cost: float | None) -> str:
    """A cost per million inferences as a table shows it: 3 significant digits."""
    if cost is None:
        return "-"
    return f"{cost:.3g}" if cost < 1000 else f"{cost:,.0f}"
