"""Redraw pacing: a rate cap, and fewer redraws when each one is expensive."""

from __future__ import annotations

import pytest

from perftui.tui.kit.pacing import redraw_interval


def test_cheap_redraws_run_at_the_cap():
    assert redraw_interval(0.004, max_hz=2, budget=0.03) == 0.5
    assert redraw_interval(0.0, max_hz=4, budget=0.03) == 0.25


def test_expensive_redraws_are_spaced_to_stay_within_the_budget():
    # 60 ms a frame within 3% of a core: one frame every 2 s
    assert redraw_interval(0.06, max_hz=2, budget=0.03) == pytest.approx(2.0)
    # the share of a core spent redrawing is then the budget
    interval = redraw_interval(0.045, max_hz=2, budget=0.03)
    assert 0.045 / interval == pytest.approx(0.03)


def test_degenerate_inputs_fall_back_to_the_cap():
    assert redraw_interval(-1.0, max_hz=2, budget=0.03) == 0.5
    assert redraw_interval(0.5, max_hz=2, budget=0) == 0.5
