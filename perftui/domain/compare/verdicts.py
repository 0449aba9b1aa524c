"""What a comparison may claim: B/A with its 95 % interval and a plain sentence, "B is 1.42x
faster (1.35-1.50)" or "no difference beyond noise"; which sweet-spot candidates are within
noise of the best; and whether the per-layer profile contradicts the measurement.

Each side's figures are those of its compared run's configuration: its repetitions combined
when there are several (perftui.domain.measurement.figures.ConfigGroup), else the run's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from perftui.domain.measurement.figures import Figures
from perftui.domain.measurement.uncertainty import NOISE_FLOOR, Interval, Ratio, ratio_interval
from perftui.domain.records import RunResult

T = TypeVar("T")
NO_DIFFERENCE = "no difference beyond noise"
MEASURE_AGAIN = (
    "measure both again with `perftui compare A B --measure` (alternately, judged round by "
    "round) to compare across processes and moments"
)
"""The advice that ends every note on runs measured apart."""
SINGLE_RUNS = (
    "one run per side: the intervals hold the noise within each run only; " + MEASURE_AGAIN
)


def single_runs(sides: Sequence[str]) -> str:
    """The note on the compared configurations that are one run each ('A (fp32)'): both,
    or the one side's (the other's interval holds its repetitions' spread)."""
    if len(sides) != 1:
        return SINGLE_RUNS
    return (
        f"{sides[0]} is one run: its interval holds the noise within that run only; "
        + MEASURE_AGAIN
    )


@dataclass(frozen=True)
class Difference:
    """B against A for one figure."""

    metric: str
    """"throughput" or a latency statistic ("median", "p90", "p99")."""
    ratio: Ratio | None
    """B/A of the figure; None where a side has no interval."""
    text: str

    @property
    def significant(self) -> bool:
        return self.ratio is not None and self.ratio.significant


def _times(value: float, lo: float, hi: float, word: str = "") -> str:
    """'1.42x faster (1.35-1.50)'."""
    return f"{value:.2f}x{' ' + word if word else ''} ({lo:.2f}-{hi:.2f})"


def difference(metric: str, a: Interval | None, b: Interval | None) -> Difference:
    """B/A of a throughput (higher is better) or a latency (lower is better), in words."""
    ratio = ratio_interval(a, b) if a is not None and b is not None else None
    if ratio is None:
        return Difference(metric, None, f"{metric}: {_unjudged(a, b)}")
    return judged(metric, ratio)


def judged(metric: str, ratio: Ratio) -> Difference:
    """B/A with its interval in words: which side is better, or no difference."""
    if not ratio.significant:
        text = f"{metric}: {NO_DIFFERENCE}, B/A {_times(*_r(ratio))}"
        return Difference(metric, ratio, text + _floor_said(ratio))
    if metric == "throughput":
        better = ratio.value > 1
        value, lo, hi = _r(ratio) if better else _r(_inverse(ratio))
        word = "faster" if better else "slower"
        return Difference(metric, ratio, f"B is {_times(value, lo, hi, word)}")
    better = ratio.value < 1
    value, lo, hi = _r(_inverse(ratio)) if better else _r(ratio)
    word = "lower" if better else "higher"
    return Difference(metric, ratio, f"B's {metric} latency is {_times(value, lo, hi, word)}")


def _floor_said(ratio: Ratio) -> str:
    """Why an interval that excludes 1 is still no difference: it is within the noise floor."""
    if ratio.lo <= 1.0 <= ratio.hi:
        return ""
    return f" (it excludes 1; the {NOISE_FLOOR * 100:g} % noise floor decided it)"


def _unjudged(a: Interval | None, b: Interval | None) -> str:
    """Why B/A has no interval: a side without one, or one so noisy that it reaches 0."""
    if a is None or b is None or min(a.value, b.value) <= 0:
        return "no interval on both sides to judge by"
    return f"too noisy to judge (B/A {b.value / a.value:.2f}x, interval unbounded)"


def _r(ratio: Ratio) -> tuple[float, float, float]:
    return ratio.value, ratio.lo, ratio.hi


def _inverse(ratio: Ratio) -> Ratio:
    return Ratio(1.0 / ratio.value, 1.0 / ratio.hi, 1.0 / ratio.lo)


def within_noise(best: Figures, others: Sequence[tuple[T, Figures]]) -> list[T]:
    """Those of `others` whose throughput the intervals cannot tell from the best's (one
    without an interval is not among them: nothing says it is close)."""
    close = []
    for item, figures in others:
        found = difference("throughput", best.throughput, figures.throughput)
        if found.ratio is not None and not found.significant:
            close.append(item)
    return close


def profile_contradiction(a: RunResult | None, b: RunResult | None, measured: Difference) -> str:
    """A note when both sides are profiled and their layer sums say the other side is faster
    than the measurement (beyond its noise) does; '' otherwise."""
    if a is None or b is None or not a.layers or not b.layers or not measured.significant:
        return ""
    sum_a = sum(layer.time_ms for layer in a.layers if layer.status == "executed")
    sum_b = sum(layer.time_ms for layer in b.layers if layer.status == "executed")
    if sum_a <= 0 or sum_b <= 0 or sum_a == sum_b:
        return ""
    profile_b_faster = sum_b < sum_a
    measured_b_faster = measured.ratio is not None and measured.ratio.value > 1
    if profile_b_faster == measured_b_faster:
        return ""
    profile_word = "faster" if profile_b_faster else "slower"
    measured_word = "faster" if measured_b_faster else "slower"
    return (
        f"the per-layer profiles say B is {profile_word} ({sum_b:.3g} vs {sum_a:.3g} ms of "
        f"layers per request) but the measurement says B is {measured_word}: trust the "
        "measurement; the profile pass is short and runs with the counters on"
    )
