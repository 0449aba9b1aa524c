"""The store's layout 4: runs in a shard file per project and payloads in files beside the
document, the migration of layout-1 and layout-2 databases (as earlier versions wrote them)
with a backup, runs parked in the journal when the lock stays taken, and concurrent writers
in real processes losing nothing."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.records import LayerProfile
from perftui.store.codec import layers_blob, samples_blob, samples_to_document
from perftui.store.database import Store
from tests.process_helpers import read_line
from tests.store_helpers import (
    REPO,
    make_project,
    make_run,
    read_json,
    shard_bytes,
    shard_paths,
    store_with_project,
    stored_tables,
)
from tests.test_store_lock import HOLDER, release


def inline_layers(layers: tuple[LayerProfile, ...]) -> dict:
    """A profile as layout 1 kept it in the document."""
    data = base64.b64encode(layers_blob([layer.to_dict() for layer in layers])).decode("ascii")
    return {"codec": "json+zlib+base64", "count": len(layers), "data": data}


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
        "layers": {"1": {"run_id": "r1", **inline_layers(run.layers)}},
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
    assert not lines and path.read_bytes() == original  # a read migrates nothing
    store.add_project(make_project("other", "/m/other"))
    assert store.runs("p") == [run]
    assert len(lines) == 1 and "layout 7" in lines[0] and "layout1.bak" in lines[0]
    assert (tmp_path / "perftui.json.layout1.bak").read_bytes() == original
    data = read_json(path)
    assert data["meta"]["1"]["schema_version"] == 7
    assert not {"runs", "layers", "samples"} & set(data)
    assert stored_tables(path)["samples"] == {"r1": 500}
    assert [d["environment"] for d in data["environments"].values()] == [
        run.resolved["environment"]
    ]
    assert "environment" not in stored_tables(path)["runs"]["r1"]["resolved"]
    lines.clear()
    again = Store(path, notify=lines.append)
    assert again.runs("p")[0].layers == layers and not lines  # once


def write_layout2(path: Path) -> dict[str, np.ndarray]:
    """A database as perftui wrote it before runs moved to shards: every run in the document,
    payload files beside it, environments by digest; the samples by run id."""
    folder = path.with_name(path.name + ".d")
    env = {"id": "e1", "environment": {"cpu": "x"}}
    data: dict = {
        "meta": {"1": {"schema_version": 2, "created_at": "", "generator": "perftui 0.2"}},
        "projects": {"1": make_project("p").to_dict(), "2": make_project("q", "/m/q").to_dict()},
        "environments": {"1": env},
        "runs": {},
        "layers": {},
        "samples": {},
    }
    samples = {}
    for n, (project, run_id) in enumerate((("p", "r1"), ("p", "r2"), ("q", "r3")), start=1):
        run = make_run(project, id=run_id, started_at=f"2025-01-0{n}T00:00:00+00:00")
        assert run.layers
        samples[run_id] = np.full(50, float(n), dtype=np.float32)
        data["runs"][str(n)] = {**run.to_dict(), "layers": None, "environment": "e1"}
        data["layers"][str(n)] = {"run_id": run_id, "count": len(run.layers)}
        data["samples"][str(n)] = {"run_id": run_id, "count": 50}
        for kind, blob in (
            ("layers", layers_blob([layer.to_dict() for layer in run.layers])),
            ("samples", samples_blob(samples[run_id])[0]),
        ):
            (folder / kind).mkdir(parents=True, exist_ok=True)
            suffix = ".json.z" if kind == "layers" else ".f32.z"
            (folder / kind / f"{run_id}{suffix}").write_bytes(blob)
    path.write_text(json.dumps(data))
    return samples


def test_a_layout2_database_is_migrated_once_with_a_backup(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    samples = write_layout2(path)
    original = path.read_bytes()
    lines: list[str] = []
    store = Store(path, notify=lines.append)
    assert [r.id for r in store.runs("p")] == ["r2", "r1"]
    assert store.runs("q")[0].resolved["environment"] == {"cpu": "x"}
    assert store.runs("q")[0].layers == make_run().layers
    assert all(np.array_equal(store.latency_samples(i), s) for i, s in samples.items())
    assert not lines and path.read_bytes() == original  # a read migrates nothing
    store.add_project(make_project("other", "/m/other"))
    assert [r.id for r in store.runs("p")] == ["r2", "r1"]
    assert all(np.array_equal(store.latency_samples(i), s) for i, s in samples.items())
    assert len(lines) == 1 and "layout 7" in lines[0] and "layout2.bak" in lines[0]
    assert (tmp_path / "perftui.json.layout2.bak").read_bytes() == original
    data = read_json(path)
    assert data["meta"]["1"]["schema_version"] == 7
    assert not {"runs", "layers", "samples"} & set(data)
    assert sorted(shard_paths(path)) == ["p", "q"]
    summaries = dict((p.name, s) for p, s in store.summaries())
    assert summaries["p"].runs == 2 and summaries["q"].runs == 1
    assert set(store.precisions()) == {"p", "q"}
    lines.clear()
    Store(path, notify=lines.append).add_run(make_run("q"))
    assert not lines and len(Store(path).runs("q")) == 2  # migrated once


def test_writes_rewrite_only_the_shards_they_touch(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    store = Store(path)
    for name in ("a", "b"):
        store.ensure_project(make_project(name, f"/m/{name}"))
        store.add_run(make_run(name), np.ones(10))
    before = shard_bytes(path)
    store.add_run(make_run("a", throughput_fps=1e6, benchmark_id="new"))
    after = shard_bytes(path)
    assert after["b"] == before["b"] and after["a"] != before["a"]
    (summary,) = [s for p, s in Store(path).summaries() if p.name == "a"]
    assert summary.runs == 2 and summary.best_throughput_fps == 1e6
    store.rename_project("a", "c")
    assert [r.project for r in Store(path).runs("c")] == ["c", "c"]
    assert sorted(shard_paths(path)) == ["b", "c"]


def test_a_read_only_layout1_database_is_read_in_place(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    samples, layers = write_layout1(path)
    path.chmod(0o444)
    store = Store(path)
    assert store.runs("p")[0].layers == layers
    assert np.array_equal(store.latency_samples("r1"), samples)
    assert not (tmp_path / "perftui.json.layout1.bak").exists()


def test_runs_are_parked_while_the_lock_is_held_and_merged_by_the_next_write(
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
    assert Store(path).get_run(stored.id) is None  # a read merges nothing
    merged = Store(path)
    merged.add_project(make_project("q", "/m/q"))  # the next write does
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
    store = Store(path)
    store.add_project(make_project("q", "/m/q"))  # the next write merges what was parked
    runs = store.runs("p")
    assert len(runs) == 48 and len({r.id for r in runs}) == 48
    assert all(store.latency_samples(r.id).size == 2000 for r in runs)


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"runs": [1]}'])
def test_a_parked_entry_that_does_not_decode_is_left_for_a_person(
    tmp_path: Path, text: str
) -> None:
    path, store = store_with_project(tmp_path)
    journal = path.with_name(path.name + ".journal")
    journal.mkdir()
    (journal / f"{'a' * 32}.json").write_text(text)
    store.add_project(make_project("q", "/m/q"))  # the write goes on
    assert os.listdir(journal) == [f"{'a' * 32}.json"]
    assert [p.name for p in Store(path).projects()] == ["p", "q"]
