"""The compare summary opens on a tab with content: its layer types where both compared runs
have a profile, else its inference time, where the figures and verdicts are (the Summary tab
only said there was no per-layer comparison)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perftui.tui.app import PerftuiApp, create_app
from perftui.tui.compare.summary import CompareSummaryScreen
from perftui.tui.kit import format as fmt
from tests.tui.compare_data import fill_compare_store
from tests.tui.test_compare import open_compare, text
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


@pytest.fixture
def cmp_app(tmp_path: Path, services) -> PerftuiApp:
    path = tmp_path / "compare.json"
    fill_compare_store(path)
    return create_app(path, services)


async def open_summary(app, pilot, *names: str) -> CompareSummaryScreen:
    await open_compare(app, pilot, *names)
    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(app.screen, CompareSummaryScreen))
    await pilot.pause()
    return app.screen


async def test_without_profiles_it_opens_on_the_figures_and_verdicts(cmp_app):
    async with cmp_app.run_test(size=(80, 24)) as pilot:
        summary = await open_summary(cmp_app, pilot, "net-ort", "net-int8")
        assert summary.active_tab == "cmp-inference"
        figures = text(summary, "#inference-figures")
        for group in summary.comparison.groups:
            assert group is not None
            assert fmt.verdict_word(group.figures.verdict.status) in figures, figures
        assert "throughput" in figures, figures
        assert "Inference, 2" in text(summary, "#types-missing")  # where the verdicts are


async def test_with_profiles_it_opens_on_the_layer_types(cmp_app):
    async with cmp_app.run_test(size=(80, 24)) as pilot:
        summary = await open_summary(cmp_app, pilot)
        assert summary.comparison.profiled
        assert summary.active_tab == "cmp-summary"
        assert summary.query_one("#cmp-types").display
