"""0-based axes with round, evenly spaced ticks (perftui.domain.charts.ticks) set on a plotext
figure: the y axis of the live charts, both axes of the compare and tune scatters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perftui.domain.charts.ticks import Axis, row_axis


def fit_y(plt: Any, top: float, rows: int) -> Axis:
    """A y axis from 0 to a little above `top` over `rows` rows of the plot."""
    axis = row_axis(top * 1.05, rows)
    plt.ylim(0, axis.top)
    plt.yticks(axis.ticks, axis.labels)
    return axis


def fit_x(plt: Any, top: float, columns: int) -> Axis:
    """An x axis from 0 to a little beyond `top` over about `columns` columns."""
    axis = row_axis(top * 1.1, columns)
    plt.xlim(0, axis.top)
    plt.xticks(axis.ticks, axis.labels)
    return axis


def scatter_axes(
    plt: Any,
    xs: Sequence[float],
    ys: Sequence[float],
    size: tuple[int, int],
    labelled: bool,
) -> tuple[Axis, Axis]:
    """Both axes of a scatter in a widget of `size` (width, height), so that every (x, y)
    shows with room around it; `labelled` whether an x label takes a row. Returns (x, y)."""
    width, height = size
    # rows of the plot: the widget's less the frame, the x tick labels and the x label;
    # columns, about: the widget's less the y labels and the frame
    y_axis = fit_y(plt, max(ys, default=0.0), height - 3 - labelled)
    x_axis = fit_x(plt, max(xs, default=0.0), width - 8)
    return x_axis, y_axis
