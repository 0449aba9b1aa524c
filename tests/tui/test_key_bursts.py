"""Forms show and keep what was typed. Keys that arrive together (a paste, a burst over SSH)
give exactly what was typed: the bytes a terminal sends are parsed as the Linux driver
parses them and handed to the app in one go, with no pause between them (Pilot's `press`
waits for the app between keys)."""

from __future__ import annotations

import pytest
from textual._xterm_parser import XTermParser
from textual.widgets import Checkbox, Input

from perftui.tui.tune.form import TuneForm
from tests.tui.test_configure import open_config
from tests.tui.test_tune import open_form, tunings  # noqa: F401 (a fixture)
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui

END, BACKSPACE, TAB = "\x1b[4~", "\x7f", "\t"


async def burst(pilot, typed: str, done) -> None:
    """Send the bytes `typed` as one read from the terminal; wait until `done()`."""
    driver = pilot.app._driver
    for event in XTermParser().feed(typed):
        driver.send_message(event)
    await wait_for(pilot, done, seconds=5)


async def test_a_burst_on_the_benchmark_form_types_what_was_sent(app):
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_config(app, pilot)
        batch = screen.query_one("#f-batch", Input)
        batch.focus()
        batch.value = "1"
        batch.cursor_position = 0
        await burst(pilot, END + BACKSPACE + "1,2,4,8", lambda: batch.value == "1,2,4,8")
        pasted = BACKSPACE * 4 + "\x1b[200~,4\x1b[201~" + ",16"  # a paste among the keys
        await burst(pilot, pasted, lambda: batch.value == "1,2,4,16")
        screen.query_one("#f-hint", Input).focus()
        await pilot.pause()
        precision = screen.query_one("#f-precision", Input)
        await burst(pilot, "sync,async" + TAB + TAB + "2", lambda: precision.value == "2")
        values = screen.values()
        assert (values["hint"], values["api"]) == ("sync,async", "sync")
        assert app.focused is precision


async def test_a_burst_on_the_tune_form_fills_each_field_in_turn(app, tunings):  # noqa: F811
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot)
        assert isinstance(form, TuneForm)
        latency = form.query_one("#t-max_latency", Input)
        latency.focus()
        await pilot.pause()
        stat = form.query_one("#t-stat", Input)
        typed = "12" + BACKSPACE + "5" + TAB + "512" + TAB + "p99"
        await burst(pilot, typed, lambda: stat.value == "p99")
        assert latency.value == "15"
        assert form.query_one("#t-max_memory", Input).value == "512"


async def test_the_profile_box_reads_without_colour(app):
    """NO_COLOR=1: Textual's mark is there on and off (told by colour); ours only when on."""
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_config(app, pilot)
        box = screen.query_one("#profile", Checkbox)
        box.value = False
        await pilot.pause()
        assert "X" not in str(box.render()) and "off" in str(box.render())
        box.focus()
        await pilot.press("space")
        await wait_for(pilot, lambda: box.value)
        assert "X" in str(box.render()) and "on" in str(box.render())
