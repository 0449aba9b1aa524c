"""A run's latency samples as the distribution charts draw them: a histogram, the latency
over the run (warm-up drift, throttling and bimodal latency show there) and a CDF to lay
two runs over each other."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

TAIL = 99.5
"""Histograms span the samples up to this percentile; the rarer slow tail is counted apart,
so that one outlier does not squeeze every other bin into one column."""


@dataclass(frozen=True)
class Histogram:
    edges: tuple[float, ...]
    """len(counts) + 1 bin edges, ms."""
    counts: tuple[int, ...]
    beyond: int
    """Samples slower than the last edge (the tail left out)."""


def histogram(samples: Sequence[float] | np.ndarray, bins: int = 30) -> Histogram | None:
    """Equal bins from the fastest sample to the TAIL percentile; None without samples."""
    data = np.asarray(samples, dtype=np.float64)
    if data.size == 0:
        return None
    lo, hi = float(data.min()), float(np.percentile(data, TAIL))
    if hi <= lo:
        hi = lo + max(abs(lo) * 1e-3, 1e-6)
    counts, edges = np.histogram(data[data <= hi], bins=bins, range=(lo, hi))
    return Histogram(
        tuple(float(x) for x in edges), tuple(int(x) for x in counts), int((data > hi).sum())
    )


@dataclass(frozen=True)
class Timeline:
    """The latency over the run: per chunk of consecutive requests, its median and its
    slowest request, at the index of the chunk's first request."""

    index: tuple[int, ...]
    median: tuple[float, ...]
    slowest: tuple[float, ...]


CHUNK = 5
"""Requests a chunk of the timeline holds at least, so that its median and its slowest
request differ."""


def over_time(samples: Sequence[float] | np.ndarray, points: int = 120) -> Timeline | None:
    """At most `points` chunks of at least CHUNK samples, in the order they completed."""
    data = np.asarray(samples, dtype=np.float64)
    if data.size == 0:
        return None
    chunks = np.array_split(data, max(1, min(points, data.size // CHUNK)))
    starts = np.cumsum([0] + [len(c) for c in chunks[:-1]])
    return Timeline(
        tuple(int(x) for x in starts),
        tuple(float(np.median(c)) for c in chunks),
        tuple(float(c.max()) for c in chunks),
    )


def cdf(
    samples: Sequence[float] | np.ndarray, points: int = 100
) -> tuple[list[float], list[float]]:
    """(latency ms, share of requests at or under it) at `points` evenly spaced shares."""
    data = np.sort(np.asarray(samples, dtype=np.float64))
    if data.size == 0:
        return [], []
    shares = np.linspace(0.0, 1.0, min(points, data.size) + 1)[1:]
    ranks = np.clip(np.ceil(shares * data.size).astype(int) - 1, 0, data.size - 1)
    return [float(x) for x in data[ranks]], [float(x) for x in shares]
