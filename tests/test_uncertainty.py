"""Intervals against distributions whose truth is known: coverage over seeded trials, widths
that shrink with more samples, and the exact ranks of the order-statistic interval."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from perftui.domain.measurement.uncertainty import (
    MIN_WINDOWS,
    NOISE_FLOOR,
    Interval,
    Ratio,
    mean_interval,
    paired_ratio,
    quantile_interval,
    ratio_interval,
    t_critical,
    throughput_interval,
    window_rates,
)

TRIALS = 400


def coverage(hits: int) -> float:
    return hits / TRIALS


def test_t_critical_matches_the_t_distribution():
    for df in (1, 2, 5, 10, 29, 30, 31, 60, 500):
        assert t_critical(df) == pytest.approx(scipy_stats.t.ppf(0.975, df), abs=2e-3)


def test_mean_interval_covers_the_true_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(1)
    hits = sum(mean_interval(rng.normal(10.0, 2.0, 8)).contains(10.0) for _ in range(TRIALS))
    assert 0.92 <= coverage(hits) <= 0.98


@pytest.mark.parametrize("percentile", [50.0, 90.0, 99.0])
def test_quantile_interval_covers_the_true_exponential_quantile(percentile: float):
    truth = -math.log(1 - percentile / 100.0)  # exponential, rate 1
    rng = np.random.default_rng(int(percentile))
    hits = 0
    for _ in range(TRIALS):
        found = quantile_interval(rng.exponential(1.0, 1000), percentile)
        assert found is not None and found.bounded
        hits += found.contains(truth)
    # exact intervals are conservative: at least 95 %, a little more from discreteness
    assert 0.93 <= coverage(hits) <= 0.995


def test_quantile_interval_covers_the_true_normal_median():
    rng = np.random.default_rng(7)
    hits = sum(quantile_interval(rng.normal(5.0, 1.0, 60), 50).contains(5.0) for _ in range(TRIALS))
    assert 0.93 <= coverage(hits) <= 0.995


def test_quantile_interval_ranks_match_the_binomial_distribution():
    n, p = 250, 0.9
    found = quantile_interval(np.arange(1.0, n + 1), 90)
    lower = int(scipy_stats.binom.ppf(0.025, n, p))  # P(B <= lower) >= 2.5 %
    if scipy_stats.binom.cdf(lower, n, p) > 0.025:
        lower -= 1  # the largest l-1 with P(B <= l-1) <= 2.5 %
    upper = int(scipy_stats.binom.ppf(0.975, n, p)) + 1
    assert (found.lo, found.hi) == (lower + 1, upper)
    assert found.value == 225  # nearest rank: ceil(0.9 * 250)


def test_intervals_shrink_with_more_samples():
    rng = np.random.default_rng(3)
    small = quantile_interval(rng.exponential(1.0, 500), 50)
    large = quantile_interval(rng.exponential(1.0, 50_000), 50)
    assert (large.hi - large.lo) < (small.hi - small.lo) / 5


def test_a_p99_from_few_samples_is_not_bounded():
    rng = np.random.default_rng(4)
    few = quantile_interval(rng.exponential(1.0, 80), 99)
    assert few.open_ends == (False, True) and few.hi == few.value  # the largest sample stands in
    assert few.as_list() == [few.lo, None]
    assert quantile_interval(rng.exponential(1.0, 2000), 99).bounded


def test_quantile_interval_of_a_million_samples_is_finite():
    data = np.random.default_rng(5).exponential(1.0, 1_000_000)
    found = quantile_interval(data, 99)
    assert found.bounded and found.lo < math.log(100) < found.hi


def test_window_rates_use_equal_request_counts():
    ends = np.arange(1, 101) * 0.01  # one request every 10 ms from t=0
    rates = window_rates(ends, 0.0, batch=2)
    assert len(rates) == 20 and rates == pytest.approx([200.0] * 20)
    assert window_rates(ends[:4], 0.0, batch=1) == ()  # fewer than one window's requests


def test_batch_means_cover_the_true_throughput():
    """Requests of exponential service time (mean 10 ms): the truth is 100 items/s."""
    rng = np.random.default_rng(6)
    hits = 0
    for _ in range(TRIALS):
        ends = np.cumsum(rng.exponential(0.01, 2000))
        windows = window_rates(ends, 0.0, batch=1)
        found = throughput_interval(2000 / ends[-1], windows)
        hits += found.contains(100.0)
    assert 0.90 <= coverage(hits) <= 0.99


def test_throughput_interval_needs_enough_windows():
    assert throughput_interval(100.0, [100.0] * (MIN_WINDOWS - 1)) is None
    steady = throughput_interval(100.0, [100.0] * MIN_WINDOWS)
    assert (steady.lo, steady.hi) == pytest.approx((100.0, 100.0))


def test_ratio_interval_is_significant_only_beyond_the_noise():
    a = Interval(100.0, 95.0, 105.0, 3)
    assert not ratio_interval(a, Interval(103.0, 98.0, 108.0, 3)).significant
    faster = ratio_interval(a, Interval(140.0, 135.0, 145.0, 3))
    assert faster.significant and faster.lo < 1.4 < faster.hi


def test_ratio_of_two_means_covers_the_true_ratio():
    """Three repetitions a side, 10 % spread: the Welch interval on the log scale covers
    the true B/A (1.25) about 95 % of the time."""
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(TRIALS):
        a = mean_interval(rng.lognormal(math.log(100.0), 0.1, 3))
        b = mean_interval(rng.lognormal(math.log(125.0), 0.1, 3))
        found = ratio_interval(a, b)
        hits += found.lo <= 1.25 <= found.hi
    assert 0.90 <= coverage(hits) <= 0.99


def test_ratio_of_two_means_is_narrower_than_two_t_intervals_in_quadrature():
    a, b = mean_interval([100.0, 104.0, 97.0]), mean_interval([120.0, 126.0, 123.0])
    welch = ratio_interval(a, b)
    quadrature = ratio_interval(
        Interval(a.value, a.lo, a.hi, a.n), Interval(b.value, b.lo, b.hi, b.n)
    )
    assert welch.value == pytest.approx(quadrature.value)
    assert welch.hi / welch.lo < quadrature.hi / quadrature.lo
    assert welch.significant


def test_ratio_of_noisy_means_is_judged_where_a_side_reaches_zero():
    """A side so noisy that its linear interval reaches 0 still has a log-scale error."""
    a = mean_interval([100.0, 30.0, 160.0])
    assert a.lo == 0.0
    found = ratio_interval(a, mean_interval([101.0, 99.0, 100.0]))
    assert found is not None and not found.significant


def test_a_ratio_within_the_noise_floor_is_no_difference():
    """An interval that excludes 1 but stays within 1 +- NOISE_FLOOR claims nothing."""
    assert not Ratio(1.015, 1.01, 1.02).significant
    assert not Ratio(0.985, 0.98, 0.99).significant
    assert Ratio(1.05, 1.0 + NOISE_FLOOR + 0.001, 1.08).significant
    assert Ratio(0.9, 0.85, 1.0 / (1.0 + NOISE_FLOOR) - 0.001).significant


def drifting_rounds(rng: np.random.Generator, rounds: int) -> tuple[np.ndarray, np.ndarray]:
    """A machine whose speed drifts 15 % between rounds (both sides of a round alike) with
    3 % of noise per run; B is truly 1.25x A."""
    drift = rng.lognormal(0.0, 0.15, rounds)
    a = 100.0 * drift * rng.lognormal(0.0, 0.03, rounds)
    b = 125.0 * drift * rng.lognormal(0.0, 0.03, rounds)
    return a, b


def test_paired_ratio_covers_the_true_ratio_on_a_drifting_machine():
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(TRIALS):
        found = paired_ratio(*drifting_rounds(rng, 5))
        hits += found.lo <= 1.25 <= found.hi
    assert 0.90 <= coverage(hits) <= 0.99


def test_pairs_find_through_drift_what_two_means_cannot():
    """The same rounds judged as two groups of means mostly miss the difference; paired,
    the drift cancels and it is found nearly always."""
    rng = np.random.default_rng(12)
    paired = unpaired = 0
    for _ in range(200):
        a, b = drifting_rounds(rng, 5)
        paired += paired_ratio(a, b).significant
        unpaired += ratio_interval(mean_interval(a), mean_interval(b)).significant
    assert paired >= 195 and unpaired <= 120


def test_paired_ratio_needs_two_positive_pairs():
    assert paired_ratio([100.0], [120.0]) is None
    assert paired_ratio([100.0, 0.0], [120.0, 110.0]) is None
    with pytest.raises(ValueError):
        paired_ratio([100.0, 101.0], [120.0])
    same = paired_ratio([100.0, 90.0, 110.0], [100.0, 90.0, 110.0])
    assert (same.value, same.lo, same.hi) == (1.0, 1.0, 1.0) and not same.significant
