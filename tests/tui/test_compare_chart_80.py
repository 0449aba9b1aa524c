"""The compare chart at 80x24: round y ticks the same number of rows apart, at least five plot
rows, and one cell per mark (a compared run's letter, the sweet spot's star) so that no mark
runs into another."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from perftui.domain.charts.ticks import nice_step, row_axis
from perftui.tui.compare.charts import SWEET, LatencyThroughputChart
from tests.tui.test_compare import cmp_app, open_compare  # noqa: F401 (a fixture)
from tests.tui.waiting import settled

pytestmark = pytest.mark.tui

Y_LABEL = re.compile(r"^\s*([\d.]+)┤")


@pytest.mark.parametrize(
    ("least", "step"), [(0.3, 0.5), (1.0, 1.0), (1.7, 2.0), (2.1, 2.5), (4.0, 5.0), (231, 250)]
)
def test_round_step(least: float, step: float) -> None:
    assert nice_step(least) == pytest.approx(step)


@pytest.mark.parametrize("top", [0.37, 13.9, 686.2, 924.0, 12_345.0])
@pytest.mark.parametrize("rows", [3, 4, 5, 6, 7, 8, 11, 60])
def test_row_axis_ticks_are_round_and_fall_on_rows(top: float, rows: int) -> None:
    axis = row_axis(top, rows)
    assert axis.top >= top and 3 <= len(axis.ticks) <= 6
    step = axis.ticks[1]
    assert step == nice_step(step)
    # each tick is a whole number of rows from 0, and the rows between ticks are the same
    rows_per_step = step / axis.top * (rows - 1)
    assert rows_per_step == pytest.approx(round(rows_per_step)) and rows_per_step >= 1
    assert axis.ticks[-1] <= axis.top < axis.ticks[-1] + step


def test_row_axis_labels_have_the_decimals_of_the_step() -> None:
    assert row_axis(810, 5).labels == ["0", "250", "500", "750", "1000"]
    assert row_axis(9.0, 5).labels == ["0.0", "2.5", "5.0", "7.5", "10.0"]


async def test_the_chart_at_80x24_has_even_round_ticks_and_marks_one_cell_each(cmp_app):  # noqa: F811
    async with cmp_app.run_test(size=(80, 24)) as pilot:
        screen = await open_compare(cmp_app, pilot)
        await settled(pilot)
        chart = screen.query_one(LatencyThroughputChart)
        lines = str(chart.render()).splitlines()
        rows = [n for n, line in enumerate(lines) if "┤" in line or line.lstrip().startswith("│")]
        assert len(rows) >= 4, lines  # the axes' titles take a row (issue 40, item 12)
        labelled = [
            (n, float(m.group(1))) for n, line in enumerate(lines) if (m := Y_LABEL.match(line))
        ]
        assert len(labelled) >= 3, lines
        row_gaps = {b[0] - a[0] for a, b in pairwise(labelled)}
        value_gaps = {round(a[1] - b[1], 6) for a, b in pairwise(labelled)}
        assert len(row_gaps) == 1 and len(value_gaps) == 1, lines
        (step,) = value_gaps
        assert step == nice_step(step)
        plot = "\n".join(lines)
        assert plot.count(SWEET) == 1 and "B" + SWEET not in plot and SWEET + "B" not in plot
        assert plot.count("A") == 1, lines  # the compared run of A, no '*' beside a letter
