"""A cost per million inferences carries the interval of the throughput it comes from
(issue 40, item 7): `bench` and `show` printed '0.962' beside '923.9 ±42%'."""

from __future__ import annotations

from dataclasses import replace

from perftui.cli.textfmt import runs_table
from perftui.domain.measurement.cost import cost_ci, cost_per_million
from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.records import Project
from tests.cli_helpers import table_column
from tests.tui.conftest import ENV, make_run


def test_the_cost_interval_is_the_throughputs_turned_round():
    found = cost_ci(Interval(200.0, 150.0, 250.0, 5), 3.6)
    assert found is not None
    assert found.value == cost_per_million(200.0, 3.6) == 5.0
    assert (found.lo, found.hi) == (cost_per_million(250.0, 3.6), cost_per_million(150.0, 3.6))
    assert cost_ci(Interval(200.0, 0.0, 400.0, 5), 3.6).too_noisy  # may be free or endless


def test_bench_and_show_print_the_cost_with_its_interval():
    run = make_run("p", 1, 1, 200.0, 1)
    run = replace(
        run,
        window_fps=tuple(200.0 * (1 + 0.2 * (i % 3 - 1)) for i in range(12)),
        resolved={**run.resolved, "environment": {**ENV, "price_per_hour": 3.6}},
    )
    text = runs_table([run], project=Project("p", "/m.onnx", "openvino", "CPU"))
    header, dashes, row, *_ = text.splitlines()
    (cost,) = table_column([header, dashes, row], "$/M inf")
    assert cost.startswith("5 ±") and cost.endswith("%"), text
