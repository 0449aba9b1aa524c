"""The layout's partitions: a write rewrites the files of the project and benchmark it
touches alone; concurrent writers in real processes lose nothing, a waiting writer waits; the
index's version tells a reader (the dashboard) that another process wrote."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from perftui.store.database import Store
from tests.store_helpers import REPO, folder, make_project, make_run, part_files


def _bytes(path: Path, project: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in part_files(path, project)}


def test_writes_rewrite_only_the_files_they_touch(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    store = Store(path)
    for name in ("a", "b"):
        store.ensure_project(make_project(name, f"/m/{name}"))
        store.add_run(make_run(name, benchmark_id="old"), np.ones(10))
    before = {name: _bytes(path, name) for name in ("a", "b")}
    store.add_run(make_run("a", throughput_fps=1e6, benchmark_id="new"))
    assert _bytes(path, "b") == before["b"]
    after = _bytes(path, "a")
    assert after["runs-b-old.json"] == before["a"]["runs-b-old.json"]
    assert sorted(after) == ["runs-b-new.json", "runs-b-old.json"]
    (summary,) = [s for p, s in Store(path).summaries() if p.name == "a"]
    assert summary.runs == 2 and summary.best_throughput_fps == 1e6
    moved = folder(path, "a")
    store.rename_project("a", "c")
    assert [r.project for r in Store(path).runs("c")] == ["c", "c"]
    assert folder(path, "c") == moved and _bytes(path, "c") == after


def test_the_version_changes_with_each_write_and_with_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    reader, writer = Store(path), Store(path)
    assert reader.version() is None
    writer.ensure_project(make_project("p"))
    first = reader.version()
    assert first is not None
    reader.projects(), reader.runs("p"), reader.summaries()
    assert reader.version() == first  # a read writes nothing
    writer.add_run(make_run("p"))
    assert reader.version() != first
    assert len(reader.runs("p")) == 1


WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from perftui.domain.records import Project, RunConfig, RunResult
    from perftui.store.database import Store
    store = Store(sys.argv[1])
    store.ensure_project(Project(name="p", model="/m.onnx", engine="openvino"))
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
    runs = store.runs("p")
    assert len(runs) == 48 and len({r.id for r in runs}) == 48
    assert all(store.latency_samples(r.id).size == 2000 for r in runs)


def test_an_append_stats_the_files_of_its_project_in_one_listing(
    tmp_path: Path, monkeypatch
) -> None:
    """The check before the lock lists the project's folder once instead of a stat per run
    file: appending to a project of 60 benchmarks costs no more system calls than to one
    of 2 (issue 39: the append grew with the project)."""
    counts = {}
    calls: list[object] = []
    real = os.lstat
    monkeypatch.setattr(os, "lstat", lambda *a, **k: calls.append(a) or real(*a, **k))
    for benchmarks in (2, 60):
        path = tmp_path / f"{benchmarks}.json"
        store = Store(path)
        store.ensure_project(make_project("p"))
        for n in range(benchmarks):
            store.add_run(make_run("p", benchmark_id=f"b{n}"))
        calls.clear()
        Store(path).add_run(make_run("p", benchmark_id="b0"))
        counts[benchmarks] = len(calls)
    assert counts[60] < counts[2] + 20, counts
