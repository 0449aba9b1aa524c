"""Issue 25, item 5: every tab is reachable at 80x24. The compare summary's tab titles were
cut at 'Latency Distribu' and its Environment tab was off screen: at 80 columns the tabs take
their short titles, and the full ones wherever they fit."""

from __future__ import annotations

import pytest
from textual.widgets import Tab, Tabs

from perftui.tui.compare.summary import CompareSummaryScreen
from tests.tui.test_compare import cmp_app, open_compare, wait_for  # noqa: F401
from tests.tui.waiting import settled

pytestmark = pytest.mark.tui


def titles(screen) -> list[tuple[str, int, int]]:
    """(title, first cell, last cell) of each tab of the screen's tab bar."""
    return [
        (str(tab.label_text), tab.region.x, tab.region.right)
        for tab in screen.query_one(Tabs).query(Tab)
    ]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_every_compare_tab_is_on_screen(cmp_app, size):  # noqa: F811
    async with cmp_app.run_test(size=size) as pilot:
        await open_compare(cmp_app, pilot)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(cmp_app.screen, CompareSummaryScreen))
        await settled(pilot)
        shown = titles(cmp_app.screen)
        assert len(shown) == 5
        assert all(right <= size[0] for _, _, right in shown), shown
        names = [name for name, _, _ in shown]
        assert names[-1] == "Environment"
        if size[0] >= 120:
            assert "Latency Distribution" in names and "Kernel-Level Performance" in names
        else:
            assert names == ["Summary", "Inference", "Kernels", "Latency", "Environment"]
