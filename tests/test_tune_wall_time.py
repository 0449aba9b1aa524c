"""A tune's end says the time the person waited (issue 40, item 7): the search child's own
time left out its start, its engine's load and compile ("4 trials, 4 s" after 20 s)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from perftui.domain.forms.tune import TuneSpec
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.domain.tune.result import Limits
from perftui.store.database import Store
from perftui.tui.tune.live import best_line
from perftui.tune.runner import TuneProcess

SLOW_CHILD = (
    "import json, sys, time; sys.stdin.read(); time.sleep(1.5); "
    'print(json.dumps({"event": "done", "reason": "trials measured", "elapsed_s": 0.1,'
    ' "cancelled": False}), flush=True)'
)
"""A search child that takes 1.5 s to start and then says its search took 0.1 s."""


def test_the_outcome_is_timed_from_the_childs_start_to_its_end(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.json")
    project = store.add_project(Project("p", "/models/m.onnx", "openvino", "CPU"))
    request = BenchmarkRequest(project, (RunConfig(1, 1),), Budget(time_s=1.0))
    spec = TuneSpec(request, (RunConfig(1, 1),), "median", 10.0, Limits(trials=1))
    process = TuneProcess(spec, store)
    process.command = (sys.executable, "-c", SLOW_CHILD)
    began = time.monotonic()
    assert list(process.trials()) == []
    waited = time.monotonic() - began
    assert process.outcome is not None
    assert 1.5 <= process.outcome.elapsed_s <= waited
    said = f"0 trials in {process.outcome.elapsed_s:.0f} s."
    assert said in best_line(process.outcome)
