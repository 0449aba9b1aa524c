import math

import numpy as np
import pytest

from perftui.domain.measurement.stats import latency_stats, nearest_rank


def test_nearest_rank_returns_measured_samples():
    data = np.arange(1, 101, dtype=float)  # 1..100
    assert nearest_rank(data, 50) == 50
    assert nearest_rank(data, 90) == 90
    assert nearest_rank(data, 99) == 99
    assert nearest_rank(data, 100) == 100
    assert nearest_rank(np.array([7.0]), 99) == 7.0


def test_nearest_rank_small_sample_rounds_up():
    data = np.array([1.0, 2.0, 3.0, 4.0])
    assert nearest_rank(data, 50) == 2.0  # ceil(0.5 * 4) = 2nd
    assert nearest_rank(data, 90) == 4.0  # ceil(3.6) = 4th


def test_latency_stats_summary():
    samples = [4.0, 1.0, 3.0, 2.0, 10.0]
    stats = latency_stats(samples)
    assert stats.min == 1.0 and stats.max == 10.0
    assert stats.mean == pytest.approx(4.0)
    assert stats.median == 3.0
    assert stats.p90 == 10.0 and stats.p99 == 10.0
    assert stats.stdev == pytest.approx(np.std(samples, ddof=1))
    assert stats.cv == pytest.approx(stats.stdev / 4.0)


def test_single_sample_has_zero_spread():
    stats = latency_stats([2.5])
    assert stats.stdev == 0.0 and stats.cv == 0.0 and stats.p99 == 2.5


def test_no_samples_is_an_error():
    with pytest.raises(ValueError):
        latency_stats([])


def test_percentiles_are_ordered_on_random_data():
    rng = np.random.default_rng(1)
    stats = latency_stats(rng.lognormal(size=1001))
    assert stats.min <= stats.median <= stats.p90 <= stats.p99 <= stats.max
    assert not math.isnan(stats.cv)
