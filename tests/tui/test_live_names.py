"""Issue 12, 8 on the live run: a benchmark of several projects names each run by its
project and its settings; at 80 columns the projects' names are cut together (the start they
share, not the tail that tells them apart) and the settings stay whole."""

from __future__ import annotations

import pytest

from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.tui.benchmark.live import LiveRunScreen
from perftui.tui.kit.fit import distinct, distinct_named
from tests.tui.test_live import table_rows
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui

FAMILY = ("mobilenet-v2-imagenet-fp32-ov", "mobilenet-v2-imagenet-int8-ov")


def test_names_are_cut_together_and_the_settings_kept() -> None:
    named = [(name, "b1 t:auto") for name in FAMILY]
    assert distinct_named(named, 60) == [f"{name} b1 t:auto" for name in FAMILY]
    for width in (18, 20, 24, 30):
        shown = distinct_named(named, width)
        assert len(set(shown)) == 2 and all(len(s) <= width for s in shown), shown
        assert all(s.endswith(" b1 t:auto") for s in shown), shown
    assert distinct_named(named, 24) == ["mobile…fp32-ov b1 t:auto", "mobile…int8-ov b1 t:auto"]
    long = [(name, "b1 t:auto s2 r4 thr async") for name in FAMILY]
    shown = distinct_named(long, 20)
    assert shown == ["…fp32-ov b1 t:…async", "…int8-ov b1 t:…async"]
    assert distinct_named([("", "b1 t1"), ("", "b4 t1")], 10) == ["b1 t1", "b4 t1"]


def test_the_samples_names_keep_the_part_that_tells_them_apart() -> None:
    """The four samples: '-fp32-ov' shares its start with '-fp32-ort' and its end with
    '-int8-ov'; what is kept reaches back to 'fp32-ov', the end no other name has."""
    samples = ["mobilenet-fp32-ov", "mobilenet-int8-ov", "mobilenet-fp32-ort", "mobilenet-int8-ort"]
    for width in (8, 10, 12):
        shown = distinct(samples, width)
        assert len(set(shown)) == 4 and all(len(s) <= width for s in shown), shown
    assert distinct(samples, 12) == ["mobi…fp32-ov", "mobi…int8-ov", "mob…fp32-ort", "mob…int8-ort"]
    named = distinct_named([(name, "b1 t:auto") for name in samples], 21)
    assert named[:2] == ["mob…fp32-ov b1 t:auto", "mob…int8-ov b1 t:auto"]


async def test_the_live_table_tells_projects_of_one_family_apart(app, services):
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        requests = []
        for name in FAMILY:
            project = Project(name, f"/models/{name}.onnx", "openvino", "CPU")
            project = app.store.add_project(project)
            config = RunConfig(1, 0, streams="2", requests="4", hint="throughput", api="async")
            requests.append(BenchmarkRequest(project, (config,), Budget(time_s=1)))
        screen = LiveRunScreen(requests, validated=True)
        app.push_screen(screen)
        await wait_for(pilot, lambda: not screen.running)
        await pilot.pause()
        runs = [row[1] for row in table_rows(screen)]
        assert len(runs) == 2 and len(set(runs)) == 2, runs
        assert "fp32-ov b1 t" in runs[0] and "int8-ov b1 t" in runs[1], runs
