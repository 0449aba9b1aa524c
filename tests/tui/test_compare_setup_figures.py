"""The compare setup's runs table gives each run's figures with their 95 % intervals and the
run's verdict mark, as the other tables do."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.measurement.figures import run_figures
from perftui.tui.app import create_app
from perftui.tui.kit import format as fmt
from tests.tui.compare_data import FP32_RUNS, INT8_RUNS, fill_compare_store
from tests.tui.test_compare import cells, open_compare, wait_for

pytestmark = pytest.mark.tui

WINDOWS = (196.0, 204.0, 199.0, 201.0, 198.0, 202.0)
SAMPLES = np.random.default_rng(1).normal(5.0, 0.2, 400)


async def test_the_runs_table_shows_intervals_and_verdicts(tmp_path: Path, services):
    store = fill_compare_store(tmp_path / "compare.json")
    measured = replace(FP32_RUNS[0], id="net-fp32-12", window_fps=WINDOWS)
    store.add_runs([(measured, SAMPLES)])
    app = create_app(tmp_path / "compare.json", services)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_compare(app, pilot, "net-fp32", "net-int8")
        await wait_for(pilot, lambda: len(cells(screen, "cmp-runs")) == 10)
        table = screen.query_one("#cmp-runs")
        columns = [str(c.label) for c in table.columns.values()]
        rows = dict(zip(screen.row_keys, cells(screen, "cmp-runs"), strict=True))
        row = rows[("A", measured.id)]
        figures = run_figures(measured, SAMPLES)
        assert row[columns.index("items/s")].strip() == fmt.fps_ci(200.0, figures.throughput)
        assert "±" in row[columns.index("items/s")]
        median = row[columns.index("median ms")].strip()
        assert median == fmt.ms_ci(measured.latency_ms.median, figures.latency["median"])
        assert row[columns.index("V")] == fmt.verdict_mark(figures.verdict.status)
        failed = rows[("A", FP32_RUNS[-1].id)]
        assert failed[columns.index("V")] == "" and "failed" in failed
        plain = rows[("B", INT8_RUNS[0].id)]
        assert plain[columns.index("V")] in fmt.VERDICT_MARKS.values()
