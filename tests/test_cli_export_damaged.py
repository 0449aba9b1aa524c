"""`perftui export` to stdout writes a whole document or nothing: a run found damaged half
way through the export leaves stdout empty (the refusal is one line on stderr, exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from perftui.store.database import Store
from tests.cli_helpers import one_error_line, perftui
from tests.store_helpers import make_project, make_run, payload_at


def store_with_runs(db: Path, count: int) -> list[str]:
    store = Store(db)
    store.ensure_project(make_project())
    return [
        store.add_run(make_run(started_at=f"2026-01-01T00:00:{i:02d}"), np.ones(50) * i).id
        for i in range(count)
    ]


def test_a_damaged_run_leaves_stdout_empty(tmp_path: Path) -> None:
    db = tmp_path / "db"
    ids = store_with_runs(db, 30)
    payload_at(db, ids[-1]).write_bytes(b"PK not numpy")  # the last run exported
    result = perftui("export", db=db)
    assert "damaged" in one_error_line(result)
    assert result.stdout == ""


def test_a_whole_export_still_reaches_stdout(tmp_path: Path) -> None:
    db = tmp_path / "db"
    store_with_runs(db, 3)
    result = perftui("export", db=db)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert len(document["projects"][0]["runs"]) == 3
