"""The same settings typed into the CLI and into the dashboard's form give the same runs."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from perftui.cli.bench import FLAGS, request_from_args
from perftui.cli.entry import build_parser
from perftui.domain.forms.bench import DEFAULTS, FIELD_NAMES
from perftui.domain.records import BenchmarkRequest
from perftui.tui.benchmark.configure import BenchmarkConfigScreen
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui

CASES = {
    "sync and async with request lists": {
        "batch": "1,4",
        "api": "sync,async",
        "requests": "2,4",
    },
    "a hint for both apis, zero time": {
        "api": "async,sync",
        "requests": "auto,3",
        "hint": "none",
        "threads": "auto,2",
        "time": "0",
        "iterations": "7",
        "warmup": "0",
    },
    "streams, two hints, shapes and precision": {
        "streams": "auto,2",
        "api": "async",
        "requests": "1,3",
        "hint": "latency,throughput",
        "precision": "bf16",
        "shapes": "input[1,3,224,224]",
        "profile_iterations": "9",
    },
    "repeats": {"batch": "1,4", "repeat": "3"},
}


def cli_request(settings: dict[str, str]) -> BenchmarkRequest:
    argv = ["bench", "/models/net_fp32.onnx"]
    for name, text in settings.items():
        argv += [FLAGS[name], text]
    return request_from_args(build_parser().parse_args(argv))


async def form_request(app, services, settings: dict[str, str]) -> BenchmarkRequest:
    """Every field typed key by key (the defaults where the CLI gets its defaults), then run."""
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.push_screen(BenchmarkConfigScreen(app.store.get_project("net-fp32")))
        await pilot.pause()
        screen = app.screen
        for name in FIELD_NAMES:
            field = screen.query_one(f"#f-{name}", Input)
            field.focus()
            field.value = ""
            await pilot.press(*settings.get(name, DEFAULTS[name]))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: services.validated)
    assert len(services.validated) == 1
    return services.validated[0]


@pytest.mark.parametrize("case", list(CASES))
async def test_the_cli_and_the_form_give_the_same_runs(case: str, app, services):
    settings = CASES[case]
    cli = cli_request(settings)
    form = await form_request(app, services, settings)
    assert form.configs == cli.configs
    assert (form.budget, form.shapes, form.profile) == (cli.budget, cli.shapes, cli.profile)
    assert form.repeat == cli.repeat == int(settings.get("repeat", "1"))


def test_sync_runs_once_and_async_follows_the_throughput_hint():
    configs = cli_request(CASES["sync and async with request lists"]).configs
    assert [(c.batch, c.api, c.requests, c.hint) for c in configs] == [
        (1, "sync", "auto", "latency"),
        (1, "async", 2, "throughput"),
        (1, "async", 4, "throughput"),
        (4, "sync", "auto", "latency"),
        (4, "async", 2, "throughput"),
        (4, "async", 4, "throughput"),
    ]
