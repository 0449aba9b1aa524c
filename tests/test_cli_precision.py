"""The precision each run actually executed, through the real entry point: OpenVINO runs a
float model in bf16 by default on a CPU with AVX-512 BF16 or AMX, and every place that shows
the run says so (what to expect is read from the engine, so this holds on any CPU)."""

from __future__ import annotations

import json

import pytest

from tests.cli_helpers import bench_json, perftui
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
    rows = shown.stdout.splitlines()[3:5]
    assert {row.split()[8] if "p:f32" in row else row.split()[7] for row in rows} == {
        default,
        "f32",
    }
    listed = json.loads(perftui("projects", "--json").stdout)["projects"]
    assert listed[0]["precision_run"]
    text = perftui("projects").stdout.splitlines()
    assert text[0].split()[4] == "ran"
