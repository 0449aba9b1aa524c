"""`perftui projects` fits the terminal: one line per project at 80 columns, the figures with
their intervals, verdict and configurations kept; every column when printed to a pipe,
whatever COLUMNS says."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

from perftui.domain.records import Project
from perftui.store.database import Store
from tests.cli_helpers import perftui
from tests.tui.conftest import fill_store, make_run


def store_with_a_long_name(db: Path) -> None:
    fill_store(db)
    store = Store(db)
    store.add_project(
        Project("resnet50-imagenet-int8-openvino-CPU", "/m/resnet50_int8.xml", "openvino")
    )
    store.add_run(make_run("resnet50-imagenet-int8-openvino-CPU", 16, 4, 2345.6, 9))


def in_a_terminal(db: Path, columns: int) -> str:
    """What `perftui projects` prints to a terminal `columns` wide (a pseudo-terminal)."""
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PERFTUI_DB"] = str(db)
    child = subprocess.Popen(
        [sys.executable, "-m", "perftui", "projects"], stdout=side, stderr=side, env=env
    )
    os.close(side)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert child.wait(timeout=120) == 0
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_projects_fit_80_columns_one_line_each(tmp_path: Path) -> None:
    db = tmp_path / "db"
    store_with_a_long_name(db)
    lines = in_a_terminal(db, 80).splitlines()
    assert len(lines) == 2 + 4  # header, dashes, one line per project
    assert max(len(line) for line in lines) <= 80, lines
    header = lines[0].split()
    assert header[:1] == ["project"] and {"fps", "verdict", "at", "ms"} <= set(header)
    resnet = next(line for line in lines if line.startswith("resnet50"))
    assert "…" in resnet.split()[0] and "noisy" in resnet and "b16 t4" in resnet


def test_projects_in_a_pipe_keep_every_column(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "db"
    store_with_a_long_name(db)
    monkeypatch.setenv("COLUMNS", "80")  # as pytest-xdist's workers have it: a pipe still
    result = perftui("projects", db=db)
    header = result.stdout.splitlines()[0].split()
    assert {"model", "engine", "device", "runs", "last"} <= set(header)
    assert "resnet50-imagenet-int8-openvino-CPU" in result.stdout
