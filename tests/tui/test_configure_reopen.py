"""A reopened benchmark form shows every field as it was typed for the project's last
benchmark (it showed Hint `latency` where `auto` was typed)."""

from __future__ import annotations

import pytest

from perftui.domain.forms.bench import DEFAULTS, build_request
from tests.tui.test_configure import open_config

pytestmark = pytest.mark.tui


@pytest.mark.parametrize(
    "typed",
    [
        {},
        {"api": "async", "requests": "2,auto", "streams": "auto,2", "threads": "auto,4"},
        {"hint": "throughput", "batch": "8,1", "time": "1234567", "warmup": "0"},
        {"precision": "bf16", "iterations": "321", "profile_iterations": "7", "repeat": "4"},
    ],
)
async def test_the_last_benchmark_comes_back_as_typed_at_80x24(app, typed: dict[str, str]):
    values = {**DEFAULTS, **typed}
    async with app.run_test(size=(80, 24)) as pilot:
        project = app.store.get_project("net-fp32")
        app.store.add_benchmark(build_request(project, values))
        screen = await open_config(app, pilot, project)
        assert screen.values() == values
