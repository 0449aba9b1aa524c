"""Redraw pacing: a rate cap, fewer redraws while the process is dear, and a longest wait."""

from __future__ import annotations

import pytest

from perftui.tui.kit.pacing import LONGEST_WAIT_S, redraw_interval


def test_cheap_redraws_run_at_the_cap():
    assert redraw_interval(0.004, max_hz=2, budget=0.03) == 0.5
    assert redraw_interval(0.0, max_hz=4, budget=0.03) == 0.25


def test_expensive_redraws_are_spaced_to_stay_within_the_budget():
    # 60 ms of the process's CPU since the last frame, within 3% of a core: 2 s apart
    assert redraw_interval(0.06, max_hz=2, budget=0.03) == pytest.approx(2.0)
    # the share of a core the process used is then the budget
    interval = redraw_interval(0.045, max_hz=2, budget=0.03)
    assert 0.045 / interval == pytest.approx(0.03)


def test_a_view_never_waits_longer_than_the_longest_wait():
    assert redraw_interval(20.0, max_hz=2, budget=0.03) == LONGEST_WAIT_S
    assert redraw_interval(20.0, max_hz=2, budget=0.03, longest_s=3.0) == 3.0


def test_degenerate_inputs_fall_back_to_the_cap():
    assert redraw_interval(-1.0, max_hz=2, budget=0.03) == 0.5
    assert redraw_interval(0.5, max_hz=2, budget=0) == 0.5
