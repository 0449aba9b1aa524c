"""Issue 26 item 3: a worker dies with the process that started it (an optimize worker ran on
for 8 minutes after its CLI was killed). Real processes: a parent that starts the real worker
module with the real environment, then is killed with SIGKILL (nothing of it can clean up)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from perftui.bench.client import spawn_piped
from perftui.processes import PARENT_ENV
from tests.process_helpers import process_gone, read_line, reading_stdin, wait_until

PARENT = (
    "import os, subprocess, sys, time\n"
    "from perftui.processes import child_env\n"
    "stdin = int(sys.argv[1])\n"  # held open by the test: the worker waits on it forever
    "child = subprocess.Popen([sys.executable, *sys.argv[2:]], stdin=stdin, env=child_env(),\n"
    "                         stdout=subprocess.DEVNULL, start_new_session=True)\n"
    "print(child.pid, flush=True)\n"
    "time.sleep(120)\n"
)


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process_gone(pid):
            return True
        time.sleep(0.05)
    return process_gone(pid)


@pytest.mark.parametrize(
    "worker",
    [
        ["-m", "perftui.bench.worker"],
        ["-m", "perftui.tune.worker"],
        ["-m", "perftui.optimize.worker", "db.json", "work"],
        ["-c", "from perftui.processes import die_with_parent as d; d(); input()"],
    ],
)
def test_a_worker_dies_within_a_second_of_its_parent(worker: list[str]):
    read_end, write_end = os.pipe()
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(read_end), *worker],
        stdout=subprocess.PIPE,
        text=True,
        pass_fds=(read_end,),
    )
    os.close(read_end)
    child = 0
    try:
        assert parent.stdout is not None
        child = int(read_line(parent.stdout, 30))
        wait_until(lambda: reading_stdin(child), 60, "the worker did not wait for its request")
        assert not process_gone(child), "the worker ended before its parent did"
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert _gone_within(child, 1.0), "the worker outlived its parent by a second"
    finally:
        os.close(write_end)
        if child and not process_gone(child):
            os.kill(child, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_workers_are_started_with_the_parents_pid():
    process = spawn_piped([sys.executable, "-c", f"import os; print(os.environ['{PARENT_ENV}'])"])
    out, _ = process.communicate(timeout=30)
    assert out.strip() == str(os.getpid())


def test_a_worker_whose_parent_is_already_gone_ends_at_once():
    env = {**os.environ, PARENT_ENV: "1" if os.getppid() != 1 else "2"}
    code = "from perftui.processes import die_with_parent as d; d(); print('ran on')"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 1 and "ran on" not in done.stdout
