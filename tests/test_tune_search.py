"""The search loop's rules on made-up measurements: repeats, refusals, runs just over the
budget, trials too noisy to use (perftui.tune.search with perftui.domain.tune)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest

from perftui.domain.errors import InputError
from perftui.domain.records import (
    BenchmarkRequest,
    Budget,
    Project,
    RunConfig,
    RunResult,
)
from perftui.domain.tune.result import (
    OVER,
    Limits,
    best_trial,
    judge_trial,
    on_the_edge,
    run_budget,
)
from perftui.tune.search import Outcome
from tests.test_tune_domain import cfg, run, trial

Answer = Callable[[RunConfig, int], tuple[float, float, float]]
"""A made-up measurement: (fps, median ms, spread) for a configuration and the number of
the run (1 for the search's first)."""


def fake_search(
    monkeypatch: pytest.MonkeyPatch, space: list[RunConfig], budget_ms: float, answer: Answer
) -> tuple[Callable[[Limits], Outcome], list[tuple[RunConfig, Budget]]]:
    """A tune of `space` whose trials answer each run with `answer`, and the log of what
    it measured: (configuration, the run's budget)."""
    from perftui.tune import search

    log: list[tuple[RunConfig, Budget]] = []

    class Fake:
        cancelled = False

        def __init__(self, request: BenchmarkRequest, *_: object) -> None:
            self.budget = request.budget

        def run(self, config: RunConfig, _sink: object) -> tuple[RunResult, np.ndarray, bool]:
            log.append((config, self.budget))
            fps, median, spread = answer(config, len(log))
            result, samples = run(fps, median, spread=spread, rid=f"r{len(log)}")
            return replace(result, config=config), samples, False

    monkeypatch.setattr(search, "TrialRunner", Fake)
    request = BenchmarkRequest(Project("p", "m.onnx", "openvino", "CPU"), space, Budget())

    def tune(limits: Limits) -> Outcome:
        return search.Tuner(request, space, "median", budget_ms, limits, None).run()

    return tune, log


def test_the_search_repeats_a_noisy_best_and_stops_when_nothing_can_beat_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The loop of perftui.tune.search on made-up measurements: latency doubles per batch
    doubling, throughput peaks at batch 4, and every run of batch 4 is noisy."""
    from perftui.tune.search import CONVERGED

    def answer(config: RunConfig, _n: int) -> tuple[float, float, float]:
        fps = {1: 100.0, 2: 180.0, 4: 300.0, 8: 280.0}[config.batch] / config.requests
        return fps, config.batch * config.requests, 0.01 + (config.batch == 4) * 0.2

    space = [cfg(b, 1, 1, r) for b in (1, 2, 4, 8) for r in (1, 2)]
    tune, log = fake_search(monkeypatch, space, 5.0, answer)
    outcome = tune(Limits(patience=5))
    measured = [config for config, _ in log]
    assert outcome.best is not None and outcome.best.config == cfg(4, 1, 1, 1)
    assert len(outcome.best.run_ids) == 2 and measured.count(cfg(4, 1, 1, 1)) == 2
    assert {b for _, b in log} == {run_budget(Budget())}  # half the asked time, each run
    assert outcome.reason == CONVERGED
    assert len(outcome.trials) < len(space)
    # a search that stalls (patience) still measures its best again before it ends on it
    log.clear()
    tired = tune(Limits(patience=1))
    assert "did not beat" in tired.reason and tired.best is not None
    assert len(tired.best.run_ids) == 2
    assert [config for config, _ in log].count(tired.best.config) == 2


@pytest.mark.parametrize("second_ms", [1.0, 40.0])
def test_a_refusal_waits_for_a_second_run(
    monkeypatch: pytest.MonkeyPatch, second_ms: float
) -> None:
    """The least-latency configuration's run over the budget beyond noise is measured once
    more, and the second run decides: refused, or the first trial."""

    def answer(_config: RunConfig, n: int) -> tuple[float, float, float]:
        median = 40.0 if n == 1 else second_ms
        return 1000 / median, median, 0.01

    tune, log = fake_search(monkeypatch, [cfg(1), cfg(2)], 5.0, answer)
    if second_ms > 5.0:
        with pytest.raises(InputError, match=r"configurations tried: b1 t2 .* 40 ms .*; b2"):
            tune(Limits(trials=1))
    else:
        first = tune(Limits(trials=1)).trials[0]
        assert first.number == 1 and first.fits and first.run_ids[0] == "r2"
    # refused after two runs of each least-latency configuration; else the first trial's
    # second run ends the search
    assert [b for _, b in log] == [run_budget(Budget())] * (4 if second_ms > 5.0 else 3)


def test_a_budget_the_fewest_threads_can_meet_is_not_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a busy machine t:2 read 9.19 ms while t:1 read 5.1 ms: a 7 ms budget was refused
    after t:2 alone. The floor tries fewer threads before it refuses."""

    def answer(config: RunConfig, _n: int) -> tuple[float, float, float]:
        median = 9.2 if config.threads == 2 else 5.1
        return 1000 / median, median, 0.01

    tune, log = fake_search(monkeypatch, [cfg(1, 2), cfg(1, 1)], 7.0, answer)
    outcome = tune(Limits(trials=1))
    assert [c.threads for c, _ in log][:3] == [2, 2, 1]
    assert outcome.trials[0].config == cfg(1, 1) and outcome.trials[0].fits


def test_a_trial_just_over_the_budget_that_would_win_is_measured_again() -> None:
    fitting = trial(2, 200.0, 10.0)
    assert fitting.latency is not None
    budget = fitting.latency.value * 0.999  # just under the trial's median
    edge = judge_trial(2, RunConfig(), [run(200.0, 10.0)], "median", budget)
    best = trial(1, 100.0, 5.0, budget)
    assert edge.status == OVER and edge.latency is not None and edge.latency.lo <= budget
    assert on_the_edge(edge, best, budget) and on_the_edge(edge, None, budget)
    assert on_the_edge(trial(3, 200.0, 11.5, budget), best, budget)  # a run away
    assert not on_the_edge(trial(3, 200.0, 13.0, budget), best, budget)  # beyond
    assert not on_the_edge(replace(edge, throughput=best.throughput), best, budget)  # no win
    assert not on_the_edge(best, None, budget)  # fits
    assert not on_the_edge(replace(edge, run_ids=("r", "r2")), best, budget)  # measured twice


def test_a_trial_on_the_edge_is_measured_again_before_the_search_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Batch 4 is the best, but its first run reads 3 % over the budget: it is measured
    once more before the search ends, fits, and wins (two runs 8 % apart: a mean whose
    interval stays short of zero, else it would be too noisy to win)."""
    firsts: set[RunConfig] = set()

    def answer(config: RunConfig, _n: int) -> tuple[float, float, float]:
        again = config in firsts
        firsts.add(config)
        median = {1: 2.0, 2: 4.0, 4: 9.5 if again else 10.3}[config.batch]
        return {1: 100.0, 2: 180.0, 4: 300.0}[config.batch], median, 0.01

    tune, log = fake_search(monkeypatch, [cfg(b, 1, 1, 1) for b in (1, 2, 4)], 10.0, answer)
    outcome = tune(Limits(patience=5))
    assert [config for config, _ in log].count(cfg(4, 1, 1, 1)) == 2
    assert outcome.best is not None and outcome.best.config == cfg(4, 1, 1, 1)


def test_a_trial_too_noisy_to_use_neither_fits_nor_wins() -> None:
    """'2,479 ±139 %, p90 2.03 ±352 %' was declared to fit and the best."""
    from perftui.domain.tune.result import TOO_NOISY

    wild = judge_trial(1, RunConfig(), [run(2479.0, 2.0), run(300.0, 9.0)], "median", 10.0)
    assert wild.status == TOO_NOISY and not wild.fits
    assert best_trial([wild]) is None
