"""Which configuration a tune measures next, and when the rest cannot win: a performance
engineer's model of the space, refitted on every trial. It only orders and stops the
search; every figure a tune reports is measured.

The model, for an async queue of `requests` on `streams` sharing `threads` (OpenVINO's
INFERENCE_NUM_THREADS is the compiled model's total):
- a request's service time grows with the batch as batch**e, e fitted from two measured
  batches of the same settings (else BATCH_EXPONENT), and with the streams sharing the
  threads as streams / threads;
- min(requests, streams) requests are served at once and the rest wait; a request waiting
  behind a busy stream hides the gap between two of its requests (the engine's scheduling,
  copying inputs), so throughput is min(requests, streams) x batch / service time x
  (requests per stream)**g, g fitted from two measured request counts (else REQUEST_GAIN);
- latency is the requests in flight over the rate they are served at (Little's law).
An unmeasured configuration is estimated from its nearest measured ones by these ratios.
How well the threads scale inside one request, and what queued requests add, are what the
model cannot know, so each stream count at the most threads is measured once with requests
= streams and once with requests queued beyond them before the model is trusted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from perftui.domain.records import AUTO, RunConfig
from perftui.domain.settings import key
from perftui.domain.tune.result import UNJUDGED, Trial, best_trial

BATCH_EXPONENT = 0.75
"""Latency ~ batch**e before two batches of a configuration are measured; e reaches 1 at the
knee (benchmarks/README.md, tune.py)."""
EXPONENT_RANGE = (0.3, 1.5)
REQUEST_GAIN = 0.15
"""Throughput ~ (requests per stream)**g before two request counts of a configuration are
measured: the search expects a little and measures whether it is there (benchmarks/README.md,
tune.py)."""
GAIN_RANGE = (0.0, 1.0)
REACH = 2.0
"""An estimate draws on every measured configuration within this distance of the nearest
one, each weighted half as much per unit of distance: one noisy trial (a 1 s run on a
shared machine can be 30 % off) must not steer the search alone."""
FIT_SLACK = 1.25
"""A configuration is worth measuring while its estimated latency is within the budget x
this: an estimate is a few tens of percent off, and one trial over the budget costs less
than a best never measured."""
WORTH_TRYING = 0.95
"""The search measures a configuration while its expected throughput is at least the best's
x this, and stops when none is: estimates are rougher than 5 % (benchmarks/README.md,
tune_replay.py)."""
PAIR_DISTANCE = 2.0
"""How far a measured configuration with other threads or streams is, per knob, against 1
per other knob and per doubling of the batch: thread scaling is the model's weakest part."""


@dataclass(frozen=True)
class Load:
    """A configuration's knobs as numbers: auto streams count as 1, auto requests as the
    streams (the engine's optimal number), default threads as `threads`."""

    batch: int
    threads: int
    streams: int
    requests: int

    @classmethod
    def of(cls, config: RunConfig, threads: int) -> Load:
        streams = 1 if config.streams == AUTO else int(config.streams)
        if config.api == "sync":
            requests = 1
        else:
            requests = streams if config.requests == AUTO else int(config.requests)
        return cls(config.batch, config.threads or threads, streams, requests)

    @property
    def queued(self) -> float:
        """Requests per stream, at least 1."""
        return max(self.requests, self.streams) / self.streams

    def service(self, exponent: float) -> float:
        return self.batch**exponent * self.streams / self.threads

    def throughput(self, exponent: float, gain: float) -> float:
        busy = min(self.requests, self.streams)
        return busy * self.batch / self.service(exponent) * self.queued**gain

    def latency(self, exponent: float, gain: float) -> float:
        return self.requests * self.batch / self.throughput(exponent, gain)


@dataclass(frozen=True)
class Estimate:
    fps: float
    latency_ms: float


def _measured(trials: Sequence[Trial]) -> list[Trial]:
    return [t for t in trials if t.status not in UNJUDGED and t.latency is not None and t.fps > 0]


def _family(config: RunConfig) -> RunConfig:
    """Everything but the batch."""
    return key(config, without=("batch",))


