"""The store's layout 2: payloads in files beside the document, the migration of a layout-1
database (as the previous version wrote it) with its backup, runs parked in the journal when
the lock stays taken, and concurrent writers in real processes losing nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from perftui.domain.records import LayerProfile
from perftui.store.codec import layers_to_document, samples_to_document
from perftui.store.database import Store
from tests.process_helpers import read_line
from tests.test_store import REPO, make_project, make_run
from tests.test_store_lock import HOLDER, release


def write_layout1(path: Path) -> tuple[np.ndarray, tuple[LayerProfile, ...]]:
    """A database as perftui wrote it before payloads moved out: inline base64 blobs."""
    samples = np.arange(1, 501, dtype=np.float32)
    run = make_run(
        "p",
        id="r1",
        started_at="2025-01-01T00:00:00+00:00",
        resolved={"streams": 2, "environment": {"cpu": "x", "flags": ["avx2"]}},
    )
    assert run.layers
    doc = {**run.to_dict(), "layers": None}
    data = {
        "meta": {"1": {"schema_version": 1, "created_at": "", "generator": "perftui 0.1"}},
        "projects": {"1": make_project("p").to_dict()},
        "runs": {"1": doc},
        "layers": {"1": {"run_id": "r1", **layers_to_document(run.layers)}},
        "samples": {"1": {"run_id": "r1", **samples_to_document(samples)}},
    }
    path.write_text(json.dumps(data))
    return samples, run.layers


def test_a_layout1_database_is_migrated_once_with_a_backup(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    samples, layers = write_layout1(path)
    original = path.read_bytes()
    lines: list[str] = []
    store = Store(path, notify=lines.append)
    (run,) = store.runs("p")
    assert run.layers == layers
    assert run.resolved == {"streams": 2, "environment": {"cpu": "x", "flags": ["avx2"]}}
    assert np.array_equal(store.latency_samples("r1"), samples)
    assert len(lines) == 1 and "layout 2" in lines[0] and "layout1.bak" in lines[0]
    assert (tmp_path / "perftui.json.layout1.bak").read_bytes() == original
    data = json.loads(path.read_text())
    assert data["meta"]["1"]["schema_version"] == 2
    assert list(data["samples"].values()) == [{"run_id": "r1", "count": 500}]
    assert "data" not in json.dumps(data["layers"])
    assert [d["environment"] for d in data["environments"].values()] == [
        run.resolved["environment"]
    ]
    assert "environment" not in data["runs"]["1"]["resolved"]
    lines.clear()
    again = Store(path, notify=lines.append)
    assert again.runs("p")[0].layers == layers and not lines  # once


def test_a_read_only_layout1_database_is_read_in_place(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    samples, layers = write_layout1(path)
    path.chmod(0o444)
    store = Store(path)
    assert store.runs("p")[0].layers == layers
    assert np.array_equal(store.latency_samples("r1"), samples)
    assert not (tmp_path / "perftui.json.layout1.bak").exists()


def test_runs_are_parked_while_the_lock_is_held_and_merged_by_the_next_start(
    tmp_path: Path,
) -> None:
    path = tmp_path / "perftui.json"
    Store(path).ensure_project(make_project("p"))
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path) + ".lock"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert read_line(holder.stdout).strip() == "locked"
        lines: list[str] = []
        store = Store(path, notify=lines.append)
        store.LOCK_TIMEOUT_S = 0.3
        stored = store.add_run(make_run("p"), np.ones(100))
        assert any("kept in" in line for line in lines)
        assert list((tmp_path / "perftui.json.journal").glob("*.json"))
        assert Store(path).get_run(stored.id) is None  # not yet: the lock is still held
    finally:
        release(holder)
    merged = Store(path)
    assert merged.get_run(stored.id) == stored
    assert np.array_equal(merged.latency_samples(stored.id), np.ones(100))
    assert not list((tmp_path / "perftui.json.journal").glob("*.json"))


WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from perftui.domain.records import Project, RunConfig, RunResult
    from perftui.store.database import Store
    store = Store(sys.argv[1])
    store.ensure_project(Project(name="p", model="/m.onnx", engine="openvino"))
    store.LOCK_TIMEOUT_S = 0.05  # impatient: parked runs must be merged, never lost
    for i in range(int(sys.argv[2])):
        run = RunResult(config=RunConfig(batch=i + 1), project="p")
        store.add_run(run, np.full(2000, float(i), dtype=np.float32))
    """
)


def test_eight_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), "6"],
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
    store = Store(path)  # merges what was parked
    runs = store.runs("p")
    assert len(runs) == 48 and len({r.id for r in runs}) == 48
    assert all(store.latency_samples(r.id).size == 2000 for r in runs)
