"""Issue 25, items 6 and 7 in `perftui report`: an INT8 project's accuracy against FP32 and
its caution; the dims of each row; configurations counted once however many benchmarks
measured them, each row told apart by when it ran, and one point marked per compared run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from perftui.cli.report import build_report
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from perftui.domain.report.render import render
from perftui.store.database import Store
from tests.tui.conftest import make_run

STRAYING = {
    "inputs": "random",
    "samples": 8,
    "reference_precision": "f32",
    "outputs": [
        {
            "name": "logits",
            "shape": [8, 10],
            "elements": 80,
            "max_abs_diff": 0.9,
            "mean_abs_diff": 0.2,
            "cosine_similarity": 0.91,
            "cosine_min": 0.8,
            "top1_agreement": 0.5,
            "top1_matches": 4,
            "top1_rows": 8,
        }
    ],
}
NOTES = {"optimization": {"method": "static", "calibration": "random", "samples": 8, "seed": 0}}
SEQ = RunConfig(1, 1, dims=(("seq", 64),))


def fill(path: Path) -> Store:
    """fp32: one configuration measured in two benchmarks; int8: made by optimize, whose
    outputs stray from FP32's."""
    store = Store(path)
    fp32 = store.add_project(Project("enc-fp32", "/m/enc.onnx", "openvino", "CPU"))
    notes = {"optimization": {**NOTES["optimization"], "accuracy": STRAYING}}
    int8 = Project("enc-int8", "/m/enc_int8.onnx", "openvino", "CPU", source_project="enc-fp32")
    int8 = store.add_project(replace(int8, notes=notes))
    for n, project in enumerate((fp32, fp32, int8)):
        bench = store.add_benchmark(BenchmarkRequest(project, (SEQ,), Budget(time_s=1)))
        run = make_run(project.name, 1, 1, 200.0 + 100 * n, n)
        run = replace(run, config=SEQ, id="", benchmark_id=bench)
        store.add_run(run, np.full(10, 4.0))
    return store


def test_the_int8_accuracy_and_its_caution_are_in_the_report(tmp_path: Path):
    store = fill(tmp_path / "r.json")
    md = render(build_report(store, "enc-int8", None), "md")
    assert "## INT8 accuracy" in md
    assert "INT8 of enc-fp32" in md and "calibrated on 8 seeded random samples" in md
    assert "cosine 0.9100" in md and "top-1 agreement 50% (4/8)" in md
    assert "caution: the INT8 outputs stray from FP32's" in md
    both = render(build_report(store, "enc-fp32", "enc-int8"), "md")
    assert "## INT8 accuracy of B (enc-int8)" in both
    assert "- B (enc-int8) is INT8; caution: the INT8 outputs stray" in both


def test_dims_each_configuration_once_and_one_mark_per_compared_run(tmp_path: Path):
    store = fill(tmp_path / "r.json")
    md = render(build_report(store, "enc-fp32", None), "md")
    assert "Runs: 2 of 1 configuration(s), measured in 2 benchmark groups" in md
    rows = [
        line for line in md.splitlines() if line.startswith("| b1 t1 seq=64") and "sync" in line
    ]
    assert len(rows) == 2 and len(set(row.split(" | ")[0] for row in rows)) == 2, rows
    assert all("seq 64" in row.split(" | ")[1] for row in rows), rows  # dims in Settings
    both = render(build_report(store, "enc-int8", "enc-fp32"), "md")
    marked = [line for line in both.splitlines() if line.rstrip().endswith("| B |")]
    assert len(marked) == 1, marked  # the compared run's group, not every group of its config
