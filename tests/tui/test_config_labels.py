"""Issue 25, items 1 and 5: every label of a configuration includes its dims, and at 80
columns rows that differ never read the same. What the rows share is said once; each row
keeps what differs (`domain.labels`), in the live table and the project's Runs tab."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from textual.widgets import DataTable, Static

from perftui.domain.labels import config_labels
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.store.database import Store
from perftui.tui.benchmark.charts import LiveChart
from perftui.tui.benchmark.live import LiveRunScreen
from tests.tui.conftest import make_run
from tests.tui.test_detail import cells, open_detail, text
from tests.tui.test_live import table_rows
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui

MATRIX = tuple(
    RunConfig(b, 0, hint="latency" if api == "sync" else "throughput", api=api, dims=(("seq", s),))
    for b in (1, 2)
    for s in (32, 64)
    for api in ("sync", "async")
)


def test_labels_keep_what_differs_and_say_the_rest_once() -> None:
    labels = config_labels(MATRIX, ["bf16"] * len(MATRIX))
    assert labels.labels[:2] == ("b1 sync seq=32", "b1 async seq=32")
    assert len(set(labels.labels)) == len(MATRIX)
    assert labels.common == "t:auto s:auto r:auto ran:bf16"
    # settings of a different kind, side by side: each names what it has that the other lacks
    pair = config_labels([RunConfig(1, 2, 2, 4, "throughput", "async"), RunConfig(1, 0)])
    assert pair.labels == ("t2 s2 r4 async", "t:auto s:auto r:auto sync")
    assert pair.common == "b1"
    # one configuration: nothing to cut, its whole label
    assert config_labels([MATRIX[1]]).labels == ("b1 t:auto async seq=32",)
    # the precision run tells two runs of one configuration apart
    ran = config_labels([MATRIX[0], MATRIX[0]], ["bf16", "f32"])
    assert ran.labels == ("ran:bf16", "ran:f32")


async def test_the_live_table_of_a_seq_matrix_tells_every_row_apart(app, services):
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        project = app.store.add_project(Project("enc", "/models/encoder.onnx", "openvino", "CPU"))
        request = BenchmarkRequest(project, MATRIX, Budget(time_s=1), repeat=2)
        screen = LiveRunScreen([request], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        await pilot.pause()
        runs = [row[1] for row in table_rows(screen)]
        assert len(runs) == 16
        assert len(set(runs)) == 16, runs  # eight configurations, each measured twice
        assert runs[0] == "b1 sync seq=32 (1/2)" and runs[8] == "b1 sync seq=32 (2/2)", runs
        assert not any("…" in run for run in runs), runs
        head = str(screen.query_one("#live-head", Static).render())
        assert "every run: t:auto s:auto r:auto" in head, head
        # the charts at 80 columns have no room for an x label: the title gives the unit
        for chart in screen.query(LiveChart):
            assert chart.narrow
            drawn = chart.render()
            assert "x: seconds" in getattr(drawn, "plain", str(drawn)), drawn


async def runs_tab(app, pilot) -> tuple[object, DataTable, list[str], list[str]]:
    """Project enc's Runs tab at 80 columns: the screen, the table, its column keys and the
    settings of its rows."""
    screen = await open_detail(app, pilot, "enc")
    await pilot.press("right")
    await settled(pilot)
    table = screen.query_one("#runs", DataTable)
    keys = [str(key.value) for key in table.columns]
    labels = [row[keys.index("config")] for row in cells(screen, "runs")]
    return screen, table, keys, labels


async def test_the_runs_tab_of_a_seq_matrix_tells_every_row_apart(app, db):
    store = Store(db)
    store.add_project(Project("enc", "/models/encoder.onnx", "openvino", "CPU"))
    for n, config in enumerate(MATRIX):
        run = replace(make_run("enc", config.batch, 0, 300.0 + n, n), config=config, id="")
        run = replace(run, resolved={**run.resolved, "precision": "bf16"})
        store.add_run(run, np.full(10, 4.0))
    async with app.run_test(size=(80, 24)) as pilot:
        screen, table, _, labels = await runs_tab(app, pilot)
        assert sorted(labels) == sorted(config_labels(MATRIX).labels), labels
        assert table.virtual_size.width <= table.size.width  # nothing off screen
        assert "every run: t:auto s:auto r:auto ran:BF16" in text(screen, "runs-common")


async def test_when_gives_way_before_the_labels_are_cut(app, db):
    """Labels too wide beside the When column: When goes (the notice below says it)."""
    wide = tuple(
        RunConfig(2, t, hint=h, api=a, precision=p, dims=(("seq", s),))
        for t in (1, 16)
        for s in (32, 128)
        for a, h in (("sync", "latency"), ("async", "throughput"))
        for p in ("f32", "bf16")
    )
    store = Store(db)
    store.add_project(Project("enc", "/models/encoder.onnx", "openvino", "CPU"))
    for n, config in enumerate(wide):
        run = replace(make_run("enc", 2, config.threads, 3000.0 + n, n), config=config, id="")
        store.add_run(run, np.full(10, 4.0))
    async with app.run_test(size=(80, 24)) as pilot:
        screen, table, keys, labels = await runs_tab(app, pilot)
        assert sorted(labels) == sorted(config_labels(wide).labels), labels
        assert "when" not in keys and table.virtual_size.width <= table.size.width
        assert "2025-03-01 10:00:15" in text(screen, "run-notice")  # the newest, selected


async def test_the_compare_runs_table_tells_both_sides_runs_apart(app, db):
    """A: batch x threads; B: the seq x api x batch matrix. At 80 columns the settings
    read 'b…t2 sync seq=64' for two different runs; now the side's letter stands alone
    and the labels keep what differs, uncut."""
    from perftui.tui.compare.setup import CompareScreen
    from tests.tui.snapshot_helpers import settle

    store = Store(db)
    configs = {
        "enc-a": tuple(RunConfig(b, t, dims=(("seq", 64),)) for b in (1, 2) for t in (1, 2)),
        "enc-b": MATRIX,
    }
    for name, runs in configs.items():
        store.add_project(Project(name, f"/models/{name}.onnx", "openvino", "CPU"))
        for n, config in enumerate(runs):
            run = make_run(name, config.batch, config.threads, 300.0 + n, n)
            store.add_run(replace(run, config=config, id=""), np.full(10, 4.0))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = CompareScreen("enc-a", "enc-b")
        app.push_screen(screen)
        await settle(pilot)
        table = screen.query_one("#cmp-runs", DataTable)
        keys = [str(key.value) for key in table.columns]
        shown = [str(table.get_row_at(i)[keys.index("config")]) for i in range(table.row_count)]
        assert len(shown) == 12 and len(set(shown)) == 12, shown
        assert not any("…" in label for label in shown), shown
        assert table.virtual_size.width <= table.size.width, (table.virtual_size, table.size)


async def test_the_tune_table_names_trials_by_what_differs(app, services):
    """Two different trials read '…r1 thr async seq=64' at 80 columns (the start they
    shared was cut, and with it the threads that told them apart)."""
    from textual.widgets import Input

    from tests.tui.snapshot_helpers import settle
    from tests.tui.test_tune import FakeTuning, open_form

    services.cores = lambda: 4
    services.tune = lambda spec, store: FakeTuning(spec)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot)
        form.query_one("#t-max_latency", Input).value = "5"
        await pilot.press("ctrl+r")
        await settle(pilot, lambda: not getattr(app.screen, "running", True))
        screen = app.screen
        table = screen.query_one("#tune-trials", DataTable)
        shown = [str(table.get_row_at(i)[2]) for i in range(table.row_count)]
        trials = [screen.trials[n] for n in sorted(screen.trials)]
        assert shown == list(config_labels([t.config for t in trials]).labels), shown


async def test_the_runs_tab_keeps_whole_words(app, db):
    """The seq x api x batch matrix, repeat 2, at two precisions and thread counts, with
    figures as wide as real ones (a cancelled run, p99 over 100 ms): at 80 columns 'async'
    read 'as'. The columns that say least give way before a word of a label is cut."""
    store = Store(db)
    store.add_project(Project("enc", "/models/encoder.onnx", "openvino", "CPU"))
    samples = np.random.default_rng(1).lognormal(np.log(0.3), 0.4, 400)
    matrix = [
        replace(c, precision=p, threads=t) for c in MATRIX for p in ("f32", "bf16") for t in (1, 16)
    ]
    for repeat in range(2):
        for n, config in enumerate(matrix):
            run = make_run("enc", config.batch, 0, 12_345.0 + 997 * n, n + 32 * repeat)
            stats = replace(run.latency_ms, median=0.336, p99=116.43)
            status = "cancelled" if n + repeat == 0 else "ok"
            run = replace(run, config=config, id="", latency_ms=stats, status=status)
            store.add_run(run, samples)
    async with app.run_test(size=(80, 24)) as pilot:
        _, table, keys, labels = await runs_tab(app, pilot)
        assert sorted(set(labels)) == sorted(config_labels(matrix).labels), labels
        assert table.virtual_size.width <= table.size.width
        assert {"verdict", "fps", "median"} <= set(keys)
