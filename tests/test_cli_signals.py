"""The second Ctrl-C of `perftui bench`: when the worker does not stop on the first one (an
engine stuck in a long native call), Ctrl-C again kills it at once.

Real processes: the CLI's own `main()`, and the real benchmark worker measuring a real model.
The only change is that this worker ignores SIGTERM (the first Ctrl-C's request to stop), as
a worker inside a native call that never returns to Python would; it writes its pid to a
file so the test can check it is gone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import perftui
from tests.conftest import ROOT
from tests.failing_model import odd_batches_fail
from tests.process_helpers import process_gone, progress_line, read_until

pytestmark = pytest.mark.engine

STUBBORN_WORKER = (
    "import os, signal\n"
    "from pathlib import Path\n"
    "from perftui.bench import worker\n"
    "Path(os.environ['PERFTUI_TEST_WORKER_PID']).write_text(str(os.getpid()))\n"
    "install = signal.signal\n"
    "def ignore_sigterm(signum, handler):\n"
    "    return install(signum, signal.SIG_IGN if signum == signal.SIGTERM else handler)\n"
    "signal.signal = ignore_sigterm\n"
    "worker.main()\n"
)

CLI = (
    "import sys\n"
    "from perftui.bench.client import BenchmarkClient\n"
    "BenchmarkClient.worker_command = (sys.executable, '-c', sys.argv.pop(1))\n"
    "from perftui.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def test_a_second_ctrl_c_kills_a_worker_that_does_not_stop(tmp_path: Path):
    db, pid_file = tmp_path / "db.json", tmp_path / "worker.pid"
    # run 1 fails at once (an odd batch cannot be reshaped): its line on stderr says the
    # handlers are in place; run 2 would measure for 10 minutes
    model = odd_batches_fail(tmp_path)
    args = ["bench", str(model), "--engine", "onnxruntime", "--batch", "1,2"]
    args += ["--time", "600", "--iterations", "5", "--project", "k", "--db", str(db)]
    process = subprocess.Popen(
        [sys.executable, "-c", CLI, STUBBORN_WORKER, *args],
        cwd=ROOT,
        env={**os.environ, "PERFTUI_TEST_WORKER_PID": str(pid_file)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    try:
        first = progress_line(process.stderr)
        assert first.startswith("run 1/2") and "failed" in first, first
        worker = int(pid_file.read_text())
        process.send_signal(signal.SIGINT)
        # the note comes with the next event the worker sends: the first Ctrl-C was handled,
        # and the worker goes on measuring (it ignored the request to stop)
        read_until(process.stderr, "Ctrl-C again to stop at once")
        assert not process_gone(worker) and process.poll() is None
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert process_gone(worker)
    runs = json.loads(perftui("show", "k", "--json", db=db).stdout)["runs"]
    by_batch = {r["config"]["batch"]: r for r in runs}
    assert by_batch[1]["status"] == "failed"
    killed = by_batch[2]
    # killed mid-measurement: stored as cancelled, its partial measurement lost with the worker
    assert killed["status"] == "cancelled" and killed["iterations"] == 0, killed


def test_one_ctrl_c_lets_a_working_worker_finish_its_run_as_cancelled(tmp_path: Path):
    # the contrast: the real worker stops on the first Ctrl-C and keeps what it measured
    db = tmp_path / "db.json"
    model = odd_batches_fail(tmp_path)
    args = ["bench", str(model), "--engine", "onnxruntime", "--batch", "1,2"]
    args += ["--time", "600", "--iterations", "5", "--project", "k", "--db", str(db)]
    process = subprocess.Popen(
        [sys.executable, "-m", "perftui", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    assert progress_line(process.stderr).startswith("run 1/2")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Ctrl-C again to stop at once" in err
    runs = json.loads(perftui("show", "k", "--json", db=db).stdout)["runs"]
    assert sorted(r["status"] for r in runs) == ["cancelled", "failed"]
