"""At 80 columns the project detail's footer shows every key that works on the tab shown,
F1 Help included: keys that act on one tab are shown (and answer) on that tab only."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from tests.tui.test_detail import open_detail
from tests.tui.waiting import settled

pytestmark = pytest.mark.tui

TAB_KEYS = {
    "1": {"r", "R", "d"},  # Summary: the selected run's keys
    "2": {"r", "R", "d"},  # Runs
    "3": {"v", "f"},  # Charts
    "4": set(),  # Types
    "5": {"s"},  # Layers
    "6": set(),  # FLOPs
}


async def test_the_detail_footer_fits_80_columns_on_every_tab(app):
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_detail(app, pilot)
        for digit, own in TAB_KEYS.items():
            await pilot.press(digit)
            await settled(pilot)
            keys = list(screen.query(FooterKey))
            shown = {k.key_display for k in keys if k.region.right <= 80 and k.region.width}
            assert len(shown) == len(keys), (digit, shown)
            assert {"f1", "esc", "b", "e", "i", "]"} | own <= shown, (digit, shown)
            assert not {"r", "R", "d", "v", "f", "s"} - own & shown, (digit, shown)
