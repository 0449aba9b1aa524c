"""At 80 columns the Projects footer shows its keys whole, Quit included, and F1 lists every
key the screen answers to, those left out of the footer (t, g, s) too (README: the footer
shows each screen's main keys, F1 every key)."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from perftui.tui.kit.dialogs import HelpScreen
from perftui.tui.projects.screen import ProjectsScreen

pytestmark = pytest.mark.tui


async def test_projects_footer_fits_80_columns_and_f1_has_the_rest(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        keys = list(screen.query(FooterKey))
        shown = {k.key_display for k in keys if k.region.width and k.region.right <= 80}
        assert len(shown) == len(keys), shown  # none cut off
        assert {"n", "o", "b", "m", "c", "i", "r", "d", "q", "f1"} <= shown, shown
        answered = {b.binding.id for b in screen.active_bindings.values() if b.binding.id}
        await pilot.press("f1")
        await pilot.pause()
        helped = app.screen
        assert isinstance(helped, HelpScreen)
        listed = {part for key, _, _ in helped.keys for part in key.split("/")}
        assert {"t", "g", "s", "q"} <= listed
        assert answered <= {ident for _, _, ident in helped.keys}, answered
