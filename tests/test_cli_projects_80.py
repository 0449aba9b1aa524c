"""`perftui projects` fits the terminal: one line per project at 80 columns, the figures with
their intervals, verdict and configurations kept; every column when printed to a pipe."""

from __future__ import annotations

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


def test_projects_fit_80_columns_one_line_each(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "db"
    store_with_a_long_name(db)
    monkeypatch.setenv("COLUMNS", "80")
    result = perftui("projects", db=db)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2 + 4  # header, dashes, one line per project
    assert max(len(line) for line in lines) <= 80, result.stdout
    header = lines[0].split()
    assert header[:1] == ["project"] and {"fps", "verdict", "at", "ms"} <= set(header)
    resnet = next(line for line in lines if line.startswith("resnet50"))
    assert "…" in resnet.split()[0] and "noisy" in resnet and "b16 t4" in resnet


def test_projects_in_a_pipe_keep_every_column(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "db"
    store_with_a_long_name(db)
    monkeypatch.delenv("COLUMNS", raising=False)
    result = perftui("projects", db=db)
    header = result.stdout.splitlines()[0].split()
    assert {"model", "engine", "device", "runs", "last"} <= set(header)
    assert "resnet50-imagenet-int8-openvino-CPU" in result.stdout
