"""Payloads in pack files: one per project and write, read where the shard lines say, retired
when no run uses them any more, and a killed write's packs removed by the next write unless
its document was committed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from perftui.store import recovery
from perftui.store.database import Store
from tests.store_helpers import (
    inlined_benchmarks,
    make_project,
    make_run,
    payload_at,
    read_json,
    store_with_project,
)


def packs(path: Path) -> set[str]:
    return {p.name for p in (path.with_name(path.name + ".d") / "packs").glob("*.pack")}


def retired(path: Path) -> set[str]:
    return {
        d["name"] for d in read_json(path).get("retired", {}).values() if d["folder"] == "packs"
    }


def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write from now on runs after the grace period."""
    now = time.time() + recovery.GRACE_S + 1
    monkeypatch.setattr(recovery.time, "time", lambda: now)


def test_a_write_puts_its_runs_payloads_in_one_pack_per_project(tmp_path: Path) -> None:
    path, store = store_with_project(tmp_path)
    store.ensure_project(make_project("q", "/m/q"))
    runs = store.add_runs([(make_run(name), np.ones(9)) for name in ("p", "p", "q")])
    assert len(packs(path)) == 2
    assert payload_at(path, runs[0].id)[0] == payload_at(path, runs[1].id)[0]
    assert all(np.array_equal(Store(path).latency_samples(r.id), np.ones(9)) for r in runs)


def test_a_pack_is_retired_once_no_run_uses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store = store_with_project(tmp_path)
    first, second = store.add_runs([(make_run("p"), np.ones(9)), (make_run("p"), np.ones(9))])
    third = store.add_run(make_run("p"), np.ones(9))
    (shared,), (own,) = {payload_at(path, first.id)[0].name}, {payload_at(path, third.id)[0].name}
    store.delete_run(first.id)  # its pack still holds the second run's payloads
    assert retired(path) == set() and packs(path) == {shared, own}
    store.delete_run(second.id)
    assert retired(path) == {shared} and packs(path) == {shared, own}  # a reader may need it
    later(monkeypatch)
    Store(path).add_project(make_project("q", "/m/q"))
    assert packs(path) == {own} and retired(path) == set()
    assert np.array_equal(Store(path).latency_samples(third.id), np.ones(9))


def test_a_renamed_project_keeps_its_packs_and_a_deleted_one_retires_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store = store_with_project(tmp_path)
    run = store.add_run(make_run("p"), np.ones(9))
    store.rename_project("p", "renamed")
    assert retired(path) == set()
    assert np.array_equal(Store(path).latency_samples(run.id), np.ones(9))
    store.delete_project("renamed")
    assert retired(path) == packs(path) and len(packs(path)) == 1
    later(monkeypatch)
    Store(path).add_project(make_project("q", "/m/q"))
    assert packs(path) == set()


@pytest.mark.parametrize("committed", [False, True])
def test_a_killed_writes_packs_go_unless_its_document_was_committed(
    tmp_path: Path, committed: bool
) -> None:
    path, store = store_with_project(tmp_path)
    run = store.add_run(make_run("p"), np.ones(9))
    folder = tmp_path / "perftui.json.d"
    (pack,) = packs(path)
    token = pack[:16] if committed else "0123456789abcdef"
    (folder / "pending").write_text(json.dumps({"token": token}))  # killed before clearing
    left = folder / "packs" / f"{token}{'9' * 16}.pack"
    left.write_bytes(b"half")
    Store(path).add_project(make_project("q", "/m/q"))
    assert left.exists() == committed and (folder / "packs" / pack).exists()
    assert not (folder / "pending").exists()
    assert np.array_equal(Store(path).latency_samples(run.id), np.ones(9))


def test_a_run_s_write_neither_reads_nor_writes_the_benchmarks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perftui.domain.records import BenchmarkRequest, RunConfig
    from perftui.store import benchmark_file

    path, store = store_with_project(tmp_path)
    project = store.get_project("p")
    first = store.add_benchmark(BenchmarkRequest(project=project, configs=(RunConfig(),)))
    named = read_json(path)["benchmark_file"]

    def unread(*args: object) -> None:
        raise AssertionError("a run's write read the benchmarks")

    monkeypatch.setattr(benchmark_file, "read", unread)
    Store(path).add_run(make_run("p", benchmark_id=first), np.ones(9))
    monkeypatch.undo()
    assert read_json(path)["benchmark_file"] == named
    second = Store(path).add_benchmark(BenchmarkRequest(project=project, configs=(RunConfig(),)))
    assert [b.id for b in Store(path).project_benchmarks("p")] == [first, second]
    assert read_json(path)["benchmark_file"] != named  # a new file; the old one retired
    assert "benchmarks" not in read_json(path)


def test_a_layout5_database_s_benchmarks_move_to_their_file_with_the_next_write(
    tmp_path: Path,
) -> None:
    from perftui.domain.records import BenchmarkRequest, RunConfig

    path, store = store_with_project(tmp_path)
    project = store.get_project("p")
    ids = [store.add_benchmark(BenchmarkRequest(project=project, configs=(RunConfig(),)))]
    ids.append(store.add_benchmark(BenchmarkRequest(project=project, configs=(RunConfig(),))))
    run = store.add_run(make_run("p", benchmark_id=ids[0]), np.ones(9))
    data = inlined_benchmarks(path)
    data["meta"]["1"]["schema_version"] = 5
    path.write_text(json.dumps(data))
    original = path.read_bytes()
    old = Store(path)
    assert [b.id for b in old.project_benchmarks("p")] == ids and old.get_run(run.id) == run
    assert path.read_bytes() == original  # a read moves nothing
    lines: list[str] = []
    Store(path, notify=lines.append).add_project(make_project("q", "/m/q"))
    assert len(lines) == 1 and "layout 7" in lines[0] and "layout5.bak" in lines[0]
    assert "benchmarks" not in read_json(path) and read_json(path)["benchmark_file"]
    fresh = Store(path)
    assert [b.id for b in fresh.project_benchmarks("p")] == ids and fresh.get_run(run.id) == run
