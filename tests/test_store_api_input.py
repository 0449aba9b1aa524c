"""What a caller hands the store's API is checked before anything is written: run and
benchmark ids of the form the store names things by, project names by the one name rule,
a benchmark's project; and an export refuses an unknown project before writing a byte,
leaves an older file whole when it fails, and writes no cell a spreadsheet would run."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import threading
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import InputError
from perftui.domain.records import BenchmarkRequest, RunConfig
from perftui.exchange.documents import export_csv
from perftui.store.database import Store
from tests.cli_helpers import one_error_line, perftui
from tests.store_helpers import build, make_project, make_run, tree


@pytest.mark.parametrize(
    "fields",
    [
        {"id": "../../outside/victim"},
        {"id": "a b"},
        {"id": "x" * 65},
        {"benchmark_id": "bé"},
        {"benchmark_id": ["x"]},
        {"benchmark_id": None},
    ],
)
def test_a_run_whose_ids_the_store_cannot_keep_is_refused(tmp_path: Path, fields: dict) -> None:
    path = build(tmp_path)
    before = tree(tmp_path)
    with pytest.raises(InputError, match=r"is 1-64 letters, digits, '_' or '-', not") as info:
        Store(path).add_run(make_run("A", **fields), np.ones(5, np.float32))
    assert "\n" not in str(info.value)
    assert tree(tmp_path) == before and len(Store(path).runs("A")) == 3


@pytest.mark.parametrize("name", ["old\x1b[2Jname", "a\u202eb", "x" * 300])
def test_project_names_follow_the_one_rule_in_the_store(tmp_path: Path, name: str) -> None:
    path = build(tmp_path)
    before = tree(tmp_path)
    with pytest.raises(InputError):
        Store(path).ensure_project(make_project(name))
    with pytest.raises(InputError):
        Store(path).rename_project("B", name)
    assert tree(tmp_path) == before


def test_a_benchmark_of_a_project_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    path = build(tmp_path)
    before = tree(tmp_path)
    request = BenchmarkRequest(project=make_project("Zed"), configs=(RunConfig(),))
    with pytest.raises(InputError, match="no project named 'Zed'"):
        Store(path).add_benchmark(request)
    after = tree(tmp_path)
    for found in (before, after):
        del found["db/db.json.lock"]  # taken, and let go
    assert after == before


def test_an_export_of_an_unknown_project_writes_nothing(tmp_path: Path) -> None:
    path = build(tmp_path)
    kept = tmp_path / "kept.json"
    kept.write_text("an older export")
    done = perftui("--db", str(path), "export", "--project", "nope", "-o", str(kept))
    assert "no project named 'nope'" in one_error_line(done)
    assert kept.read_text() == "an older export" and done.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db", "kept.json", "outside"]
    done = perftui("--db", str(path), "export", "--project", "nope")
    assert "no project named 'nope'" in one_error_line(done) and done.stdout == ""


def test_an_export_to_a_pipe_or_a_link_is_written_through_them(tmp_path: Path) -> None:
    """What is not a regular file (a pipe, a link, /dev/null) is written in place, as a
    shell's redirection would: replaced by a renamed file, /dev/null became a plain file."""
    path = build(tmp_path)
    real = tmp_path / "real.json"
    real.write_text("an older export")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert perftui("--db", str(path), "export", "-o", str(link)).returncode == 0
    assert link.is_symlink() and json.loads(real.read_text())["projects"]
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    read: list[bytes] = []
    reader = threading.Thread(target=lambda: read.append(pipe.read_bytes()), daemon=True)
    reader.start()
    assert perftui("--db", str(path), "export", "-o", str(pipe)).returncode == 0
    reader.join(30)
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode) and json.loads(read[0])["projects"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary left


def test_csv_cells_are_never_formulas(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.json")
    store.ensure_project(make_project("=HYPERLINK(x)"))
    store.add_run(make_run("=HYPERLINK(x)", status="failed", error="-cmd|' /C calc'!A0"))
    rows = list(csv.reader(io.StringIO(export_csv(store))))
    cells = [cell for row in rows[1:] for cell in row]
    assert "'=HYPERLINK(x)" in cells and "'-cmd|' /C calc'!A0" in cells
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "@")]
