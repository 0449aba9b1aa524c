"""Issue 40, item 2: a gate measures one configuration on both sides, chosen as `compare`
chooses, or refuses with one line when the two projects share none; the settings it used
are in every output (the table, JSON, Markdown, JUnit)."""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

from perftui.cli.gate_sides import MODEL_ONLY, gate_requests
from perftui.domain.compare import compare_projects
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.domain.regression.gate_render import (
    gate_document,
    gate_junit,
    gate_markdown,
    gate_text,
)
from perftui.store import Store
from tests.cli_helpers import one_error_line, perftui
from tests.test_gate import pairs, report
from tests.tui.compare_data import run


def stored(path: Path, a: list[tuple[int, float]], b: list[tuple[int, float]]) -> Store:
    """Projects `a` and `b`, each a benchmark of the batches given, a run per (batch, fps)."""
    store = Store(path)
    for name, runs in (("a", a), ("b", b)):
        project = store.add_project(Project(name, f"/models/{name}.onnx", "openvino", "CPU"))
        configs = tuple(RunConfig(batch=batch) for batch, _ in runs)
        bench = store.add_benchmark(BenchmarkRequest(project, configs, Budget(time_s=1.0)))
        for n, (batch, fps) in enumerate(runs):
            store.add_run(replace(run(name, n, batch, 0, fps), benchmark_id=bench))
    return store


def test_a_gate_of_sides_that_share_no_configuration_is_refused(tmp_path: Path):
    db = tmp_path / "db.json"
    stored(db, [(2, 300.0)], [(1, 500.0)])
    line = one_error_line(perftui("gate", "a", "b", "--rounds", "3", db=db))
    assert "share no measured configuration" in line and "batch 2 vs 1" in line, line
    assert [len(Store(db).runs(name)) for name in "ab"] == [1, 1]  # nothing measured


def test_a_gate_measures_the_configuration_both_sides_share(tmp_path: Path):
    store = stored(tmp_path / "db.json", [(1, 100.0), (2, 300.0)], [(1, 150.0), (4, 900.0)])
    # an alternated measurement of A's batch 2 against B's batch 4: what `compare` shows
    for name, batch in (("a", 2), ("b", 4)):
        measured = next(r for r in store.runs(name) if r.config.batch == batch)
        for repeat in range(2):
            resolved = {**measured.resolved, "label": "alternated tok"}
            store.add_run(replace(measured, id="", repetition=repeat, resolved=resolved))
    c = compare_projects("a", store.runs("a"), "b", store.runs("b"))
    assert (c.a.config.batch, c.b.config.batch) == (2, 4)  # type: ignore[union-attr]
    args = argparse.Namespace(baseline="a", candidate="b", target=None)
    for name in MODEL_ONLY:
        setattr(args, name, None)
    a, b = gate_requests(store, args, 3, 0.5, "gate tok 5% median 3")
    assert a.configs == b.configs == (RunConfig(batch=1),)


def test_the_settings_are_in_every_output():
    found = report({"median": pairs(1.0, 0.01, 10)})
    assert "settings: b1, both sides" in gate_text(found).splitlines()[1]
    assert json.loads(json.dumps(gate_document(found)))["settings"] == "b1, both sides"
    assert "Settings: b1, both sides" in gate_markdown(found)
    props = ET.fromstring(gate_junit(found)).findall("testsuite/properties/property")
    assert {p.get("name"): p.get("value") for p in props}["settings"] == "b1, both sides"
