"""Issue 28: the CSV export carries each run's memory peaks (the timed window's and the
compile's, resident MiB), empty where a run was stored without them; through the CLI."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from perftui.store.database import Store
from tests.cli_helpers import bench_json, perftui
from tests.conftest import MOBILENET
from tests.store_helpers import make_project, make_run


def test_csv_export_has_the_memory_peaks_and_leaves_unknown_ones_empty(tmp_path: Path):
    db = tmp_path / "db.json"
    bench_json(str(MOBILENET), "--project", "measured", "--batch", "1,2", db=db)
    store = Store(db)
    store.add_project(make_project("older"))
    store.add_run(make_run("older"))  # stored before memory was measured
    result = perftui("export", "--format", "csv", db=db)
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    header = result.stdout.splitlines()[0].split(",")
    assert {"dims", "precision_run", "peak_window_mib", "peak_compile_mib"} <= set(header)
    shown = json.loads(perftui("show", "measured", "--json", db=db).stdout)["runs"]
    measured = {row["run_id"]: row for row in rows if row["project"] == "measured"}
    assert len(measured) == 2
    for run in shown:
        row, memory = measured[run["id"]], run["memory"]
        assert float(row["peak_window_mib"]) == round(memory["window_peak_mib"], 1) > 0
        assert float(row["peak_compile_mib"]) == round(memory["compile_peak_mib"], 1) > 0
    (older,) = [row for row in rows if row["project"] == "older"]
    assert older["peak_window_mib"] == older["peak_compile_mib"] == ""  # unknown, never 0
