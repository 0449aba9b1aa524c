"""Arrival schedules (seeded, reproducible) and the one-line refusals of a rate, an arrival
and an objective."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perftui.domain.errors import InputError
from perftui.domain.traffic.arrivals import arrival_times, check_rate, parse_rates
from perftui.domain.traffic.objective import Objective, parse_objectives


def test_poisson_arrivals_are_reproducible_from_their_seed() -> None:
    first = arrival_times("poisson", 500.0, 4.0, seed=7)
    again = arrival_times("poisson", 500.0, 4.0, seed=7)
    other = arrival_times("poisson", 500.0, 4.0, seed=8)
    np.testing.assert_array_equal(first, again)
    assert first.size != other.size or not np.array_equal(first, other)


def test_poisson_arrivals_have_the_rate_and_exponential_gaps() -> None:
    times = arrival_times("poisson", 1000.0, 20.0, seed=1)
    expected = 20_000
    assert abs(times.size - expected) < 5 * math.sqrt(expected)
    assert np.all(np.diff(times) > 0) and times[0] >= 0 and times[-1] < 20.0
    gaps = np.diff(times)
    # exponential: the standard deviation equals the mean (a constant schedule's is 0)
    assert gaps.std() / gaps.mean() == pytest.approx(1.0, abs=0.05)


def test_constant_arrivals_are_evenly_spaced() -> None:
    times = arrival_times("constant", 200.0, 1.0, seed=3)
    assert times.size == 200
    np.testing.assert_allclose(np.diff(times), 1 / 200)


def test_a_long_poisson_window_past_the_first_draw_is_filled() -> None:
    times = arrival_times("poisson", 1.0, 400.0, seed=2)
    assert times[-1] > 350.0  # the draw is extended to the window's end, not cut short


@pytest.mark.parametrize("rate", [0, -5, math.nan, math.inf, 2e6])
def test_a_rate_that_is_not_one_is_refused_in_one_line(rate: float) -> None:
    with pytest.raises(InputError) as raised:
        check_rate(rate)
    message = str(raised.value)
    assert "\n" not in message and "requests per second" in message


def test_rates_parse_from_a_list_and_name_the_bad_one() -> None:
    assert parse_rates("100, 200,400") == (100.0, 200.0, 400.0)
    with pytest.raises(InputError, match="'fast' is not a number"):
        parse_rates("100,fast")
    with pytest.raises(InputError, match="nan"):
        parse_rates("nan")


def test_an_unknown_arrival_is_refused() -> None:
    with pytest.raises(InputError, match="one of poisson, constant"):
        arrival_times("bursty", 10.0, 1.0, seed=0)


def test_objectives_parse_in_every_unit() -> None:
    assert parse_objectives("p99=50ms") == (Objective("p99", 50.0),)
    assert parse_objectives("median=0.5s, p90=250us") == (
        Objective("median", 500.0),
        Objective("p90", 0.25),
    )


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("p95=50ms", "statistic 'p95' is not known; give one of median, p90, p99"),
        ("throughput=50ms", "statistic 'throughput' is not known"),
        ("p99=50", "no known unit; give one of s, ms, us"),
        ("p99=50min", "no known unit"),
        ("p99=-5ms", "not a time above 0"),
        ("p99=nanms", "no known unit"),
        ("p99=0ms", "not a time above 0"),
        ("p99", "is not STATISTIC=BOUND"),
        ("p99=5ms,p99=6ms", "given twice"),
    ],
)
def test_a_bad_objective_is_refused_in_one_line(text: str, says: str) -> None:
    with pytest.raises(InputError) as raised:
        parse_objectives(text)
    assert says in str(raised.value) and "\n" not in str(raised.value)
