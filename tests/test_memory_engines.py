"""Memory measured by real workers on the sample models: an independent reading from outside
the worker, the peak growing with the batch, INT8 below FP32, tune under a memory limit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from perftui.bench import protocol
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig
from tests.cli_helpers import perftui
from tests.conftest import MOBILENET, MOBILENET_INT8
from tests.process_helpers import read_line

QUICK = ["--time", "0.3", "--iterations", "3", "--warmup", "1"]


def outside_reading(pid: int) -> tuple[float, float] | None:
    """(VmHWM, VmRSS) of another process in MiB, read from its /proc/PID/status."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmHWM", "VmRSS"):
            found[name] = int(rest.split()[0]) / 1024
    return (found["VmHWM"], found["VmRSS"]) if len(found) == 2 else None


@pytest.mark.engine
def test_an_outside_reading_agrees_within_5_percent() -> None:
    project = Project("mn", str(MOBILENET), "onnxruntime")
    request = BenchmarkRequest(
        project, (RunConfig(batch=16),), Budget(time_s=1.5, iterations=5, warmup=2)
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "perftui.bench.worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(json.dumps({"request": request.to_dict(), "start": 0}) + "\n")
    worker.stdin.flush()
    timed, last, finished = False, None, None
    try:
        while finished is None:
            line = read_line(worker.stdout)
            assert line, "the worker ended before its run finished"
            event = protocol.decode(line)
            if isinstance(event, protocol.PhaseChanged):
                timed = event.phase == "timed"
            elif isinstance(event, protocol.Progress) and timed:
                last = outside_reading(worker.pid) or last  # the window's latest moment
            elif isinstance(event, protocol.RunFinished):
                finished = event.run
    finally:
        worker.wait(timeout=60)
    assert last is not None, "no tick in the timed window"
    memory = finished.memory
    assert memory is not None and memory.end_mib is not None
    assert memory.window_peak_mib is not None
    outside_peak, outside_rss = last
    assert abs(memory.end_mib - outside_rss) <= 0.05 * outside_rss
    assert abs(memory.window_peak_mib - outside_peak) <= 0.05 * outside_peak


def bench_memory(model: Path, engine: str, batches: str) -> list[dict]:
    result = perftui(
        "bench", str(model), "--engine", engine, "--batch", batches, *QUICK, "--no-save", "--json"
    )
    assert result.returncode == 0, result.stderr
    return [run["memory"] for run in json.loads(result.stdout)["runs"]]


@pytest.mark.engine
@pytest.mark.parametrize("engine", ["onnxruntime", "openvino"])
def test_the_window_peak_grows_with_the_batch(engine: str) -> None:
    found = bench_memory(MOBILENET, engine, "1,8,32")
    peaks = [m["window_peak_mib"] for m in found]
    assert peaks[0] < peaks[1] < peaks[2], peaks
    for memory in found:  # the compile peak is reported apart, and each over the baseline
        assert memory["compile_peak_mib"] > memory["baseline_mib"] > 0
        assert memory["window_increase_mib"] == memory["window_peak_mib"] - memory["baseline_mib"]
        assert memory["model_mib"] == pytest.approx(MOBILENET.stat().st_size / 2**20)


@pytest.mark.engine
def test_int8_holds_less_than_fp32() -> None:
    fp32 = bench_memory(MOBILENET, "onnxruntime", "8,32")
    int8 = bench_memory(MOBILENET_INT8, "onnxruntime", "8,32")
    for a, b in zip(fp32, int8, strict=True):
        assert b["window_peak_mib"] < a["window_peak_mib"]
    assert int8[0]["model_mib"] < fp32[0]["model_mib"] / 2


TUNE_SPACE = "batch=1,32 threads=1 streams=1 requests=1 hint=throughput api=sync"


def tune(db: Path, *limit: str) -> dict:
    result = perftui(
        "tune", "mn", "--max-latency", "10000", "--trials", "2", "--space", TUNE_SPACE,
        *QUICK, *limit, "--json", db=db, timeout=300,
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr  # 1: no trial fitted (a noisy machine)
    return json.loads(result.stdout)


@pytest.mark.engine
def test_tune_under_a_memory_limit_picks_a_configuration_within_it(isolated_db: Path) -> None:
    result = perftui("bench", str(MOBILENET), "--project", "mn", *QUICK, db=isolated_db)
    assert result.returncode == 0, result.stderr
    free = tune(isolated_db)
    peaks = {t["config"]["batch"]: t["memory_peak_mib"] for t in free["trials"]}
    assert peaks[32] > peaks[1]
    limit = (peaks[1] + peaks[32]) / 2  # below batch 32's, above batch 1's
    limited = tune(isolated_db, "--max-memory", f"{limit:.1f}")
    assert limited["max_memory_mib"] == pytest.approx(limit, abs=0.05)
    for trial in limited["trials"]:
        if trial["status"] == "fits":
            assert trial["memory_peak_mib"] <= limit
        if trial["config"]["batch"] == 32 and trial["status"] not in ("too noisy", "failed"):
            assert trial["status"] in ("over memory", "over", "stopped early")
    best = limited["best"]
    assert best is None or best["memory_peak_mib"] <= limit
