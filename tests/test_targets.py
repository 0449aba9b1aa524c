"""Targets over SSH, against a real OpenSSH server on the loopback address (tests/sshd.py).

The "remote" perftui is this checkout's own python, named with --python as a person names a
venv's python on a host; the server is reached through a Host alias of a generated ssh config.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from perftui.cli import main
from perftui.store import Store
from perftui.targets.registry import Target, TargetBook
from tests.cli_helpers import QUICK, one_error_line, perftui
from tests.conftest import MOBILENET, MOBILENET_IR, ROOT
from tests.process_helpers import (
    MEASURING_CPU_S,
    cpu_seconds,
    process_gone,
    read_until,
    wait_until,
)
from tests.sshd import (
    ALIAS,
    CLOSED,
    MISSING,
    SSHD,
    Server,
    command_line,
    descendants,
    lock_is_free,
    sshd,
)

pytestmark = pytest.mark.skipif(SSHD is None, reason=MISSING)
PYTHON = sys.executable


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with sshd(tmp_path_factory.mktemp("sshd")) as running:
        yield running


@pytest.fixture
def box(server: Server, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> str:
    """A target named "box" on the test server, in this test's own targets file."""
    monkeypatch.setenv("PERFTUI_SSH", server.ssh)
    assert main(["targets", "add", "box", ALIAS, "--python", PYTHON]) == 0
    capsys.readouterr()
    return "box"


def remote_workers(server: Server) -> list[int]:
    """Benchmark workers and relays the server's sessions run."""
    return [
        pid
        for pid in descendants(server.process.pid)
        if "perftui.bench.worker" in command_line(pid) or "agent relay" in command_line(pid)
    ]


def wait_measuring(server: Server) -> list[int]:
    """The remote worker's processes, once its worker has worked long enough to be in its
    timed window (CPU time, not wall time: a loaded machine slows both alike)."""
    wait_until(
        lambda: any(cpu_seconds(pid) >= MEASURING_CPU_S for pid in bench_workers(server)),
        120,
        "no worker measured on the target",
    )
    return remote_workers(server)


def bench_workers(server: Server) -> list[int]:
    return [pid for pid in remote_workers(server) if "bench.worker" in command_line(pid)]


