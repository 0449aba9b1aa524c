"""One benchmark on several hosts at once: two real OpenSSH servers on the loopback address
(tests/sshd.py) as hosts h1 and h2, and this machine; one server killed mid-matrix."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from perftui.store import Store
from tests.cli_helpers import QUICK, one_error_line, perftui
from tests.conftest import MOBILENET, ROOT
from tests.process_helpers import MEASURING_CPU_S, cpu_seconds, read_until, wait_until
from tests.sshd import ALIAS, MISSING, SSHD, Server, command_line, descendants, sshd

pytestmark = pytest.mark.skipif(SSHD is None, reason=MISSING)
HOSTS = ("h1", "h2")


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[dict[str, Server]]:
    with sshd(tmp_path / "h1") as one, sshd(tmp_path / "h2") as two:
        yield {"h1": one, "h2": two}


@pytest.fixture
def hosts(
    servers: dict[str, Server], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_db: Path
) -> dict[str, Server]:
    """Targets h1 and h2, one per server, reached through one ssh config with both aliases."""
    config = tmp_path / "ssh_config"
    config.write_text(
        "".join(
            server.config.read_text().split("Host perftui-test-closed")[0].replace(ALIAS, name)
            for name, server in servers.items()
        )
    )
    monkeypatch.setenv("PERFTUI_SSH", f"ssh -F {config}")
    for name in HOSTS:
        added = perftui("targets", "add", name, name, "--python", sys.executable)
        assert added.returncode == 0, added.stderr
    return servers


def test_a_matrix_over_three_hosts_stores_each_hosts_runs(hosts: dict, isolated_db: Path):
    assert perftui("targets", "price", "h1", "0.34").returncode == 0
    args = ["--engine", "onnxruntime", "--batch", "1,2", "--target", "local,h1,h2", "--json"]
    done = perftui("bench", str(MOBILENET), *QUICK, *args, timeout=300)
    assert done.returncode == 0, done.stderr
    documents = {d["host"]: d for d in json.loads(done.stdout)["hosts"]}
    assert list(documents) == ["local", "h1", "h2"]
    for host, document in documents.items():
        assert document["error"] is None
        assert [run["status"] for run in document["runs"]] == ["ok", "ok"]
        assert document["environment"].get("target", "local") == host
    assert documents["h1"]["runs"][0]["cost_per_million"] > 0  # h1's price came with its runs
    assert documents["h2"]["runs"][0]["cost_per_million"] is None
    for host in HOSTS:  # progress per host
        assert f"{host}: run 2/2 b2" in done.stderr
    store = Store(isolated_db)
    name = "mobilenet_fp32-onnxruntime-CPU"
    for project, target in ((name, "local"), (f"{name}@h1", "h1"), (f"{name}@h2", "h2")):
        stored = store.get_project(project)
        assert stored is not None and stored.target == target
        runs = store.runs(project)
        assert len(runs) == 2 and {
            r.resolved["environment"].get("target", "local") for r in runs
        } == {target}

    compared = perftui("compare", name, f"{name}@h1", "--json")  # across hosts
    assert compared.returncode == 0, compared.stderr
    document = json.loads(compared.stdout)
    assert {"property": "Target", "a": "local", "b": "h1"} in document["environment_differences"]
    assert document["b"]["run"]["cost_per_million"] > 0 and document["b"]["run"]["price_per_hour"]
    cheapest = document["cheapest"]  # the sweet spot by cost: only h1's runs have a price
    assert cheapest["side"] == "B" and cheapest["cost_per_million"] > 0
    assert cheapest["run_id"] in {run["id"] for run in documents["h1"]["runs"]}
    text = perftui("compare", name, f"{name}@h1").stdout
    assert "$/M inf" in text and "on different machines" in text
    assert "Target: A local | B h1" in text and "cheapest per inference: B " in text
    report = perftui("report", name, f"{name}@h1")
    assert report.returncode == 0, report.stderr
    assert "$/M inf" in report.stdout and "B costs " in report.stdout
    assert "On different machines" in report.stdout and "Target local vs h1" in report.stdout


def test_a_host_killed_mid_matrix_fails_its_own_runs_only(hosts: dict, isolated_db: Path):
    args = ["--engine", "onnxruntime", "--warmup", "1", "--iterations", "5", "--time", "2"]
    args += ["--batch", "1,2,4", "--target", "h1,h2"]
    process = subprocess.Popen(
        [sys.executable, "-m", "perftui", "bench", str(MOBILENET), *args],
        cwd=ROOT,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    try:
        seen = read_until(process.stderr, "h2: run 1/3 b1", timeout_s=180)
        server = hosts["h2"]
        for pid in [server.process.pid, *descendants(server.process.pid)]:  # the host drops
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        out, err = process.communicate(timeout=180)
    finally:
        process.kill()
    err = "".join(line if line.endswith("\n") else line + "\n" for line in seen) + err
    assert process.returncode == 1, err
    failed = [line for line in err.splitlines() if line.startswith("h2: run") and "failed" in line]
    assert [line.split()[2] for line in failed] == ["2/3", "3/3"], err  # one line each
    name = "mobilenet_fp32-onnxruntime-CPU"
    store = Store(isolated_db)
    assert [r.status for r in store.runs(f"{name}@h1")] == ["ok", "ok", "ok"]  # h1 went on
    kept = {r.config.batch: r.status for r in store.runs(f"{name}@h2")}
    assert kept[1] == "ok"  # finished before the drop: kept
    assert "h1:" in out and "h2:" in out


def test_a_bad_host_list_is_refused_before_anything_runs(isolated_db: Path):
    from perftui.domain.records import Project
    from perftui.targets.registry import Target, TargetBook

    args = ["bench", str(MOBILENET), *QUICK]
    line = one_error_line(perftui(*args, "--target", "local,nowhere"))
    assert "no target named 'nowhere'" in line and not isolated_db.exists()
    assert "separated by commas" in one_error_line(perftui(*args, "--target", "local,,h1"))
    TargetBook(isolated_db).add(Target("h1", "h1.example"))  # never reached: refused first
    Store(isolated_db).add_project(Project("p@h1", "/elsewhere/other.onnx", "onnxruntime"))
    line = one_error_line(perftui(*args, "--project", "p", "--target", "local,h1"))
    assert "project 'p@h1' already uses model /elsewhere/other.onnx" in line
    assert [p.name for p in Store(isolated_db).projects()] == ["p@h1"]  # nothing else stored


def test_ctrl_c_cancels_every_host_and_keeps_what_they_measured(hosts: dict, isolated_db: Path):
    args = ["--engine", "onnxruntime", "--warmup", "1", "--iterations", "5", "--time", "600"]
    process = subprocess.Popen(
        [sys.executable, "-m", "perftui", "bench", str(MOBILENET), *args, "--target", "h1,h2"],
        cwd=ROOT,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(  # both hosts' workers measure (CPU time past the read and compile)
            lambda: (
                process.poll() is not None
                or all(
                    any(
                        "bench.worker" in command_line(pid) and cpu_seconds(pid) >= MEASURING_CPU_S
                        for pid in descendants(s.process.pid)
                    )
                    for s in hosts.values()
                )
            ),
            120,
            "no workers measured on both hosts",
        )
        assert process.poll() is None, "the benchmark ended before it was interrupted"
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert err.count("cancelling:") == 1  # said once, for every host
    deadline = time.monotonic() + 20
    while any(  # no worker left behind on either host
        "bench.worker" in command_line(pid)
        for s in hosts.values()
        for pid in descendants(s.process.pid)
    ):
        assert time.monotonic() < deadline, "a worker outlived the cancel"
        time.sleep(0.2)
    name = "mobilenet_fp32-onnxruntime-CPU"
    for host in HOSTS:
        [run] = Store(isolated_db).runs(f"{name}@{host}")
        assert run.status == "cancelled" and run.iterations > 0
