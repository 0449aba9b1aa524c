"""`perftui import` of OpenVINO benchmark_app's -json_stats reports, written by the real tool."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from perftui.store import Store
from tests.cli_helpers import one_error_line, perftui
from tests.conftest import MOBILENET_IR

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
    assert any(layer.precision == "FP32" for layer in run.layers)
    assert run.resolved["benchmark_app"]["unreported"] == ["p90", "p99", "stdev", "cv"]
    project = Store(isolated_db).get_project("ba")
    assert project is not None and project.engine == "openvino" and project.device == "CPU"


def test_a_broken_benchmark_app_report_is_refused(tmp_path: Path, isolated_db: Path):
    bad = tmp_path / "benchmark_report.json"
    bad.write_text(json.dumps({"execution_results": {"throughput": "fast"}, "cmd_options": {}}))
    line = one_error_line(perftui("import", str(bad)))
    assert "benchmark_app report" in line
    assert not Store(isolated_db).projects()
