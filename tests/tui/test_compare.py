"""Compare screens: setup (projects, runs, threshold, statistic, chart, sweet spot), then the
Model Performance Summary (layer types, inference time, kernel level), and their error paths."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual.widgets import DataTable, Input, Select, Static

from perftui.domain.compare import Side, compare_projects
from perftui.tui.app import create_app
from perftui.tui.compare.charts import (
    DistributionBars,
    InferenceChart,
    LatencyThroughputChart,
)
from perftui.tui.compare.setup import CompareScreen
from perftui.tui.compare.summary import CompareSummaryScreen
from tests.store_helpers import build, missing_part
from tests.tui.compare_data import FP32_RUNS, INT8_RUNS, fill_compare_store, run
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui


@pytest.fixture
def cmp_app(tmp_path: Path, services):
    path = tmp_path / "compare.json"
    fill_compare_store(path)
    return create_app(path, services)


async def open_compare(app, pilot, a: str | None = None, b: str | None = None) -> CompareScreen:
    await wait_for(pilot, lambda: app.store is not None and len(app.screen_stack) > 1)
    screen = CompareScreen(a, b)
    app.push_screen(screen)
    await wait_for(pilot, lambda: screen.comparison is not None or screen.is_mounted)
    await pilot.pause()
    return screen


def cells(screen, table_id: str) -> list[list[str]]:
    table = screen.query_one(f"#{table_id}", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def text(screen, selector: str) -> str:
    """What a Static shows, as plain text (Rich renderables rendered at 100 columns)."""
    widget = screen.query_one(selector, Static)
    content = widget.content
    if isinstance(content, str | Text):
        return str(widget.render())
    console = Console(width=100, file=io.StringIO(), color_system=None)
    with console.capture() as capture:
        console.print(content)
    return capture.get()


async def type_threshold(pilot, screen: CompareScreen, value: str) -> None:
    field = screen.query_one("#cmp-threshold", Input)
    field.value = value
    await pilot.pause()


def move_to(screen: CompareScreen, side: str, run_id: str) -> None:
    table = screen.query_one("#cmp-runs", DataTable)
    table.move_cursor(row=screen.row_keys.index((side, run_id)))


async def test_defaults_b_is_the_fastest_project_and_every_run_qualifies(cmp_app):
    async with cmp_app.run_test(size=(100, 30)) as pilot:
        screen = await open_compare(cmp_app, pilot)
        assert screen.state.names() == {"A": "net-fp32", "B": "net-int8"}  # A: B's source project
        assert screen.query_one("#cmp-threshold", Input).value == "14"  # slowest median 13.3
        c = screen.comparison
        assert (c.sweet.side, c.sweet.run.id) == ("B", "net-int8-8")
        assert (c.a.id, c.b.id) == ("net-fp32-3", "net-int8-8")
        rows = cells(screen, "cmp-runs")
        assert len(rows) == 9
        assert rows[0][:6] == [" - ", "A net-fp32", "b8 t:auto", "?", "failed", "—"]  # ran: ?
        by_id = dict(zip([rid for _, rid in screen.row_keys], rows, strict=True))
        assert by_id["net-fp32-3"][8] == "A" and by_id["net-int8-8"][8] == "B★"
        assert by_id["net-int8-8"][4:8] == ["640", "6.25", "~", "yes"]
        chart = screen.query_one(LatencyThroughputChart).data
        assert [(line.side, line.label, len(line.points)) for line in chart.lines] == [
            ("A", "t2", 1),
            ("A", "t:auto", 3),
            ("B", "t2", 1),
            ("B", "t:auto", 3),
        ]
        assert [m.text for m in chart.marks] == ["A", "B*"]
        assert "Sweet spot (median ≤ 14 ms): B net-int8 b4 t:auto  640 items/s at 6.25 ms" in (
            text(screen, "#cmp-sweet")
        )
        assert "A net-fp32" in text(screen, "#cmp-legend")
        assert "sweet spot" in text(screen, "#cmp-legend")


async def test_threshold_is_validated_as_typed(cmp_app):
    async with cmp_app.run_test(size=(100, 30)) as pilot:
        screen = await open_compare(cmp_app, pilot)
        await type_threshold(pilot, screen, "6")
        c = screen.comparison
        assert (c.sweet.run.id, c.a.id, c.b.id) == ("net-int8-7", "net-fp32-1", "net-int8-7")
        assert "(median ≤ 6 ms): B net-int8 b2 t:auto" in text(screen, "#cmp-sweet")
        for typed, reason in (
            ("abc", "'abc' is not a number"),
            ("-1", "-1 is out of range"),
            ("", "latency threshold is empty"),
        ):
            await type_threshold(pilot, screen, typed)
            note = screen.query_one("#cmp-note", Static)
            assert reason in text(screen, "#cmp-note") and note.has_class("error")
            assert screen.comparison.sweet is None and text(screen, "#cmp-sweet") == ""
        screen.query_one("#cmp-runs").focus()
        await pilot.press("c")
        await pilot.pause()
        assert cmp_app.screen is screen
        assert any("threshold is empty" in n.message for n in cmp_app._notifications)
        assert cmp_app.focused is screen.query_one("#cmp-threshold")
        await pilot.press("2", "enter")  # no run has a median of 2 ms or less
        await pilot.pause()
        assert not screen.query_one("#cmp-note").has_class("error")
        assert "No checked run has median latency ≤ 2 ms" in text(screen, "#cmp-sweet")
        assert cmp_app.focused is screen.query_one("#cmp-runs")
        assert [m.text for m in screen.query_one(LatencyThroughputChart).data.marks] == [
            "A",
            "B",
        ]
        await pilot.press("c")  # still comparable: each side's fastest run
        await pilot.pause()
        assert isinstance(cmp_app.screen, CompareSummaryScreen)
        assert "no run has median ≤ 2 ms" in text(cmp_app.screen, "#cmp-head")


async def test_checking_pinning_and_the_statistic_update_the_chart(cmp_app):
    async with cmp_app.run_test(size=(100, 30)) as pilot:
        screen = await open_compare(cmp_app, pilot)
        chart = screen.query_one(LatencyThroughputChart)
        move_to(screen, "B", "net-int8-8")
        await pilot.press("space")
        await pilot.pause()
        assert "net-int8-8" not in screen.state.sides[Side.B].checked
        assert len(chart.data.points) == 7
        assert screen.comparison.sweet.run.id == "net-int8-7"
        assert cells(screen, "cmp-runs")[screen.row_keys.index(("B", "net-int8-8"))][0] == "[ ]"
        await pilot.press("enter")  # enter toggles too
        await pilot.pause()
        assert screen.comparison.sweet.run.id == "net-int8-8"
        await pilot.press("a")  # all of B's runs off, then on
        await pilot.pause()
        assert screen.state.sides[Side.B].checked == set() and screen.comparison.b is None
        assert "B net-int8: no run checked (space checks one)" in text(screen, "#cmp-sweet")
        assert screen.comparison.sweet.run.id == "net-fp32-3"
        await pilot.press("a")
        await pilot.pause()
        assert len(screen.state.sides[Side.B].checked) == 4
        move_to(screen, "B", "net-int8-6")
        await pilot.press("p")
        await pilot.pause()
        c = screen.comparison
        assert c.b.id == "net-int8-6" and c.sweet.run.id == "net-int8-8"
        rows = cells(screen, "cmp-runs")
        marks = {rid: row[8] for (_, rid), row in zip(screen.row_keys, rows, strict=True)}
        assert marks["net-int8-6"] == "B pin" and marks["net-int8-8"] == "★"
        move_to(screen, "A", "net-fp32-5")  # the failed run cannot be checked or pinned
        await pilot.press("space", "p")
        await pilot.pause()
        a = screen.state.sides[Side.A]
        assert "net-fp32-5" not in a.checked and a.pinned is None
        await pilot.press("l")  # p90 is 1.2 x the median: net-fp32-3 (16 ms) is out
        await pilot.pause()
        assert screen.state.stat == "p90" and screen.query_one("#cmp-stat", Select).value == "p90"
        assert screen.query_one("#cmp-runs", DataTable).columns["ms"].label.plain == "p90 ms"
        c = screen.comparison
        assert c.stat == "p90" and c.a.id == "net-fp32-2" and c.sweet.run.id == "net-int8-8"
        expected = compare_projects(
            "net-fp32", FP32_RUNS, "net-int8", INT8_RUNS, 14.0, "p90", b_pinned="net-int8-6"
        )
        assert (c.sweet, c.a, c.b) == (expected.sweet, expected.a, expected.b)
        assert chart.data.stat == "p90"


async def test_changing_and_swapping_projects(cmp_app):
    async with cmp_app.run_test(size=(100, 30)) as pilot:
        screen = await open_compare(cmp_app, pilot, "net-int8", "net-fp32")
        assert screen.state.names() == {"A": "net-int8", "B": "net-fp32"}
        await pilot.press("x")
        await pilot.pause()
        assert screen.state.names() == {"A": "net-fp32", "B": "net-int8"}
        assert screen.query_one("#cmp-a", Select).value == "net-fp32"
        screen.query_one("#cmp-a", Select).value = "net-ort"
        await pilot.pause()
        assert screen.state.sides[Side.A].name == "net-ort"
        assert screen.sub_title == "Compare net-ort vs net-int8"
        assert [rid for side, rid in screen.row_keys if side == "A"] == ["net-ort-11", "net-ort-10"]
        screen.query_one("#cmp-b", Select).value = "net-ort"  # the other side's: a swap
        await pilot.pause()
        assert screen.state.names() == {"A": "net-int8", "B": "net-ort"}
        screen.query_one("#cmp-b", Select).value = "empty"  # no runs at all
        await pilot.pause()
        assert screen.comparison.b is None
        assert screen.row_keys == [("A", r.id) for r in reversed(INT8_RUNS)]
        assert "B empty: no successful run yet; benchmark it" in text(screen, "#cmp-sweet")


async def test_summary_tabs_layer_types_inference_time_and_kernel_level(cmp_app):
    async with cmp_app.run_test(size=(120, 40)) as pilot:
        screen = await open_compare(cmp_app, pilot)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(cmp_app.screen, CompareSummaryScreen))
        await pilot.pause()
        summary = cmp_app.screen
        assert summary.comparison is screen.comparison
        rows = cells(summary, "cmp-types")
        assert [r[1] for r in rows] == [
            "Convolution",
            "GroupConvolution",
            "FullyConnected",
            "Reorder",
            "Clamp",
            "FakeQuantize",
            "FullyConnectedQuantizedLegacy",
        ]
        assert rows[0][:5] == ["[x]", "Convolution", "2.10", "69.5%", "2 FP32"]
        assert rows[0][5:] == ["0.900", "58.1%", "2 I8", "-1.200"]
        assert rows[4][0] == "[ ]"  # no time in either version: out of the chart at first
        bars = summary.query_one(DistributionBars)
        assert [t for t, _, _ in bars.rows][:2] == ["Convolution", "GroupConvolution"]
        assert len(bars.rows) == 6
        await pilot.press("space")  # Convolution out of the distribution
        await pilot.pause()
        assert cells(summary, "cmp-types")[0][0] == "[ ]" and len(bars.rows) == 5
        assert sum(a for _, a, _ in bars.rows) == pytest.approx(1.0)
        await pilot.press("s")  # by B ms
        await pilot.pause()
        assert cells(summary, "cmp-types")[0][1] == "Convolution"
        assert "by B ms ↓" in text(summary, "#types-head")
        await pilot.press("S")
        await pilot.pause()
        assert cells(summary, "cmp-types")[0][1] in {"Clamp", "FullyConnected", "Reorder"}

        await pilot.press("2")
        await pilot.pause()
        chart = summary.query_one(InferenceChart)
        assert [b.value for b in chart.data.bars] == [300.0, 640.0]
        assert "B/A: throughput 2.13x, median latency 0.47x" in text(summary, "#inference-figures")
        await pilot.press("m")
        await pilot.pause()
        assert [b.value for b in chart.data.bars] == pytest.approx([13.333, 6.25])
        assert "Latency in ms (median)" in text(summary, "#inference-head")

        await pilot.press("3")
        await pilot.pause()
        layers = cells(summary, "cmp-layers")
        by_name = {r[0]: r for r in layers}
        # one profile a side: no interval, and the head says so (issue 40, item 7)
        assert by_name["conv1"][1:5] == ["Convolution", "1.20 ±?", "FP32", "0.500 ±?"]
        assert by_name["conv1"][5:] == ["I8", "-0.700", "0.42x"]
        assert by_name["block1/dw/Conv"][3:6] == ["FP32", "0.300 ±?", "I8"]
        assert by_name["fc/Gemm"][3:6] == ["FP32", "0.200 ±?", "I8"]
        assert "±?: one profile each" in text(summary, "#kernel-head")
        assert by_name["input/QuantizeLinear"][6] == "only B"
        assert by_name["input_reorder"][6] == "only A"
        assert cmp_app.focused is summary.query_one("#cmp-layers")
        names = [r[0] for r in layers]
        summary.query_one("#cmp-layers", DataTable).move_cursor(
            row=names.index("input/QuantizeLinear")
        )
        await pilot.pause()
        detail = text(summary, "#kernel-detail")
        assert "executed in B only" in detail
        assert "Not executed in A (net-fp32): no layer of A matches" in detail
        summary.query_one("#cmp-layers", DataTable).move_cursor(row=names.index("block1/dw/Conv"))
        await pilot.pause()
        detail = text(summary, "#kernel-detail")
        assert "matched by normalised name" in detail and "block1/dw/Conv_quant" in detail
        assert "jit_avx512_dw_I8" in detail and "≠" in detail
        await pilot.press("f")
        await pilot.pause()
        assert cmp_app.focused is summary.query_one("#cmp-delta")
        await pilot.press("0", ".", "6")  # the field's text is selected: typing replaces it
        await pilot.pause()
        kept = [r[0] for r in cells(summary, "cmp-layers")]
        assert sorted(kept) == sorted(
            ["conv1", "block1/relu6", "input_reorder", "input/QuantizeLinear"]
        )
        assert "4 of 7 layers (3 changed less)" in text(summary, "#kernel-head")
        await pilot.press("x")
        await pilot.pause()
        assert "delta filter '0.6x' is not a number" in text(summary, "#kernel-head")
        assert [r[0] for r in cells(summary, "cmp-layers")] == kept  # the last good filter
        await pilot.press("escape")  # back to the setup, from the filter's field too
        await pilot.pause()
        assert cmp_app.screen is screen


async def test_a_project_without_profiles_says_how_to_get_one(cmp_app):
    async with cmp_app.run_test(size=(100, 30)) as pilot:
        await open_compare(cmp_app, pilot, "net-ort", "net-int8")
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(cmp_app.screen, CompareSummaryScreen))
        await pilot.pause()
        summary = cmp_app.screen
        head = text(summary, "#types-missing")
        assert "No per-layer comparison yet" in head
        assert "A (net-ort): the compared run b4 t:auto has no per-layer profile" in head
        assert "per-layer profile on" in head and "pin a run that has a profile" in head
        assert not summary.query_one("#cmp-types").display
        keys = {b.binding.id for b in summary.active_bindings.values() if b.enabled}
        assert "sort" not in keys and "include" not in keys  # nothing to sort or include
        await pilot.press("3")
        await pilot.pause()
        assert "No per-layer comparison yet" in text(summary, "#kernel-missing")
        assert not summary.query_one("#cmp-layers").display
        await pilot.press("2")  # inference time needs no profile
        await pilot.pause()
        assert [b.value for b in summary.query_one(InferenceChart).data.bars] == [380.0, 640.0]


async def test_pinning_a_profiled_run_gives_the_layer_tabs(cmp_app):
    async with cmp_app.run_test(size=(100, 30)) as pilot:
        screen = await open_compare(cmp_app, pilot)
        await type_threshold(pilot, screen, "6")  # B: b2 t:auto, which has no profile
        screen.query_one("#cmp-runs").focus()
        await pilot.press("c")
        await pilot.pause()
        assert "B (net-int8): the compared run b2 t:auto has no per-layer profile" in text(
            cmp_app.screen, "#types-missing"
        )
        cmp_app.store.add_run(run("net-int8", 30, 8, 0, 700.0))  # measured meanwhile
        await pilot.press("escape")
        await pilot.pause()
        assert "net-int8-30" in screen.state.sides[Side.B].checked  # new runs come back checked
        assert screen.comparison.b.id == "net-int8-7"  # b8 (11.4 ms) is over 6 ms
        move_to(screen, "B", "net-int8-6")
        await pilot.press("p", "c")
        await pilot.pause()
        summary = cmp_app.screen
        assert summary.comparison.b.id == "net-int8-6"
        assert summary.query_one("#cmp-types").display
        assert cells(summary, "cmp-types")[0][1] == "Convolution"


async def test_needs_two_projects(empty_app):
    async with empty_app.run_test() as pilot:
        screen = await open_compare(empty_app, pilot)
        chart = screen.query_one(LatencyThroughputChart)
        assert "Comparing needs two projects" in chart.message and not chart.has_data()
        await pilot.press("c")
        await pilot.pause()
        assert empty_app.screen is screen
        assert any("needs two projects" in n.message for n in empty_app._notifications)
        await pilot.press("escape")
        await pilot.pause()
        assert empty_app.screen is not screen


async def test_projects_c_and_the_command_palette_open_the_comparison(cmp_app):
    async with cmp_app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: len(cmp_app.screen_stack) > 1)
        await pilot.press("down", "down", "space", "down")  # mark net-int8, cursor on net-ort
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(cmp_app.screen, CompareScreen))
        await pilot.pause()
        assert cmp_app.screen.state.names() == {"A": "net-int8", "B": "net-ort"}
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"compare")
        await settled(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(cmp_app.screen, CompareScreen))
        await pilot.pause()
        assert cmp_app.screen.state.names() == {"A": "net-fp32", "B": "net-int8"}
        await pilot.press("f1")
        await pilot.pause()
        assert type(cmp_app.screen).__name__ == "HelpScreen"
        assert "sweet spot" in cmp_app.screen.text
        keys = {ident for _, _, ident in cmp_app.screen.keys}
        assert {"compare", "toggle", "pin", "threshold", "stat", "check_all", "swap"} <= keys


async def test_a_side_whose_runs_cannot_be_read_says_so(tmp_path: Path, services):
    """Not "no successful run yet; benchmark it": its runs are there, the database is
    damaged (A's runs file gone)."""
    path = build(tmp_path)
    missing_part(path)
    app = create_app(path, services)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.compare_projects("A", "B")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        await wait_for(pilot, lambda: "A A: its runs" in text(app.screen, "#cmp-sweet"))
        assert "cannot be read" in text(app.screen, "#cmp-sweet")
        assert not app.screen.state.sides[Side.B].unreadable