def wait_gone(pids: list[int], timeout_s: float = 20.0) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while (left := [pid for pid in pids if not process_gone(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def test_targets_add_list_remove(box: str, capsys: pytest.CaptureFixture, isolated_db: Path):
    assert main(["targets", "add", "bare", ALIAS, "--price-per-hour", "0.34"]) == 0  # no perftui
    assert main(["targets", "add", "closed", CLOSED]) == 2  # unreachable: nothing stored
    assert "closed" not in capsys.readouterr().err.split(":")[0]
    TargetBook(isolated_db).add(Target("closed", CLOSED))  # a host that went down since
    assert main(["targets", "list", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["targets"]}
    ready = rows["box"]
    assert ready["ready"] and ready["reachable"] and ready["error"] is None
    assert ready["perftui"] and ready["openvino"] and ready["cpu_model"] and ready["logical_cores"]
    assert ready["devices"]["openvino"] == ["CPU"] and ready["devices"]["onnxruntime"]
    assert "sockets" in ready and isinstance(ready["isa"], list)
    assert rows["local"]["ready"] and rows["local"]["devices"]  # this machine comes first
    assert rows["bare"]["price_per_hour"] == 0.34
    assert rows["bare"]["reachable"] and not rows["bare"]["ready"]
    assert "perftui is not installed" in rows["bare"]["error"]
    assert "pip install perftui==" in rows["bare"]["error"]
    assert not rows["closed"]["reachable"] and "is unreachable" in rows["closed"]["error"]

    assert main(["targets", "remove", "closed"]) == 0
    assert main(["targets", "add", "box", ALIAS]) == 2  # the name is taken
    assert main(["targets", "add", "local", ALIAS]) == 2  # this machine's name
    capsys.readouterr()
    assert main(["targets", "list"]) == 0
    listed = capsys.readouterr().out
    assert "box: perftui-test-host: ready" in listed and "closed" not in listed
    assert "bare: perftui-test-host (0.34/h): reachable, not ready" in listed
    assert "local: this machine" in listed and "INT8 ISA:" in listed


def test_bench_on_a_target_stores_runs_with_its_environment(box: str, isolated_db: Path):
    args = ["bench", str(MOBILENET_IR), "--target", box, *QUICK, "--json"]
    first = perftui(*args)
    assert first.returncode == 0, first.stderr
    assert "copying mobilenet_fp32.bin" in first.stderr  # the IR's weights travel with it
    document = json.loads(first.stdout)
    assert document["project"] == "mobilenet_fp32-openvino-CPU@box"
    assert document["environment"]["target"] == box
    [run] = document["runs"]
    assert run["status"] == "ok" and run["throughput_fps"] > 0
    assert run["memory"]["window_peak_mib"] > run["memory"]["baseline_mib"] > 0  # read there
    stored = Store(isolated_db)
    project = stored.get_project(document["project"])
    assert project is not None and project.target == box
    assert project.model == str(MOBILENET_IR)  # the local path: the copy is the target's
    [kept] = stored.runs(project.name)
    assert kept.resolved["environment"]["target"] == box
    assert kept.memory is not None and kept.memory.model_mib is not None

    again = perftui("bench", str(MOBILENET_IR), "--project", project.name, *QUICK)
    assert again.returncode == 0, again.stderr
    assert "copying" not in again.stderr  # content-addressed: placed once
    assert len(Store(isolated_db).runs(project.name)) == 2  # the project named its target


def test_a_target_without_perftui_is_one_clear_line(server: Server, box: str):
    assert main(["targets", "add", "bare", ALIAS]) == 0
    line = one_error_line(perftui("bench", str(MOBILENET), "--target", "bare", *QUICK))
    assert "perftui is not installed for python3 on bare" in line
    line = one_error_line(perftui("bench", str(MOBILENET), "--target", "nowhere", *QUICK))
    assert "no target named 'nowhere'" in line


def _bench_in_background(box: str, *extra: str) -> subprocess.Popen[str]:
    args = ["bench", str(MOBILENET), "--engine", "onnxruntime", "--target", box, "--warmup", "1"]
    return subprocess.Popen(
        [sys.executable, "-m", "perftui", *args, "--iterations", "5", *extra],
        cwd=ROOT,
        env=dict(os.environ),
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_ctrl_c_stops_the_remote_worker(server: Server, box: str, isolated_db: Path):
    process = _bench_in_background(box, "--time", "600")
    assert process.stderr is not None
    try:
        workers = wait_measuring(server)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert wait_gone(workers) == []
    [run] = Store(isolated_db).runs("mobilenet_fp32-onnxruntime-CPU@box")
    assert run.status == "cancelled" and run.iterations > 0  # what it measured is kept


def test_a_dropped_connection_fails_the_run_and_keeps_finished_ones(
    server: Server, box: str, isolated_db: Path
):
    # run 1 measures about 1 s; run 2, 100 requests of 64 images, many seconds more
    process = _bench_in_background(box, "--batch", "1,64", "--time", "1", "--iterations", "100")
    assert process.stderr is not None
    try:
        read_until(process.stderr, "run 1/2 b1", timeout_s=120)  # run 1 finished
        workers = wait_measuring(server)
        sessions = [pid for pid in descendants(server.process.pid) if pid not in workers]
        for pid in sessions:  # the sshd processes of the connection: it drops
            with contextlib.suppress(ProcessLookupError):  # a short session may have ended
                os.kill(pid, signal.SIGKILL)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 1, err
    assert "the connection to target box (perftui-test-host) was lost" in out + err
    assert wait_gone(workers) == []  # none left behind on the host
    runs = Store(isolated_db).runs("mobilenet_fp32-onnxruntime-CPU@box")
    by_batch = {run.config.batch: run for run in runs}
    assert {batch: run.status for batch, run in by_batch.items()} == {1: "ok", 64: "failed"}
    assert "connection to target box" in (by_batch[64].error or "")


def test_the_host_lock_is_held_across_repetitions(server: Server, box: str):
    # repetitions long enough that the second benchmark (a python start and an ssh handshake,
    # seconds on a loaded machine) reaches the host while the first still holds it
    process = _bench_in_background(box, "--repeat", "2", "--time", "4", "--no-save")
    first_seen: dict[int, float] = {}
    free_at: list[float] = []
    busy: list[str] = []
    second = threading.Thread(  # a second benchmark on the same host, while polling goes on
        target=lambda: busy.append(
            one_error_line(perftui("bench", str(MOBILENET), "--target", box, *QUICK, "--no-save"))
        )
    )
    try:
        while process.poll() is None:
            now = time.monotonic()
            if lock_is_free(server):
                free_at.append(now)
            for pid in remote_workers(server):
                if "bench.worker" in command_line(pid):
                    first_seen.setdefault(pid, now)
            if first_seen and not second.is_alive() and not busy:
                second.start()
            time.sleep(0.02)
        _, err = process.communicate(timeout=60)
        second.join(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert len(first_seen) == 2  # one worker per round
    round_one, round_two = sorted(first_seen.values())
    assert [t for t in free_at if round_one < t < round_two] == []  # never free in between
    assert busy and "target box is busy: another benchmark is running there" in busy[0]
    assert lock_is_free(server)  # the lease ended with the benchmark