def _place(config: RunConfig) -> RunConfig:
    """What the batch and the requests run on: every other setting."""
    return key(config, without=("batch", "requests"))


def distance(a: RunConfig, b: RunConfig) -> float:
    """How far apart two configurations are for the model (see PAIR_DISTANCE)."""
    far = abs(math.log2(a.batch / b.batch))
    far += PAIR_DISTANCE * ((a.threads != b.threads) + (a.streams != b.streams))
    return far + (a.requests != b.requests) + (a.hint != b.hint) + (a.api != b.api)


def exponent(config: RunConfig, ref: Trial, trials: Sequence[Trial]) -> float:
    """The batch exponent from `ref` towards `config`: fitted on `ref` and the measured
    batch of its family nearest to `config`'s, else BATCH_EXPONENT."""
    others = [
        t
        for t in _measured(trials)
        if _family(t.config) == _family(ref.config) and t.config.batch != ref.config.batch
    ]
    if not others or ref.latency is None:
        return BATCH_EXPONENT
    near = min(others, key=lambda t: abs(math.log2(t.config.batch / config.batch)))
    assert near.latency is not None
    slope = math.log(near.latency.value / ref.latency.value) / math.log(
        near.config.batch / ref.config.batch
    )
    return min(max(slope, EXPONENT_RANGE[0]), EXPONENT_RANGE[1])


def request_gain(config: RunConfig, trials: Sequence[Trial], threads: int) -> float:
    """The gain g of queued requests for `config`: fitted on the measured pair of the same
    threads and streams that differ only in their requests (nearest `config`'s batch),
    else REQUEST_GAIN."""
    measured = [t for t in _measured(trials) if _place(t.config) == _place(config)]
    pairs = [
        (a, b)
        for a in measured
        for b in measured
        if _only(a.config, b.config, "requests")
        and Load.of(a.config, threads).queued < Load.of(b.config, threads).queued
    ]
    if not pairs:
        return REQUEST_GAIN
    a, b = min(pairs, key=lambda ab: abs(math.log2(ab[0].config.batch / config.batch)))
    low, high = Load.of(a.config, threads), Load.of(b.config, threads)
    served = min(high.requests, high.streams) / min(low.requests, low.streams)
    gain = math.log(b.fps / a.fps / served) / math.log(high.queued / low.queued)
    return min(max(gain, GAIN_RANGE[0]), GAIN_RANGE[1])


def estimate(config: RunConfig, trials: Sequence[Trial], threads: int) -> Estimate | None:
    """`config`'s throughput and latency scaled from its nearest measured configurations
    (those within REACH of the nearest), or None before any is measured. The throughput is
    the most any of them gives (a reference past the knee of the batch curve would hide the
    peak), the latency their geometric mean weighted by nearness."""
    measured = _measured(trials)
    if not measured:
        return None
    nearest = min(distance(config, t.config) for t in measured)
    logs_fps, logs_ms, weights = [], [], []
    target = Load.of(config, threads)
    g = request_gain(config, trials, threads)
    for ref in (t for t in measured if distance(config, t.config) <= nearest + REACH):
        assert ref.latency is not None
        e = exponent(config, ref, trials)
        source = Load.of(ref.config, threads)
        weights.append(0.5 ** (distance(config, ref.config) - nearest))
        logs_fps.append(math.log(ref.fps * target.throughput(e, g) / source.throughput(e, g)))
        logs_ms.append(math.log(ref.latency.value * target.latency(e, g) / source.latency(e, g)))
    log_ms = sum(w * x for w, x in zip(weights, logs_ms, strict=True)) / sum(weights)
    return Estimate(math.exp(max(logs_fps)), math.exp(log_ms))


def _most_threads(configs: Sequence[RunConfig]) -> int:
    return max((c.threads for c in configs), default=1) or 1


