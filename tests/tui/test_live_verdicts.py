"""Live run: figures with their intervals, each run's verdict, the busy-machine warning
before the start and the notice at the end when runs came out noisy."""

from __future__ import annotations

import pytest
from textual.widgets._toast import Toast

from perftui.tui.benchmark.live import LiveRunScreen
from tests.tui.test_live import request, table_rows
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui


def notices(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


async def test_the_live_table_shows_intervals_and_verdicts(app, services):
    services.noisy_index = 1
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        await pilot.pause()
        rows = table_rows(screen)
        assert [row[2] for row in rows] == ["stable", "noisy"]
        fps, median = rows[0][3], rows[0][4]
        assert fps.startswith("105 ±") and fps.endswith("%")
        assert median.startswith("9.52 ±") and median.endswith("%")
        said = notices(app)
        ended = "Benchmark: Benchmark finished: 2 ok · stored.\n1 noisy; why: Runs tab (o)"
        assert ended in said, said
        assert not any(n.startswith("The machine is busy") for n in said)


async def test_the_end_toast_counts_each_verdict_in_two_lines_at_80x24(app, services):
    """A 'Noisy runs' toast some 12 lines tall covered the live table and charts at 80x24,
    and called INVALID runs noisy."""
    services.noisy_index, services.invalid_index = 0, 1
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        await wait_for(pilot, lambda: list(app.screen.query(Toast)))
        assert [row[2] for row in table_rows(screen)] == ["noisy", "INVALID"]
        [toast] = app.screen.query(Toast)
        title, *lines = str(toast.render()).splitlines()
        assert title == "Benchmark" and lines == [
            "Benchmark finished: 2 ok · stored.",
            "1 INVALID, 1 noisy; why: Runs tab (o)",
        ], lines
        assert toast.outer_size.height <= 6, toast.outer_size  # two lines, title, padding
        assert not any("Noisy" in n for n in notices(app))


async def test_a_busy_machine_is_warned_about_before_the_start(app, services):
    services.busy_reasons = ["other processes used 80% of the CPUs"]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = LiveRunScreen([request(app)], validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        await pilot.pause()
        assert (
            "The machine is busy: other processes used 80% of the CPUs: expect noisy figures"
            in notices(app)
        )
        assert not any("noisy;" in n for n in notices(app))
