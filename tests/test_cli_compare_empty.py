"""Issue 25, item 9: `perftui compare A B` where B has no successful run compared nothing and
still exited 0. It is refused: exit 2 and one line that says what to do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.tui.conftest import fill_store


def test_compare_with_a_side_without_runs_exits_2(tmp_path: Path):
    db = tmp_path / "c.json"
    fill_store(db)  # "empty-project" has no run
    done = subprocess.run(
        [sys.executable, "-m", "perftui", "compare", "net-fp32", "empty-project", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "B (empty-project) has no successful run" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