def unexplored(open_configs: Sequence[RunConfig], trials: Sequence[Trial]) -> list[RunConfig]:
    """The open configurations at the most threads of a kind no trial has measured yet: a
    stream count with requests = streams (else all its requests up to the streams), then
    the same with the fewest requests queued beyond the streams. What queued requests add
    is the model's other unknown: for a small model's small batches it can be 30 %."""
    top = _most_threads(open_configs)

    def kind(config: RunConfig) -> tuple[float, bool]:
        load = Load.of(config, top)
        return load.streams, load.queued > 1

    seen = {kind(t.config) for t in trials if t.config.threads == top}
    fresh = [c for c in open_configs if c.threads == top and kind(c) not in seen]
    if not fresh:
        return []
    first = min((kind(c) for c in fresh), key=lambda k: (k[1], k[0]))  # streams first
    fresh = [c for c in fresh if kind(c) == first]
    requests = [Load.of(c, top).requests for c in fresh]
    want = min(requests) if first[1] else max(requests)
    return [c for c, r in zip(fresh, requests, strict=True) if r == want]


def propose(
    open_configs: Sequence[RunConfig], trials: Sequence[Trial], budget_ms: float
) -> RunConfig | None:
    """The configuration to measure next: an unexplored stream count first, else the one
    with the most throughput expected within the budget; None when none is expected to
    reach the best's throughput x WORTH_TRYING."""
    threads = _most_threads([*open_configs, *(t.config for t in trials)])
    pool = unexplored(open_configs, trials)
    exploring = bool(pool)
    pool = pool or list(open_configs)
    scored = []
    for config in pool:
        guess = estimate(config, trials, threads)
        if guess is None:
            return config
        if guess.latency_ms <= budget_ms * FIT_SLACK:
            scored.append((guess, config))
    best = best_trial(trials)
    floor = 0.0 if exploring or best is None else best.fps * WORTH_TRYING
    hopeful = [(g, c) for g, c in scored if g.fps > floor]
    if not hopeful and exploring:
        return unexplored_fallback(pool, trials, threads)
    if not hopeful and best is not None:
        hopeful = [(g, c) for g, c in scored if c in neighbours(best.config, open_configs)]
    return max(hopeful, key=lambda gc: (gc[0].fps, -gc[0].latency_ms))[1] if hopeful else None


def neighbours(config: RunConfig, configs: Sequence[RunConfig]) -> list[RunConfig]:
    """The configurations one step from `config` along one knob (the next batch, requests,
    streams or threads value up or down): the model is rough near a knee, so the best's
    neighbours are measured before the search trusts it."""
    found = []
    for knob in ("batch", "requests", "streams", "threads"):
        values = sorted({getattr(c, knob) for c in configs} | {getattr(config, knob)}, key=_order)
        at = values.index(getattr(config, knob))
        steps = {values[i] for i in (at - 1, at + 1) if 0 <= i < len(values)}
        found += [c for c in configs if getattr(c, knob) in steps and _only(c, config, knob)]
    return found


def _order(value: int | str) -> float:
    return 0.0 if value == AUTO else float(value)


def _only(a: RunConfig, b: RunConfig, knob: str) -> bool:
    """`a` and `b` differ in `knob` alone."""
    return key(a, without=(knob,)) == key(b, without=(knob,))


def unexplored_fallback(
    pool: Sequence[RunConfig], trials: Sequence[Trial], threads: int
) -> RunConfig | None:
    """An unexplored kind (see `unexplored`) none of whose batches is expected to fit: its
    lowest latency configuration, measured once so the model learns its scaling."""
    guesses = [(estimate(c, trials, threads), c) for c in pool]
    known = [(g.latency_ms, c.batch, c) for g, c in guesses if g is not None]
    return min(known, key=lambda k: (k[0], k[1]))[2] if known else None


def floor_configs(configs: Sequence[RunConfig]) -> list[RunConfig]:
    """The configurations by the latency to expect, least first: the smallest batch, sync
    before async, the fewest requests, the latency hint, one stream, the most threads (then
    fewer: on a busy machine one thread can beat two)."""

    def expected(c: RunConfig) -> tuple[int, bool, int, bool, int, int]:
        requests = 1 if c.api == "sync" else 10**6 if c.requests == AUTO else int(c.requests)
        streams = 1 if c.streams == AUTO else int(c.streams)
        return (c.batch, c.api != "sync", requests, c.hint != "latency", streams, -c.threads)

    return sorted(configs, key=expected)
