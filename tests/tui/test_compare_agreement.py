"""The compare screen and `perftui compare --json` agree on the sweet spot, on real runs of the
shipped FP32 and INT8 MobileNet (benchmarked once for the module, with per-layer profiles)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select

from perftui import cli
from perftui.domain.compare import Side, run_latency
from perftui.store.database import Store
from perftui.tui.app import create_app
from perftui.tui.compare.setup import CompareScreen
from perftui.tui.compare.summary import CompareSummaryScreen
from tests.cli_helpers import perftui
from tests.conftest import LAYER_PRECISION, MOBILENET, MOBILENET_INT8, openvino_cpu_precision
from tests.tui.waiting import wait_for

pytestmark = [pytest.mark.tui, pytest.mark.engine]

BENCH = ["--profile", "--time", "0.3", "--iterations", "5", "--warmup", "1", "--batch", "1,2"]


@pytest.fixture(scope="module")
def real_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """fp32 and int8 projects, two runs each (batch 1 and 2), measured side by side."""
    db = tmp_path_factory.mktemp("compare") / "real.json"
    for model, name in ((MOBILENET, "fp32"), (MOBILENET_INT8, "int8")):
        result = perftui("bench", str(model), "--project", name, *BENCH, db=db, timeout=180)
        assert result.returncode == 0, result.stderr
    return db


def thresholds(db: Path, stat: str) -> list[float]:
    """Below every run, exactly at each run's latency (the bound is inclusive), between two
    runs and above every run."""
    store = Store(db)
    values = sorted(
        v for name in ("fp32", "int8") for r in store.runs(name) if (v := run_latency(r, stat))
    )
    return [values[0] / 2, *values, (values[1] + values[2]) / 2, values[-1] * 2]


def cli_sweet(
    db: Path, threshold: float, stat: str, runs: list[str] | None = None
) -> tuple[str, str] | None:
    """`perftui compare fp32 int8 --threshold T --stat S [--runs ...] --json`, in process."""
    args = ["compare", "fp32", "int8", "--threshold", repr(threshold), "--stat", stat]
    if runs is not None:
        args += ["--runs", ",".join(runs)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):  # the running app captures print() otherwise
        assert cli.main([*args, "--json", "--db", str(db)]) == 0
    spot = json.loads(out.getvalue())["sweet_spot"]
    return (spot["side"], spot["run"]["id"]) if spot else None


async def test_screen_and_cli_agree_on_the_sweet_spot(real_db: Path, services):
    app = create_app(real_db, services)
    checked: list[tuple[str, float, tuple[str, str] | None]] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.store is not None and len(app.screen_stack) > 1)
        screen = CompareScreen("fp32", "int8")
        app.push_screen(screen)
        await pilot.pause()
        for stat in ("median", "p99"):
            screen.query_one("#cmp-stat", Select).value = stat
            await pilot.pause()
            for threshold in thresholds(real_db, stat):
                screen.query_one("#cmp-threshold", Input).value = repr(threshold)
                await pilot.pause()
                c = screen.comparison
                shown = (c.sweet.side, c.sweet.run.id) if c.sweet else None
                assert shown == cli_sweet(real_db, threshold, stat), (stat, threshold)
                if shown is not None:  # the table marks the same run
                    table = screen.query_one("#cmp-runs", DataTable)
                    row = screen.row_keys.index(shown)
                    mark = list(table.columns).index("mark")
                    assert "★" in str(table.get_row_at(row)[mark])
                checked.append((stat, threshold, shown))
        everything = list(checked)
        # the same with some runs unchecked: the screen's checked runs are the CLI's --runs
        screen.query_one("#cmp-stat", Select).value = "median"
        await pilot.pause()
        fastest = max(screen.state.sides[Side.B].runs, key=lambda r: r.throughput_fps)
        table = screen.query_one("#cmp-runs", DataTable)
        table.move_cursor(row=screen.row_keys.index(("B", fastest.id)))
        table.focus()
        await pilot.press("space")
        await pilot.pause()
        chosen = sorted(screen.state.sides[Side.A].checked | screen.state.sides[Side.B].checked)
        assert fastest.id not in chosen
        for threshold in thresholds(real_db, "median"):
            screen.query_one("#cmp-threshold", Input).value = repr(threshold)
            await pilot.pause()
            c = screen.comparison
            shown = (c.sweet.side, c.sweet.run.id) if c.sweet else None
            assert shown == cli_sweet(real_db, threshold, "median", chosen), threshold
            checked.append(("median", threshold, shown))
        # the kernel-level table shows the INT8 layers in I8 beside their FP32 twins
        screen.query_one("#cmp-runs").focus()
        await pilot.press("c")
        await pilot.pause()
        summary = app.screen
        assert isinstance(summary, CompareSummaryScreen)
        pairs = [p for p in summary.comparison.layers if p.presence == "both"]
        ran = LAYER_PRECISION[openvino_cpu_precision()]  # FP32 runs in bf16 on a BF16 CPU
    assert any(p.a.precision == ran and p.b.precision == "I8" for p in pairs)
    sides = {spot for _, _, spot in checked}
    assert None in sides and len(sides) >= 2  # some thresholds find none, others a run
    # and the installed command prints what the in-process calls printed (all runs)
    stat, threshold, shown = everything[-1]
    result = perftui(
        "compare", "fp32", "int8", "--threshold", repr(threshold), "--stat", stat, "--json",
        db=real_db,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    spot = json.loads(result.stdout)["sweet_spot"]
    assert (spot["side"], spot["run"]["id"]) == shown
