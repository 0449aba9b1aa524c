"""The playoff that ends a tune: who plays, in what order, who wins, and what the search
does with it (pure, and the search loop on made-up measurements)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from perftui.domain.forms.tune import tune_spec
from perftui.domain.measurement.uncertainty import Ratio
from perftui.domain.records import Project, RunConfig
from perftui.domain.tune import playoff
from perftui.domain.tune.playoff import (
    PLAYOFF_ROUNDS,
    affordable,
    contenders,
    play_order,
    standings,
)
from perftui.domain.tune.result import (
    Limits,
    Trial,
    best_trial,
    default_trials,
    within_noise,
)
from perftui.engines.capabilities import OPENVINO
from tests.test_tune_domain import cfg, trial
from tests.test_tune_search import fake_search


def test_contenders_are_the_fastest_fitting_trials_within_the_span() -> None:
    best = trial(1, 100.0, 5.0)
    close, closer, far = trial(2, 85.0, 5.0), trial(3, 95.0, 5.0), trial(4, 70.0, 5.0)
    over = trial(5, 99.0, 50.0)
    assert contenders([close, best, far, over, closer], best) == [best, closer, close]
    fourth = trial(6, 90.0, 5.0)
    assert contenders([close, best, fourth, closer], best) == [best, closer, fourth]
    assert contenders([over], None) == []


def test_the_slowest_contenders_sit_out_a_playoff_the_search_cannot_afford() -> None:
    a, b, c = cfg(1), cfg(2), cfg(16)
    seconds = {a: 1.0, b: 1.0, c: 3.0}  # two rounds of all three: 10 s
    assert affordable([a, b, c], seconds, 20.0) == [a, b, c]  # half the search's 20 s
    assert affordable([a, b, c], seconds, 19.0) == [a, b]
    assert affordable([a, b, c], seconds, 1.0) == [a]  # the best is always kept


def test_rounds_alternate_so_no_contender_always_runs_first() -> None:
    field = [cfg(1), cfg(2), cfg(4)]
    assert play_order(field, 0) == field and play_order(field, 1) == field[::-1]


def test_the_winner_has_the_best_paired_rounds_and_stands_at_one() -> None:
    a, b, c = cfg(1), cfg(2), cfg(4)
    # the machine slows down in round 2: every contender alike, the pairs still judge
    rounds = [{a: 100.0, b: 110.0, c: 90.0}, {a: 50.0, b: 56.0, c: 44.0}]
    found = standings(rounds, [a, b, c])
    assert found[b] == Ratio(1.0, 1.0, 1.0)
    assert found[a].value == pytest.approx((100 / 110 * 50 / 56) ** 0.5)
    assert found[c].value < found[a].value < 1.0
    # a contender that does not fit is not ranked; a round with a failed run is not counted
    assert set(standings(rounds, [a, c])) == {a, c}
    assert standings([rounds[0], {a: 1.0, c: 1.0}], [a, b, c]) == {}
    assert standings(rounds[:1], [a, b, c]) == {}


def test_the_playoffs_winner_is_the_best_and_its_pairs_say_what_is_within_noise() -> None:
    fast, slow, far = trial(1, 100.0, 5.0), trial(2, 95.0, 5.0), trial(3, 50.0, 5.0)
    assert best_trial([fast, slow, far]) is fast
    won = replace(slow, standing=Ratio(1.0, 1.0, 1.0))
    lost = replace(fast, standing=Ratio(0.9, 0.8, 1.01))
    assert best_trial([lost, won, far]) is won
    assert within_noise(won, [lost, won, far]) == [lost]
    beaten = replace(lost, standing=Ratio(0.9, 0.85, 0.95))
    assert within_noise(won, [beaten, won, far]) == []


def test_standing_survives_the_wire() -> None:
    played = replace(trial(1, 100.0, 5.0), standing=Ratio(0.9, 0.8, 1.01))
    assert Trial.from_wire(played.to_wire()) == played
    assert played.to_dict()["playoff_ratio"] == 0.9
    assert played.to_dict()["playoff_ci"] == [0.8, 1.01]
    unplayed = trial(2, 100.0, 5.0)
    assert Trial.from_wire(unplayed.to_wire()).standing is None


def test_a_search_measures_a_fifth_of_its_space_unless_told() -> None:
    assert default_trials(60) == 12 and default_trials(10) == 8 and default_trials(768) == 154
    project = Project("p", "m.onnx", "openvino", "CPU")
    values = {"max_latency": "5", "space": "batch=1..16 threads=1,2 streams=1,2 requests=1,2"}
    spec = tune_spec(values, project, OPENVINO, None, 2)
    assert spec.limits.trials == default_trials(len(spec.candidates))
    assert tune_spec({**values, "trials": "40"}, project, OPENVINO, None, 2).limits.trials == 40


def test_the_playoff_picks_by_rounds_measured_in_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batch 2's one run read faster than batch 4's; measured in turn, batch 4 is faster in
    every round and wins. Every contender gets PLAYOFF_ROUNDS more runs, in alternated order.
    (A search of three made-up trials could not afford a playoff by the real share.)"""
    monkeypatch.setattr(playoff, "PLAYOFF_SHARE", 10.0)
    seen: dict[RunConfig, int] = {}

    def answer(config: RunConfig, _n: int) -> tuple[float, float, float]:
        seen[config] = seen.get(config, 0) + 1
        first = seen[config] == 1
        fps = {1: 100.0, 2: 300.0 if first else 250.0, 4: 280.0}[config.batch]
        return fps, float(config.batch), 0.01

    space = [cfg(b, 1, 1, 1) for b in (1, 2, 4)]
    tune, log = fake_search(monkeypatch, space, 10.0, answer)
    outcome = tune(Limits(patience=5))
    assert outcome.best is not None and outcome.best.config == cfg(4, 1, 1, 1)
    played = [t for t in outcome.trials if t.standing is not None]
    assert {t.config.batch for t in played} == {2, 4}
    assert all(len(t.run_ids) == 1 + PLAYOFF_ROUNDS for t in played)
    last = [config.batch for config, _ in log][-2 * PLAYOFF_ROUNDS :]
    assert last == [2, 4, 4, 2]  # the fastest by its first run starts, then the order turns
    assert outcome.to_dict()["best"]["playoff_ratio"] == 1.0


