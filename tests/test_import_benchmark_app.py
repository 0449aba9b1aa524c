"""`perftui import` of OpenVINO benchmark_app's -json_stats reports, written by the real tool."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from perftui.domain.compare import run_latency
from perftui.domain.records import LatencyStats, RunConfig, RunResult
from perftui.store import Store
from tests.cli_helpers import one_error_line, perftui
from tests.conftest import LAYER_PRECISION, MOBILENET_IR, openvino_cpu_precision

BENCHMARK_APP = shutil.which("benchmark_app") or str(
    Path(sys.executable).with_name("benchmark_app")
)


@pytest.fixture(scope="module")
def report_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not Path(BENCHMARK_APP).exists():
        pytest.skip("benchmark_app (the openvino package) is not installed")
    folder = tmp_path_factory.mktemp("benchmark_app")
    command = [BENCHMARK_APP, "-m", str(MOBILENET_IR), "-shape", "[1,3,224,224]", "-t", "1"]
    command += ["-report_type", "detailed_counters", "-json_stats", "-report_folder", str(folder)]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    return folder


def test_a_benchmark_app_report_lands_in_a_project(report_folder: Path, isolated_db: Path):
    report = json.loads((report_folder / "benchmark_report.json").read_text())
    done = perftui("import", str(report_folder / "benchmark_report.json"), "--project", "ba")
    assert done.returncode == 0, done.stderr
    [run] = Store(isolated_db).runs("ba")
    assert run.throughput_fps == pytest.approx(float(report["execution_results"]["throughput"]))
    assert run.latency_ms is not None and run.latency_ms.min <= run.latency_ms.median
    assert run.config.api == "async" and run.iterations > 0
    assert run.layers and len(run.layers) > 10  # the counters report beside it
    ran = LAYER_PRECISION[openvino_cpu_precision()]  # benchmark_app ran the engine's default
    assert any(layer.precision == ran for layer in run.layers)
    assert run.resolved["benchmark_app"]["unreported"] == ["p90", "p99", "stdev", "cv"]
    assert run.latency_ms.p90 is None and run.latency_ms.p99 is None  # unknown, not 0 ms
    shown = perftui("show", "ba", "--json")
    [group] = json.loads(shown.stdout)["groups"]
    assert group["latency_ms"]["p99"] is None and group["latency_ms"]["median"] > 0
    project = Store(isolated_db).get_project("ba")
    assert project is not None and project.engine == "openvino" and project.device == "CPU"


def test_statistics_stored_as_0_before_none_existed_read_as_unknown():
    """Imports made before the unreported statistics were None stored them as 0: a p90 of
    0 ms would pass any latency budget and win any latency comparison."""
    stored = RunResult(
        config=RunConfig(),
        latency_ms=LatencyStats(1.0, 2.0, 2.0, 0.0, 0.0, 3.0, 0.0, 0.0),
        resolved={"benchmark_app": {"unreported": ["p90", "p99", "stdev", "cv"]}},
    ).to_dict()
    run = RunResult.from_dict(stored)
    assert run.latency_ms == LatencyStats(1.0, 2.0, 2.0, None, None, 3.0, None, None)
    assert run_latency(run, "p90") is None and run_latency(run, "median") == 2.0
    assert RunResult.from_dict(run.to_dict()) == run
    ours = replace(run, resolved={}, latency_ms=replace(run.latency_ms, p90=0.5))
    assert RunResult.from_dict(ours.to_dict()).latency_ms.p90 == 0.5


def test_a_broken_benchmark_app_report_is_refused(tmp_path: Path, isolated_db: Path):
    bad = tmp_path / "benchmark_report.json"
    bad.write_text(json.dumps({"execution_results": {"throughput": "fast"}, "cmd_options": {}}))
    line = one_error_line(perftui("import", str(bad)))
    assert "benchmark_app report" in line
    assert not Store(isolated_db).projects()


def test_reading_a_report_loads_no_engine(tmp_path: Path):
    """A report is JSON: its layers' precisions come from the exec_type suffix without
    OpenVINO (or any engine) being imported."""
    report = {
        "cmd_options": {"-m": "/m/net.xml"},
        "configuration_setup": {"target device": "CPU"},
        "execution_results": {"throughput": 100.0, "total number of iterations": 10},
    }
    counters = {
        "report_type": "average",
        "avg_performance": {
            "nodes": [
                {
                    "name": "c",
                    "node_type": "Convolution",
                    "exec_type": "jit_avx2_I8",
                    "status": "Status.EXECUTED",
                    "real_time": 0.5,
                },
            ]
        },
    }
    code = (
        "import json, sys; from perftui.exchange.benchmark_app import records;"
        f" _, run = records(json.loads({json.dumps(report)!r}),"
        f" json.loads({json.dumps(counters)!r}), None, 'r');"
        " print(run.layers[0].precision,"
        " any(m.split('.')[0] in ('openvino', 'onnxruntime') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["I8", "False"]
