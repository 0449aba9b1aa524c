"""One Student-t quantile (domain/measurement/uncertainty.t_quantile), exact, for every
caller: the intervals' t_critical, the gate and the history's change points."""

from __future__ import annotations

import pytest

from perftui.domain.measurement import uncertainty
from perftui.domain.regression import gate, history

KNOWN = [  # P(T > t) = upper tail; t to six places (scipy.stats.t.ppf, printed tables)
    (0.025, 1, 12.706205), (0.025, 2, 4.302653), (0.025, 4, 2.776445),
    (0.025, 10, 2.228139), (0.025, 30, 2.042272), (0.025, 100, 1.983972),
    (0.05, 4, 2.131847), (0.005, 10, 3.169273),
]  # fmt: skip


@pytest.mark.parametrize(("upper_tail", "df", "expected"), KNOWN)
def test_the_quantile_is_exact(upper_tail: float, df: int, expected: float) -> None:
    assert uncertainty.t_quantile(upper_tail, df) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("df", [1, 2, 4, 10, 30, 31, 100])
def test_the_intervals_critical_value_is_the_same_quantile(df: int) -> None:
    assert uncertainty.t_critical(df) == pytest.approx(uncertainty.t_quantile(0.025, df), 1e-12)
    expected = {d: t for tail, d, t in KNOWN if tail == 0.025}.get(df)
    if expected is not None:
        assert uncertainty.t_critical(df) == pytest.approx(expected, abs=1e-6)


def test_the_gate_and_history_use_that_one_quantile() -> None:
    assert gate.t_quantile is uncertainty.t_quantile
    assert history.t_quantile is uncertainty.t_quantile
    with pytest.raises(ValueError, match="at least two values"):
        uncertainty.t_critical(0)
