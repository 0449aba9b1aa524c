"""0-based axes with round, evenly spaced ticks for a latency/throughput scatter
(perftui.domain.ticks), shared by the compare and tune charts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perftui.domain.ticks import Axis, row_axis


def scatter_axes(
    plt: Any,
    xs: Sequence[float],
    ys: Sequence[float],
    size: tuple[int, int],
    labelled: bool,
) -> tuple[Axis, Axis]:
    """Set `plt`'s limits and ticks so that every (x, y) shows with room around it, from
    0 on both axes; returns the (x, y) axes. `size` is the widget's (width, height);
    `labelled` whether an x label takes a row."""
    width, height = size
    # rows of the plot: the widget's less the frame, the x tick labels and the x label
    y_axis = row_axis(max(ys, default=0.0) * 1.05, height - 3 - labelled)
    # columns of the plot, about: the widget's less the y labels and the frame
    x_axis = row_axis(max(xs, default=0.0) * 1.1, width - 8)
    plt.xlim(0, x_axis.top)
    plt.xticks(x_axis.ticks, x_axis.labels)
    plt.ylim(0, y_axis.top)
    plt.yticks(y_axis.ticks, y_axis.labels)
    return x_axis, y_axis
