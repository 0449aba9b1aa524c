"""Issue 25, item 9: the smaller things the dashboard said wrong or left unsaid."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from textual.widgets import Input

from perftui.domain.errors import InputError
from perftui.domain.records import BenchmarkRequest, Budget, RunConfig
from perftui.store.database import Store
from perftui.tui.app import create_app
from perftui.tui.commands import PerftuiCommands
from perftui.tui.compare.summary import CompareSummaryScreen
from perftui.tui.detail.screen import ProjectDetailScreen
from perftui.tui.kit import format as fmt
from perftui.tui.tune.chart import TuneChart
from perftui.tui.tune.live import TuneScreen
from tests.tui.conftest import make_run
from tests.tui.snapshot_helpers import settle
from tests.tui.test_compare import cmp_app, open_compare, text, wait_for  # noqa: F401
from tests.tui.test_tune import open_form
from tests.tui.waiting import settled

pytestmark = pytest.mark.tui


def said(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


def test_dashboard_messages_name_keys_and_fields_not_cli_flags():
    assert fmt.said("measure with --repeat 3 before comparing") == (
        "measure with Repeat 3 before comparing"
    )
    assert "--" not in fmt.said("again with `perftui compare A B --measure` (alternately")
    assert "M on the compare summary" in fmt.said("`perftui compare A B --measure`")
    assert (
        fmt.said("--max-latency 7 ms is below the fastest")
        == "Max latency 7 ms is below the fastest"
    )
    caution = "quantize with real samples (--calibration DIR) or keep FP32"
    assert fmt.said(caution) == "quantize with real samples (a Calibration folder) or keep FP32"


async def test_the_compare_notes_say_the_measure_key(cmp_app):  # noqa: F811
    async with cmp_app.run_test(size=(120, 40)) as pilot:
        await open_compare(cmp_app, pilot)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(cmp_app.screen, CompareSummaryScreen))
        await pilot.press("2")
        await settled(pilot)
        figures = text(cmp_app.screen, "#inference-figures")
        assert "--measure" not in figures and "Measure, M on the compare" in figures, figures


def test_the_int8_words_name_the_engines_quantizer():
    assert fmt.quantizer("openvino") == "NNCF"
    assert fmt.quantizer("onnxruntime") == "ONNX Runtime quantization"
    assert "NNCF" in ProjectDetailScreen.HELP and "NNCF" in fmt.QUANTIZERS_TEXT


async def test_the_palette_offers_tune_and_rename_and_the_int8_dialog_says_nncf(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        provider = PerftuiCommands(app.screen, None)
        commands = {text: help_text for text, _, help_text in provider._commands()}
        assert "Tune net-fp32" in commands and "Rename project net-fp32" in commands
        assert "NNCF" in commands["Optimize project net-fp32"]  # an OpenVINO project
        assert "ONNX Runtime" in commands["Optimize project net-int8"]  # an ONNX Runtime one
        next(cmd for text, cmd, _ in provider._commands() if text == "Rename project net-int8")()
        await settle(pilot, lambda: bool(app.screen.query("#prompt-input")))
        assert app.screen.query_one("#prompt-input", Input).value == "net-int8"
        await pilot.press("escape")
        await pilot.press("i")  # the INT8 dialog of the project under the cursor
        await settle(pilot, lambda: type(app.screen).__name__ == "OptimizeDialog")
        detail = str(app.screen.query_one(".dialog-detail").render())
        assert detail.startswith("ONNX Runtime quantization makes the INT8 version"), detail


@dataclass
class FailingTune:
    """A search that refuses at its first trial, as a budget below every trial does."""

    spec: object

    def trials(self) -> Iterator[object]:
        raise InputError("--max-latency 0.01 ms is below the fastest median of the 2 tried")
        yield

    def cancel(self) -> None:
        pass

    kill = cancel


async def test_a_failed_tune_says_so_and_offers_no_cancel(app, services):
    services.cores = lambda: 4
    services.tune = lambda spec, store: FailingTune(spec)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot)
        form.query_one("#t-max_latency", Input).value = "0.01"
        await pilot.press("ctrl+r")
        await settle(pilot, lambda: isinstance(app.screen, TuneScreen) and not app.screen.running)
        screen = app.screen
        status = str(screen.query_one("#tune-status").render())
        assert status.startswith("The search failed: Max latency 0.01 ms"), status
        assert "waiting" not in screen.query_one(TuneChart).message
        assert screen.check_action("cancel", ()) is False  # no dead x Cancel


async def test_r_says_it_measures_the_whole_repeat_group(app, db):
    store = Store(db)
    project = store.get_project("net-fp32")
    bench = store.add_benchmark(BenchmarkRequest(project, (RunConfig(2, 2),), Budget(), repeat=3))
    run = make_run("net-fp32", 2, 2, 400.0, 30)
    store.add_run(replace(run, id="", benchmark_id=bench))
    told: list[str] = []
    notify = app.notify
    app.notify = lambda message, **kw: (told.append(message), notify(message, **kw))  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = ProjectDetailScreen("net-fp32", tab="runs")
        app.push_screen(screen)
        await settle(pilot, lambda: screen.info is not None)
        screen.state.selected_id = screen.state.runs[0].id  # the newest: b2 t2, repeat 3
        await pilot.press("r")
        await pilot.pause()
        assert any("Re-running b2 t2 3 times" in line for line in told), told


async def test_toasts_at_80_columns_one_at_a_time(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for n in range(3):
            app.notify(f"note {n}", timeout=10)
        await pilot.pause()
        assert [n.message for n in app._notifications] == ["note 2"]
        assert app._notifications and all(n.timeout <= 5 for n in app._notifications)
        app.notify("it broke", severity="error")
        app.notify("a later note")
        await pilot.pause()
        assert "it broke" in [n.message for n in app._notifications]  # an error stays


async def test_no_color_placeholders_do_not_read_as_values(db, services, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = create_app(db, services)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")  # new project: the model field is empty, with a placeholder
        await settle(pilot, lambda: bool(app.screen.query("Input")))
        field = app.screen.query(Input).first()
        assert field.placeholder and not field.value
        style = field.get_component_rich_style("input--placeholder")
        assert style.italic, style


def test_the_readme_describes_the_store_as_it_is():
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert "shard files" not in readme  # 0.1's own format, gone with TinyDB's return
    assert "a TinyDB index of the projects" in readme and "reports/" in readme
