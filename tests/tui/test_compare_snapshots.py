"""Snapshots of the compare screens at 80x24 and 120x40 (fixed data, no clock in view).

Update after an intended change with:
    pytest tests/tui/test_compare_snapshots.py --snapshot-update
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from perftui.tui.app import create_app
from perftui.tui.compare.setup import CompareScreen
from perftui.tui.compare.summary import CompareSummaryScreen
from tests.tui.compare_data import fill_compare_store
from tests.tui.snapshot_helpers import settle

pytestmark = pytest.mark.tui

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


@pytest.fixture
def cmp_app(tmp_path: Path, services):
    path = tmp_path / "compare.json"
    fill_compare_store(path)
    return create_app(path, services)


async def open_setup(pilot, a: str | None = None, b: str | None = None) -> CompareScreen:
    await settle(pilot, lambda: len(pilot.app.screen_stack) > 1)
    screen = CompareScreen(a, b)
    pilot.app.push_screen(screen)
    await settle(
        pilot,
        lambda: (
            screen.comparison is not None
            and pilot.app.focused is not None
            and pilot.app.focused.id == "cmp-runs"
        ),
    )
    return screen


async def set_threshold(pilot, screen: CompareScreen, text: str) -> None:
    screen.query_one("#cmp-threshold", Input).value = text
    await settle(
        pilot, lambda: screen.query_one("#cmp-note").has_class("error") != text[0:1].isdigit()
    )


@pytest.mark.parametrize("size", SIZES)
def test_setup(snap_compare, cmp_app, size):
    async def before(pilot) -> None:
        screen = await open_setup(pilot)
        await set_threshold(pilot, screen, "6")

    assert snap_compare(cmp_app, terminal_size=size, run_before=before)


def test_setup_no_color_invalid_threshold(snap_compare, tmp_path: Path, services, monkeypatch):
    """Without colour the projects keep their markers and letters; the error is inline."""
    monkeypatch.setenv("NO_COLOR", "1")
    path = tmp_path / "compare.json"
    fill_compare_store(path)
    app = create_app(path, services)

    async def before(pilot) -> None:
        screen = await open_setup(pilot)
        await set_threshold(pilot, screen, "-3")

    assert snap_compare(app, run_before=before)


@pytest.mark.parametrize(
    ("size", "tab"),
    [
        pytest.param((80, 24), "summary", id="80x24-summary"),
        pytest.param((80, 24), "inference", id="80x24-inference"),
        pytest.param((80, 24), "kernel", id="80x24-kernel"),
        pytest.param((120, 40), "kernel", id="120x40-kernel"),
    ],
)
def test_summary(snap_compare, cmp_app, size, tab):
    focus = {"summary": "cmp-types", "inference": None, "kernel": "cmp-layers"}[tab]

    async def before(pilot) -> None:
        await open_setup(pilot)
        await pilot.press("c")
        await settle(pilot, lambda: isinstance(pilot.app.screen, CompareSummaryScreen))
        await pilot.press(str(["summary", "inference", "kernel"].index(tab) + 1))
        await settle(pilot, lambda: getattr(pilot.app.focused, "id", None) == focus)

    assert snap_compare(cmp_app, terminal_size=size, run_before=before)


def test_summary_without_profiles(snap_compare, cmp_app):
    async def before(pilot) -> None:
        await open_setup(pilot, "net-ort", "net-int8")
        await pilot.press("c")
        await settle(pilot, lambda: isinstance(pilot.app.screen, CompareSummaryScreen))
        await pilot.press("1")  # it opens on Inference; the first tab says why it is empty
        await settle(pilot)

    assert snap_compare(cmp_app, run_before=before)