def test_no_playoff_is_played_past_the_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no time left for a round, the search ends on its best as measured."""

    def answer(config: RunConfig, _n: int) -> tuple[float, float, float]:
        return {1: 100.0, 2: 300.0, 4: 280.0}[config.batch], float(config.batch), 0.01

    space = [cfg(b, 1, 1, 1) for b in (1, 2, 4)]
    tune, log = fake_search(monkeypatch, space, 10.0, answer)
    outcome = tune(Limits(budget_s=0.0))
    assert all(t.standing is None for t in outcome.trials)
    assert len(log) == 1  # the first trial only: the budget was spent at once


def test_a_lone_best_dropped_by_its_second_run_hands_its_second_run_to_the_new_best(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With no time for a playoff, the best is measured once more; batch 4's second run
    reads far below its first, so batch 2 leads on one run and is measured again too."""
    monkeypatch.setattr(playoff, "PLAYOFF_SHARE", 0.0)
    seen: dict[RunConfig, int] = {}

    def answer(config: RunConfig, _n: int) -> tuple[float, float, float]:
        seen[config] = seen.get(config, 0) + 1
        fps = {1: 100.0, 2: 200.0, 4: 300.0 if seen[config] == 1 else 50.0}[config.batch]
        return fps, float(config.batch), 0.01

    space = [cfg(b, 1, 1, 1) for b in (1, 2, 4)]
    tune, log = fake_search(monkeypatch, space, 10.0, answer)
    outcome = tune(Limits(trials=3))
    assert outcome.best is not None and outcome.best.config == cfg(2, 1, 1, 1)
    assert len(outcome.best.run_ids) == 2
    assert [config.batch for config, _ in log][-2:] == [4, 2]
    assert all(t.standing is None for t in outcome.trials)
