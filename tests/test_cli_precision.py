"""The precision each run actually executed, through the real entry point: OpenVINO runs a
float model in bf16 by default on a CPU with AVX-512 BF16 or AMX, and every place that shows
the run says so (what to expect is read from the engine, so this holds on any CPU)."""

from __future__ import annotations

import json

import pytest

from perftui.domain.measurement.context import precision_text
from tests.cli_helpers import bench_json, perftui, table_column
from tests.conftest import MOBILENET, openvino_cpu_precision

pytestmark = pytest.mark.engine


def test_bench_show_and_projects_say_the_precision_run():
    default = openvino_cpu_precision()
    doc = bench_json(str(MOBILENET), "--engine", "openvino", "--project", "m", "--batch", "1")
    [run] = doc["runs"]
    assert run["precision_run"] == run["resolved"]["precision"] == default
    assert doc["groups"][0]["precision_run"] == default
    lowered = any("ran in bf16" in note for note in run["context_notes"])
    assert lowered == (default == "bf16")

    forced = bench_json(
        str(MOBILENET), "--engine", "openvino", "--project", "m", "--precision", "f32"
    )
    assert forced["runs"][0]["precision_run"] == "f32"
    assert not forced["runs"][0]["context_notes"]

    shown = perftui("show", "m")
    assert shown.returncode == 0, shown.stderr
    table = shown.stdout.splitlines()[1:5]  # under the project's line: the two runs
    # tables write it in the profiles' words (JSON keeps the engine's)
    assert set(table_column(table, "ran")) == {precision_text(default), "FP32"}
    listed = json.loads(perftui("projects", "--json").stdout)["projects"]
    assert listed[0]["precision_run"]
    text = perftui("projects").stdout.splitlines()
    assert table_column(text, "ran") == [precision_text(listed[0]["precision_run"])]


def test_show_layers_gives_flops_at_the_runs_shapes_and_the_gflops_achieved():
    """LayerRow.gflops_per_s existed and was shown nowhere in the CLI; the FLOPs are those
    of the run's own shapes (seq 16 here, not the inspection default of 128)."""
    from tests.conftest import ENCODER

    bench_json(str(ENCODER), "--project", "enc", "--shape", "seq=16", "--profile")
    doc = json.loads(perftui("show", "enc", "--layers", "--json").stdout)
    assert doc["flops_shapes"] == {"input_ids": [1, 16]}
    assert doc["flops_convention"] == "2 x multiply-accumulates"
    counted = [t for t in doc["layer_types"] if t["flops"]]
    assert counted and all(t["gflops_per_s"] > 0 for t in counted if t["time_ms"] > 0)
    assert any(layer["gflops_per_s"] for layer in doc["layers"])
    text = perftui("show", "enc", "--layers").stdout
    assert "at the run's shapes input_ids[1,16]" in text and "GFLOP/s" in text
    refused = perftui("show", "enc", "--layers", "--run", "zzz")
    assert refused.returncode == 2 and "--run 'zzz' names 0 runs" in refused.stderr
