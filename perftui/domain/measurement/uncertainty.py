"""95 % confidence intervals for the figures perftui shows: one method per kind of figure.

- **Throughput across repetitions**: a Student t-interval over the repetitions' throughputs
  (each repetition a fresh worker, so the interval holds the between-process variance).
- **Throughput within one run**: batch means. The timed window is cut into consecutive
  windows of equal request counts (`window_rates`); each window's time per item is one batch
  mean, and the t-interval of their mean, inverted, bounds the throughput. Windows long enough
  to hold many requests are close to independent even when single requests are not.
- **Latency percentiles (median, p90, p99)**: order-statistic (binomial) intervals. The number
  of samples under the true p-quantile is Binomial(n, p), so a pair of ranks (l, u) with
  P(l <= B < u) >= 95 % gives an exact, distribution-free interval whose ends are measured
  samples, like the nearest-rank figure itself (domain.measurement.stats). This was chosen over a
  block bootstrap: it is exact rather than approximate, needs no seed or resampling (cheap on
  a million samples), and a bootstrap is known to under-cover extreme quantiles such as p99.
  It assumes the samples are exchangeable; a window whose latency drifts or swings breaks
  that, and the run's verdict (perftui.domain.measurement.verdict) says so.
- **A ratio B/A**: on the log scale. Where both sides are means (repetitions or batch
  means) their standard errors on the log scale combine in a Welch t-interval (the Welch-
  Satterthwaite degrees of freedom): with three repetitions a side that is about a third
  narrower than adding two t(2) half-widths, and it never clamps at zero however noisy a side.
  Otherwise (percentile intervals) the two sides' half-widths add in quadrature.
- **A ratio B/A from pairs**: where A and B were measured alternately (A1 B1 B2 A2 A3 B3 ...,
  `perftui compare --measure`), the t-interval of the mean of log(B_i/A_i) over the rounds.
  Each pair ran within seconds, so a drift of the machine between rounds (on a shared server,
  the larger part of the noise) falls on both sides of a pair and cancels in its ratio.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


CONFIDENCE = 0.95
Z_95 = 1.959963984540054

WINDOWS = 20
"""Batch-means windows a timed window is cut into (fewer when iterations are few)."""
MIN_WINDOW_ITERATIONS = 5
"""Iterations a window holds at least, so one slow inference does not make a window."""
MIN_WINDOWS = 4
"""Fewer windows than this give no within-run throughput interval."""


def _t_two_sided(t: float, df: int) -> float:
    """P(|T| < t) for T ~ Student(df), t >= 0 (A&S 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 1:
        term, total = math.cos(theta), 0.0
        if df > 1:
            total = term
            for k in range(3, df - 1, 2):  # cos^3 (2/3), cos^5 (2*4)/(3*5), ...
                term *= c2 * (k - 1) / k
                total += term
        return 2 / math.pi * (theta + math.sin(theta) * total)
    term = total = 1.0
    for k in range(2, df - 1, 2):  # cos^2 (1/2), cos^4 (1*3)/(2*4), ...
        term *= c2 * (k - 1) / k
        total += term
    return math.sin(theta) * total


@functools.lru_cache(maxsize=1024)
def t_quantile(upper_tail: float, df: int) -> float:
    """The t with P(T > t) = upper_tail (0 < upper_tail < 0.5), df >= 1 whole."""
    if df < 1 or not 0 < upper_tail < 0.5:
        raise ValueError("t_quantile needs df >= 1 and 0 < upper_tail < 0.5")
    target = 1 - 2 * upper_tail
    lo, hi = 0.0, 1.0
    while _t_two_sided(hi, df) < target:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _t_two_sided(mid, df) < target else (lo, mid)
    return (lo + hi) / 2


def t_critical(df: int) -> float:
    """The two-sided 95 % Student t critical value."""
    if df < 1:
        raise ValueError("a t-interval needs at least two values")
    return t_quantile((1 - CONFIDENCE) / 2, df)


TOO_NOISY = 1.0
"""The relative half-width of a 95 % interval past which its figure is too noisy to use."""


@dataclass(frozen=True)
class Interval:
    """A figure with its 95 % interval and the number of values it comes from."""

    value: float
    lo: float
    hi: float
    n: int
    open_ends: tuple[bool, bool] = (False, False)
    """(lower, upper): True for an end the samples are too few to bound at 95 % (a p99 from
    fewer than 367 samples has no upper bound); the extreme sample then stands in for it."""
    log_se: float | None = None
    """For a mean: the standard error of the log of the figure (its relative standard
    error); None for a percentile."""
    df: int | None = None
    """For a mean: the degrees of freedom of its t-interval."""

    @property
    def bounded(self) -> bool:
        return not any(self.open_ends)

    @property
    def too_noisy(self) -> bool:
        """Whether the figure is no result: a bounded interval that reaches zero or is wider
        than ±`TOO_NOISY` of the figure (a throughput of 2,479 ±139 %)."""
        return self.bounded and (self.lo <= 0 or self.relative > TOO_NOISY)

    @property
    def relative(self) -> float:
        """The larger distance from the figure to an end, as a share of the figure."""
        if self.value == 0:
            return 0.0
        return max(self.value - self.lo, self.hi - self.value) / abs(self.value)

    def contains(self, value: float) -> bool:
        return self.lo <= value <= self.hi

    def as_list(self) -> list[float | None]:
        """[lo, hi] for JSON, None for an open end."""
        return [None if self.open_ends[0] else self.lo, None if self.open_ends[1] else self.hi]


def unknown_interval(value: float, n: int = 1) -> Interval:
    """A figure whose interval is not known: both ends open, so it shows as `±?`, goes to
    JSON as [null, null] and no ratio is judged from it."""
    return Interval(value, value, value, n, (True, True))


def mean_interval(values: Sequence[float] | np.ndarray) -> Interval | None:
    """The mean of `values` with its t-interval; None for fewer than two values. The values
    are times or rates, never negative, so neither is the lower end. In plain Python: they
    are a few repetitions or windows, for which numpy's calls cost more than the sums."""
    data = [float(v) for v in values]
    n = len(data)
    if n < 2:
        return None
    mean = sum(data) / n
    se = math.sqrt(sum((v - mean) ** 2 for v in data) / (n - 1)) / math.sqrt(n)
    half = t_critical(n - 1) * se
    log_se = se / mean if mean > 0 else None
    return Interval(mean, max(0.0, mean - half), mean + half, n, log_se=log_se, df=n - 1)


def window_rates(
    ends_s: Sequence[float] | np.ndarray, start_s: float, batch: int
) -> tuple[float, ...]:
    """Throughput (items/s) of consecutive windows of equal iteration counts.

    `ends_s` are the completion times of the window's iterations in order, `start_s` when the
    window began. Up to WINDOWS windows of at least MIN_WINDOW_ITERATIONS iterations each; the
    last few that do not fill a window are left out. Empty when there are too few."""
    import numpy as np

    ends = np.asarray(ends_s, dtype=np.float64)
    count = min(WINDOWS, ends.size // MIN_WINDOW_ITERATIONS)
    if count < 1:
        return ()
    size = ends.size // count
    bounds = np.concatenate(([start_s], ends[size - 1 :: size][:count]))
    spans = np.diff(bounds)
    if np.any(spans <= 0):
        return ()
    return tuple(float(x) for x in size * batch / spans)


def throughput_interval(value: float, window_fps: Sequence[float]) -> Interval | None:
    """Batch means: the interval of a run's throughput from its windows' rates, centred on
    the run's own figure; None with fewer than MIN_WINDOWS windows."""
    import numpy as np

    if len(window_fps) < MIN_WINDOWS or value <= 0 or min(window_fps) <= 0:
        return None
    per_item = mean_interval(1.0 / np.asarray(window_fps, dtype=np.float64))
    if per_item is None:
        return None
    lo_time = max(per_item.lo, per_item.value * 1e-6)  # a huge spread: keep the ends finite
    return Interval(
        value,
        value * per_item.value / per_item.hi,
        value * per_item.value / lo_time,
        len(window_fps),
        log_se=per_item.log_se,
        df=per_item.df,
    )


@functools.lru_cache(maxsize=64)
def _binomial_cdf(n: int, p: float) -> np.ndarray:
    """P(B <= k) for k = 0..n, B ~ Binomial(n, p), computed in log space (no underflow).
    Kept per (n, p): runs share their sample counts, and the array is read-only."""
    import numpy as np

    k = np.arange(n, dtype=np.float64)
    steps = np.log((n - k) / (k + 1)) + math.log(p) - math.log1p(-p)
    log_pmf = np.concatenate(([n * math.log1p(-p)], n * math.log1p(-p) + np.cumsum(steps)))
    pmf = np.exp(log_pmf - log_pmf.max())
    cdf = np.cumsum(pmf)
    cdf = cdf / cdf[-1]
    cdf.flags.writeable = False
    return cdf


def quantile_interval(
    samples: Sequence[float] | np.ndarray, percentile: float, *, presorted: bool = False
) -> Interval | None:
    """The nearest-rank percentile of `samples` with its order-statistic 95 % interval.

    Ranks are l = the largest with P(B <= l-1) <= 2.5 % and u = the smallest with
    P(B <= u-1) >= 97.5 %; the interval [x(l), x(u)] then covers the true quantile with
    probability >= 95 %. Where l < 1 or u > n the samples cannot bound that end and the
    extreme sample stands in (`open_ends`)."""
    import numpy as np

    data = np.asarray(samples, dtype=np.float64)
    if not presorted:
        data = np.sort(data)
    n = int(data.size)
    if n == 0:
        return None
    p = percentile / 100.0
    rank = min(n, max(1, math.ceil(p * n)))
    if p >= 1.0:
        return Interval(float(data[-1]), float(data[-1]), float(data[-1]), n, (False, True))
    alpha = (1.0 - CONFIDENCE) / 2.0
    cdf = _binomial_cdf(n, p)
    # cdf[k] = P(B <= k): l is the number of k with cdf[k] <= alpha
    lower = int(np.searchsorted(cdf, alpha, side="right"))
    upper = int(np.searchsorted(cdf, 1.0 - alpha, side="left")) + 1
    lo_rank, hi_rank = max(lower, 1), min(upper, n)
    return Interval(
        float(data[rank - 1]),
        float(data[lo_rank - 1]),
        float(data[hi_rank - 1]),
        n,
        (lower < 1, upper > n),
    )


NOISE_FLOOR = 0.02
"""B/A within 2 % of 1 is never called a difference. A 95 % interval excludes 1 in one
A/A comparison out of twenty by construction, and the same configuration measured at two
moments differs by a few percent (the machine's state drifts between the sides, which
neither side's own spread can hold); a floor of 2 % keeps those from being claimed while
costing almost nothing in finding the differences a performance engineer acts on."""


@dataclass(frozen=True)
class Ratio:
    """B/A with its 95 % interval."""

    value: float
    lo: float
    hi: float

    @property
    def significant(self) -> bool:
        """True when the whole interval lies beyond 1 +- NOISE_FLOOR (a difference beyond
        the noise)."""
        return self.lo > 1.0 + NOISE_FLOOR or self.hi < 1.0 / (1.0 + NOISE_FLOOR)


def ratio_interval(a: Interval, b: Interval) -> Ratio | None:
    """B/A with its 95 % interval: Welch on the log scale where both sides are means,
    else their log half-widths in quadrature; None where a side's interval reaches 0 or is
    not known at all."""
    if min(a.value, b.value) <= 0 or all(a.open_ends) or all(b.open_ends):
        return None
    ratio = b.value / a.value
    half = _welch_half_log(a, b)
    if half is None:
        if min(a.lo, b.lo) <= 0:
            return None
        half = math.hypot(_half_log(a), _half_log(b))
    return Ratio(ratio, ratio * math.exp(-half), ratio * math.exp(half))


def paired_ratio(a_values: Sequence[float], b_values: Sequence[float]) -> Ratio | None:
    """B/A from pairs (a_values[i], b_values[i]) measured side by side: the geometric mean
    of the pairs' ratios with the t-interval of their logs (n - 1 degrees of freedom).
    None for fewer than two pairs or a value that is not positive."""
    if len(a_values) != len(b_values):
        raise ValueError("pairs need as many A values as B values")
    if len(a_values) < 2 or min(*a_values, *b_values) <= 0:
        return None
    logs = [math.log(b / a) for a, b in zip(a_values, b_values, strict=True)]
    mean = math.fsum(logs) / len(logs)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in logs) / (len(logs) - 1))
    half = t_critical(len(logs) - 1) * sd / math.sqrt(len(logs))
    return Ratio(math.exp(mean), math.exp(mean - half), math.exp(mean + half))


def _half_log(x: Interval) -> float:
    return max(math.log(x.hi / x.value), math.log(x.value / x.lo))


def _welch_half_log(a: Interval, b: Interval) -> float | None:
    """The Welch t half-width of log(B) - log(A); None unless both sides are means."""
    if a.log_se is None or b.log_se is None or not a.df or not b.df:
        return None
    var_a, var_b = a.log_se**2, b.log_se**2
    total = var_a + var_b
    if total == 0:
        return 0.0
    df = total**2 / (var_a**2 / a.df + var_b**2 / b.df)
    return t_critical(max(1, math.floor(df))) * math.sqrt(total)
