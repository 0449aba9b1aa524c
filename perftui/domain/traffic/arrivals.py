"""When requests arrive: seeded, reproducible schedules at a rate (requests per second; a
request is one batch), and the one check of a rate a person gives."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from perftui.domain.errors import InputError

if TYPE_CHECKING:
    import numpy as np

ARRIVALS = ("poisson", "constant")
"""poisson: independent arrivals (exponential gaps), as users send them and as MLPerf's
Server scenario and perf_analyzer's `--request-distribution poisson` issue them; constant:
one every 1/rate seconds."""
MAX_RATE = 1e6
"""Requests per second above which a rate is refused: no engine in one process serves it,
and the scheduler could not keep such a schedule."""


def check_rate(rate: float) -> float:
    """`rate` as a float; InputError unless it is a finite number in (0, MAX_RATE]."""
    value = float(rate)
    if not math.isfinite(value) or value <= 0 or value > MAX_RATE:
        raise InputError(
            f"rate {value:g} is not a request rate: give requests per second, "
            f"above 0 and at most {MAX_RATE:.0e}"
        )
    return value


def parse_rates(text: str) -> tuple[float, ...]:
    """'100,200,400' -> (100.0, 200.0, 400.0); InputError naming the bad one."""
    rates = []
    for word in text.split(","):
        word = word.strip()
        try:
            rates.append(float(word))
        except ValueError:
            raise InputError(
                f"rate {word!r} is not a number: give requests per second, e.g. 100,200"
            ) from None
        check_rate(rates[-1])
    return tuple(rates)


def check_arrival(name: str) -> str:
    if name not in ARRIVALS:
        raise InputError(f"arrival {name!r} is not known; give one of {', '.join(ARRIVALS)}")
    return name


def arrival_times(arrival: str, rate: float, window_s: float, seed: int) -> np.ndarray:
    """The arrival times (seconds from the window's start, ascending, all < window_s) of
    the requests of a window; the same arguments give the same times."""
    import numpy as np

    check_arrival(arrival)
    rate = check_rate(rate)
    if not window_s > 0:
        raise InputError(f"window {window_s!r} s is not a duration: give seconds above 0")
    if arrival == "constant":
        return np.arange(math.ceil(window_s * rate), dtype=np.float64) / rate
    rng = np.random.default_rng(seed)
    expected = window_s * rate
    times = np.cumsum(
        rng.exponential(1.0 / rate, size=int(expected + 8 * math.sqrt(expected) + 16))
    )
    while times[-1] < window_s:  # rarely: more arrivals than eight deviations above the mean
        more = rng.exponential(1.0 / rate, size=times.size)
        times = np.concatenate((times, times[-1] + np.cumsum(more)))
    return times[times < window_s]
