"""`perftui gate --target` and `compare --measure` on a real OpenSSH server on the loopback
address (tests/sshd.py): both sides alternated on the host under one lease, runs stored as the
host's, the lock released after (and on Ctrl-C), bad targets refused before anything is stored."""

from __future__ import annotations

import json
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
from tests.sshd import (
    ALIAS,
    MISSING,
    SSHD,
    Server,
    command_line,
    descendants,
    lock_is_free,
    sshd,
)

pytestmark = pytest.mark.skipif(SSHD is None, reason=MISSING)
SHORT = ["--rounds", "5", "--time", "0.2"]
GATE = ["gate", str(MOBILENET), str(MOBILENET), "--engine", "onnxruntime", "--threads", "1"]
SIDES = (
    "mobilenet_fp32-onnxruntime-CPU-baseline@box",
    "mobilenet_fp32-onnxruntime-CPU-candidate@box",
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with sshd(tmp_path_factory.mktemp("sshd")) as running:
        yield running


@pytest.fixture
def box(server: Server, monkeypatch: pytest.MonkeyPatch) -> str:
    """A target named "box" on the test server, priced, in this test's own targets file."""
    monkeypatch.setenv("PERFTUI_SSH", server.ssh)
    added = perftui("targets", "add", "box", ALIAS, "--python", sys.executable)
    assert added.returncode == 0, added.stderr
    assert perftui("targets", "price", "box", "0.34").returncode == 0
    return "box"


def workers(server: Server) -> list[int]:
    return [p for p in descendants(server.process.pid) if "bench.worker" in command_line(p)]


def test_an_aa_gate_on_a_target_runs_both_sides_there_under_one_lease(
    server: Server, box: str, isolated_db: Path
):
    process = subprocess.Popen(
        [sys.executable, "-m", "perftui", *GATE, *SHORT, "--target", box, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    seen: dict[int, float] = {}  # each worker on the host, when first seen
    free_at: list[float] = []
    try:
        while process.poll() is None:
            now = time.monotonic()
            if lock_is_free(server):
                free_at.append(now)
            for pid in workers(server):
                seen.setdefault(pid, now)
            time.sleep(0.02)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode in (0, 3), err  # A/A: pass, or too few rounds to say
    document = json.loads(out)
    assert document["rounds"] == 5 and document["stored"]
    assert "--target box" in document["command"]
    assert len(seen) >= 2  # fresh workers, round by round, on the host
    first, last = min(seen.values()), max(seen.values())
    assert [t for t in free_at if first < t < last] == []  # held from the first round to the last
    assert lock_is_free(server)  # and released after
    store = Store(isolated_db)
    for name in SIDES:
        project = store.get_project(name)
        assert project is not None and project.target == box
        runs = store.runs(name)
        assert [r.status for r in runs] == ["ok"] * 5
        for run in runs:
            environment = run.resolved["environment"]
            assert environment["target"] == box and environment["price_per_hour"] == 0.34
            assert run.resolved.get("label", "").startswith("gate ")
    # one model, asked for once: one folder on the host
    assert len(list((server.config.parent / "remote-cache" / "perftui" / "models").iterdir())) == 1
    after = perftui("bench", str(MOBILENET), "--engine", "onnxruntime", "--target", box, *QUICK)
    assert after.returncode == 0, after.stderr  # nothing holds the host any more

    # the two projects on the host, measured alternately again there
    measured = perftui("compare", *SIDES, "--measure", "2", "--time", "0.2", "--json")
    assert measured.returncode == 0, measured.stderr
    for name in SIDES:
        runs = Store(isolated_db).runs(name)
        assert len(runs) == 7 and runs[-1].resolved["environment"]["target"] == box
    assert lock_is_free(server)


def test_ctrl_c_stops_the_workers_on_the_host_and_releases_its_lock(server: Server, box: str):
    process = subprocess.Popen(
        [sys.executable, "-m", "perftui", *GATE, "--rounds", "20", "--time", "2", "--target", box],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 120
        while not workers(server) and time.monotonic() < deadline:  # measuring on the host
            time.sleep(0.05)
        assert workers(server), process.stderr
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, err
    deadline = time.monotonic() + 15
    while (workers(server) or not lock_is_free(server)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert workers(server) == [] and lock_is_free(server)


def test_a_bad_target_is_one_line_and_stores_nothing(box: str, isolated_db: Path):
    line = one_error_line(perftui(*GATE, *SHORT, "--target", "nowhere"))
    assert "no target named 'nowhere'" in line and "box" in line
    local = perftui("bench", str(MOBILENET), "--engine", "onnxruntime", "--project", "here", *QUICK)
    assert local.returncode == 0, local.stderr
    line = one_error_line(perftui("gate", "here", str(MOBILENET), *SHORT, "--target", box))
    assert "--target: here is measured on this machine, not on target 'box'" in line
    assert "pairs must share a machine" in line
    store = Store(isolated_db)
    assert [p.name for p in store.projects()] == ["here"] and len(store.runs("here")) == 1
