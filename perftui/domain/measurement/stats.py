"""Latency statistics.

Percentiles use the nearest-rank definition everywhere (the median included): the p-th
percentile of n sorted samples is the sample at rank ceil(p/100 * n), so every reported
figure is a latency that was actually measured.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from perftui.domain.records import LatencyStats


def nearest_rank(sorted_samples: np.ndarray, percentile: float) -> float:
    """The nearest-rank percentile of already sorted samples (percentile in (0, 100])."""
    n = len(sorted_samples)
    if n == 0:
        raise ValueError("no samples")
    rank = max(1, math.ceil(percentile / 100.0 * n))
    return float(sorted_samples[min(rank, n) - 1])


def latency_stats(samples_ms: Sequence[float] | np.ndarray) -> LatencyStats:
    """Summarise per-request latencies (milliseconds); stdev is the sample standard deviation."""
    data = np.sort(np.asarray(samples_ms, dtype=np.float64))
    if data.size == 0:
        raise ValueError("no latency samples")
    mean = float(data.mean())
    stdev = float(data.std(ddof=1)) if data.size > 1 else 0.0
    return LatencyStats(
        min=float(data[0]),
        mean=mean,
        median=nearest_rank(data, 50),
        p90=nearest_rank(data, 90),
        p99=nearest_rank(data, 99),
        max=float(data[-1]),
        stdev=stdev,
        cv=stdev / mean if mean > 0 else 0.0,
    )
