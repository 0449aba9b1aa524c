"""The results database: round trips, project rules, cascades, concurrent readers and writers."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import InputError, StoreError
from perftui.domain.records import (
    BenchmarkRequest,
    Budget,
    RunConfig,
)
from perftui.store.codec import samples_from_document, samples_to_document
from perftui.store.database import Store
from perftui.store.layout import LAYOUT
from perftui.store.paths import default_db_path
from tests.store_helpers import folder, make_project, make_run, part_files, read_json

# ----------------------------------------------------------------------------- basics


def test_default_db_path_honours_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PERFTUI_DB", str(tmp_path / "x.json"))
    assert default_db_path() == tmp_path / "x.json"
    monkeypatch.delenv("PERFTUI_DB")
    path = default_db_path()
    assert path.name == "perftui.json" and "perftui" in path.parent.parts[-1]


def test_no_file_until_first_write_then_parents_and_meta(store: Store) -> None:
    assert store.projects() == [] and store.summaries() == []
    assert store.runs("nope") == [] and store.get_run("x") is None
    assert store.latency_samples("x") is None and store.get_benchmark("x") is None
    assert not store.path.exists() and not store.path.parent.exists()
    store.ensure_project(make_project())
    assert store.path.is_file()
    meta = list(read_json(store.path)["meta"].values())
    assert meta[0]["layout"] == LAYOUT == 8


def test_run_round_trip_every_field(store: Store) -> None:
    store.ensure_project(make_project())
    samples = np.random.default_rng(1).gamma(2.0, 1.0, 5000).astype(np.float32)
    run = make_run(benchmark_id="b1", started_at="2025-01-02T03:04:05+00:00")
    stored = store.add_run(run, samples)
    assert len(stored.id) == 32 and int(stored.id, 16) >= 0
    assert stored == replace(run, id=stored.id)
    # a fresh Store reads the file, not the cache
    again = Store(store.path)
    got = again.get_run(stored.id)
    assert got == stored
    assert got.layers == run.layers and got.layers[0].original_names == ("c1",)
    assert got.resolved == run.resolved and got.latency_ms == run.latency_ms
    assert again.runs("resnet-fp32") == [stored]
    back = again.latency_samples(stored.id)
    assert back.dtype == np.float32 and np.array_equal(back, samples)
    # the run lives in its benchmark's file, layers and samples in a numpy file of its own
    (part,) = part_files(store.path, "resnet-fp32")
    (doc,) = read_json(part)["runs"].values()
    assert doc["run"]["layers"] is None and part.name == "runs-b-b1.json"
    assert (doc["layers"], doc["samples"]) == (len(run.layers), 5000)
    with np.load(part.parent / "payloads" / f"{stored.id}.npz", allow_pickle=False) as npz:
        assert np.array_equal(npz["samples"], samples)


def test_run_without_layers_latency_or_samples(store: Store) -> None:
    store.ensure_project(make_project())
    failed = make_run(status="failed", error="boom", layers=None, latency_ms=None, resolved={})
    stored = store.add_run(failed)
    got = Store(store.path).get_run(stored.id)
    assert got.layers is None and got.latency_ms is None and got.error == "boom"
    assert store.latency_samples(stored.id) is None
    empty_layers = store.add_run(make_run(layers=()))
    assert Store(store.path).get_run(empty_layers.id).layers == ()


def test_add_run_defaults_and_numpy_values(store: Store) -> None:
    store.ensure_project(make_project())
    run = make_run(resolved={"streams": np.int64(3), "ratio": np.float32(0.5), "a": np.arange(2)})
    stored = store.add_run(run, [1.0, 2.0])
    assert stored.started_at.endswith("+00:00")
    got = Store(store.path).get_run(stored.id)
    assert got.resolved == {"streams": 3, "ratio": 0.5, "a": [0, 1]}
    assert type(got.resolved["streams"]) is int


def test_add_run_needs_existing_project_and_unique_id(store: Store) -> None:
    with pytest.raises(InputError, match="no project named 'ghost'"):
        store.add_run(make_run("ghost"))
    with pytest.raises(InputError, match="name its project"):
        store.add_run(make_run(""))
    store.ensure_project(make_project())
    stored = store.add_run(make_run())
    with pytest.raises(InputError, match="already stored"):
        store.add_run(stored)


def test_runs_newest_first(store: Store) -> None:
    store.ensure_project(make_project())
    stamps = ["2025-01-02T00:00:00+00:00", "2025-03-01T00:00:00Z", "2024-12-31T23:59:59+00:00"]
    ids = {s: store.add_run(make_run(started_at=s)).id for s in stamps}
    same = [store.add_run(make_run(started_at="2025-05-05T00:00:00+00:00")).id for _ in range(3)]
    order = [r.id for r in Store(store.path).runs("resnet-fp32")]
    assert order == [*reversed(same), ids[stamps[1]], ids[stamps[0]], ids[stamps[2]]]


def test_add_runs_is_one_write_all_or_nothing(store: Store) -> None:
    store.ensure_project(make_project())
    stored = store.add_runs([(make_run(), None), (make_run(), np.ones(3))])
    assert len(store.runs("resnet-fp32")) == 2 and all(r.id for r in stored)
    before = store.path.read_bytes()
    with pytest.raises(InputError):
        store.add_runs([(make_run(), None), (make_run("ghost"), None)])
    assert store.path.read_bytes() == before


def test_samples_codec_round_trip() -> None:
    arr = np.linspace(0.1, 9.9, 1001, dtype=np.float32)
    doc = samples_to_document(arr)
    assert doc["count"] == 1001 and np.array_equal(samples_from_document(doc), arr)
    assert samples_from_document(samples_to_document([])).size == 0
    with pytest.raises(ValueError):
        samples_from_document({**doc, "data": "!!!"})
    with pytest.raises(ValueError):
        samples_from_document({**doc, "count": 3})


# ----------------------------------------------------------------------------- projects


def test_ensure_project_rules(store: Store, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    created = store.ensure_project(make_project(model="m.onnx"))
    assert created.model == str(tmp_path / "m.onnx")  # stored absolute
    assert created.created_at.endswith("+00:00")
    # same name, same target (relative vs absolute path) -> the stored one, no write
    mtime = store.path.stat().st_mtime_ns
    again = store.ensure_project(make_project(model=str(tmp_path / "m.onnx")))
    assert again == created and store.path.stat().st_mtime_ns == mtime
    assert store.ensure_project(make_project(model="./m.onnx", device="cpu")) == created
    with pytest.raises(InputError, match=r"already uses model .*m\.onnx on onnxruntime/CPU"):
        store.ensure_project(make_project(model="other.onnx"))
    with pytest.raises(InputError, match="choose another --project name"):
        store.ensure_project(make_project(model="m.onnx", engine="openvino"))
    with pytest.raises(InputError):
        store.ensure_project(make_project(model="m.onnx", device="GPU"))
    kept = make_project("p2", created_at="2020-01-01T00:00:00+00:00", notes={"k": 1})
    assert store.ensure_project(kept).created_at == "2020-01-01T00:00:00+00:00"
    assert Store(store.path).get_project("p2").notes == {"k": 1}
    assert [p.name for p in store.projects()] == ["p2", "resnet-fp32"]
    with pytest.raises(InputError):
        store.ensure_project(make_project(" "))


def test_add_project_rejects_existing_name(store: Store) -> None:
    store.add_project(make_project())
    with pytest.raises(InputError, match="already exists"):
        store.add_project(make_project())


def test_rename_project_moves_runs_and_benchmarks(store: Store) -> None:
    project = store.ensure_project(make_project())
    store.ensure_project(make_project("int8", source_project="resnet-fp32"))
    bid = store.add_benchmark(BenchmarkRequest(project=project, configs=(RunConfig(),)))
    run = store.add_run(make_run(benchmark_id=bid), np.ones(4))
    with pytest.raises(InputError, match="already exists"):
        store.rename_project("resnet-fp32", "int8")
    with pytest.raises(InputError, match="no project named 'ghost'"):
        store.rename_project("ghost", "x")
    store.rename_project("resnet-fp32", "fp32")
    fresh = Store(store.path)
    assert fresh.get_project("resnet-fp32") is None
    assert fresh.get_project("fp32").model == project.model
    assert fresh.get_project("int8").source_project == "fp32"
    assert fresh.runs("resnet-fp32") == []
    assert [r.id for r in fresh.runs("fp32")] == [run.id]
    assert fresh.get_run(run.id).project == "fp32"
    assert fresh.latency_samples(run.id) is not None
    bench = fresh.get_benchmark(bid)
    assert bench.project_name == "fp32" and bench.request.project.name == "fp32"
    assert [b.id for b in fresh.project_benchmarks("fp32")] == [bid]


def test_delete_project_cascades(store: Store) -> None:
    a = store.ensure_project(make_project("a"))
    store.ensure_project(make_project("b", model="/m/b.onnx"))
    bid = store.add_benchmark(BenchmarkRequest(project=a, configs=(RunConfig(),)))
    gone = [store.add_run(make_run("a"), np.ones(3)).id for _ in range(3)]
    kept = store.add_run(make_run("b"), np.ones(3))
    store.delete_project("a")
    fresh = Store(store.path)
    assert [p.name for p in fresh.projects()] == ["b"]
    assert all(fresh.get_run(i) is None and fresh.latency_samples(i) is None for i in gone)
    assert fresh.get_benchmark(bid) is None
    assert fresh.get_run(kept.id) == kept
    assert [p.name for p in (store.path.parent / "perftui.json.projects").iterdir()] == [
        folder(store.path, "b").name
    ]
    with pytest.raises(InputError):
        store.delete_project("a")


def test_delete_run(store: Store) -> None:
    store.ensure_project(make_project())
    a, b = store.add_run(make_run(), np.ones(2)), store.add_run(make_run(), np.ones(2))
    store.delete_run(a.id)
    assert [r.id for r in store.runs("resnet-fp32")] == [b.id]
    assert store.latency_samples(a.id) is None and store.latency_samples(b.id) is not None
    payloads = folder(store.path, "resnet-fp32").glob("payloads/*.npz")
    assert [p.name for p in payloads] == [f"{b.id}.npz"]
    with pytest.raises(InputError, match="no run"):
        store.delete_run(a.id)


def test_benchmark_round_trip(store: Store) -> None:
    project = store.ensure_project(make_project())
    request = BenchmarkRequest(
        project=project,
        configs=(RunConfig(batch=1), RunConfig(batch=4, streams=2, precision="bf16")),
        budget=Budget(time_s=2.0, iterations=50, warmup=3, profile_iterations=7),
        shapes={"x": (1, 3, 8, 8)},
        profile=True,
        seed=42,
    )
    bid = store.add_benchmark(request)
    stored = Store(store.path).get_benchmark(bid)
    assert stored.id == bid and stored.project_name == project.name and stored.created_at
    assert stored.request == request
    assert [b.id for b in store.project_benchmarks(project.name)] == [bid]
    found = read_json(folder(store.path, project.name) / "benchmarks.json")["benchmarks"]
    assert list(found.values()) == [stored.to_dict()]
    later = store.add_benchmark(replace(request, seed=7))
    assert store.last_benchmark(project.name).id == later
    assert store.last_benchmark("ghost") is None and store.project_benchmarks("ghost") == []


def test_malformed_rows_are_clear_errors(store: Store) -> None:
    project = store.ensure_project(make_project())
    good = store.add_benchmark(BenchmarkRequest(project=project, configs=(RunConfig(),)))
    bad = store.add_benchmark(BenchmarkRequest(project=project, configs=(RunConfig(),)))
    run = store.add_run(make_run(layers=None))
    file = folder(store.path, project.name) / "benchmarks.json"
    data = json.loads(file.read_text())
    for doc in data["benchmarks"].values():
        if doc["id"] == bad:
            del doc["configs"]
    file.write_text(json.dumps(data))
    part = part_files(store.path, project.name)[0]
    runs = json.loads(part.read_text())
    next(iter(runs["runs"].values()))["run"]["latency_ms"] = {"mean": "fast"}
    part.write_text(json.dumps(runs))
    fresh = Store(store.path)
    with pytest.raises(StoreError, match=r"benchmarks\.json of project 'resnet-fp32' holds a"):
        fresh.get_benchmark(good)
    with pytest.raises(StoreError, match=r"holds a malformed benchmark \('configs'\)"):
        fresh.last_benchmark(project.name)
    with pytest.raises(StoreError, match=f"run {run.id} of project 'resnet-fp32' is malformed"):
        fresh.get_run(run.id)


def test_summaries(store: Store) -> None:
    store.ensure_project(make_project("a"))
    store.ensure_project(make_project("b", model="/m/b.onnx"))
    one, two = RunConfig(batch=1), RunConfig(batch=2)
    store.add_run(make_run("a", throughput_fps=10.0, config=one, benchmark_id="b1"))
    store.add_run(make_run("a", throughput_fps=30.0, config=two, benchmark_id="b1"))
    store.add_run(make_run("a", status="failed", throughput_fps=99.0, latency_ms=None))
    result = dict((p.name, s) for p, s in Store(store.path).summaries())
    assert result["a"].runs == 3 and result["a"].ok_runs == 2
    assert result["a"].best_throughput_fps == 30.0 and result["a"].best_latency_ms == 1.9
    assert result["b"].runs == 0 and result["b"].best_throughput_fps is None


def test_reads_see_other_writers(store: Store) -> None:
    store.ensure_project(make_project())
    other = Store(store.path)
    assert other.runs("resnet-fp32") == []
    run = store.add_run(make_run())
    assert [r.id for r in other.runs("resnet-fp32")] == [run.id]


def test_interleaved_writers_never_write_from_a_stale_copy(store: Store) -> None:
    store.ensure_project(make_project())
    a, b = Store(store.path), Store(store.path)
    ids = [a.add_run(make_run()).id, b.add_run(make_run()).id, a.add_run(make_run()).id]
    b.delete_run(ids[0])
    a.ensure_project(make_project("q", model="/m/q.onnx"))
    fresh = Store(store.path)
    assert {r.id for r in fresh.runs("resnet-fp32")} == set(ids[1:])
    assert fresh.get_project("q") is not None
    assert {r.id for r in a.runs("resnet-fp32")} == set(ids[1:])


def test_threads_sharing_one_store(store: Store) -> None:
    import threading

    store.ensure_project(make_project())
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(15):
                store.add_run(make_run(), np.ones(10))
                store.runs("resnet-fp32")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)  # each write waits at most LOCK_TIMEOUT_S for the lock
    assert not any(t.is_alive() for t in threads)
    assert not errors
    assert len(Store(store.path).runs("resnet-fp32")) == 45


def test_every_file_is_tinydb_and_names_no_user_text(store: Store) -> None:
    """Another tool reads each file with TinyDB; a project's folder is named by an id, and a
    run's file by its run id, never by a name a user typed."""
    from tinydb import Query, TinyDB

    store.ensure_project(make_project("a/../../b c"))
    run = store.add_run(make_run("a/../../b c", benchmark_id="b1"), np.ones(3))
    with TinyDB(store.path, access_mode="r") as index:
        doc = index.table("projects").get(Query().name == "a/../../b c")
    assert doc["parts"] == {"runs-b-b1.json": 1} and len(doc["folder"]) == 32
    part = part_files(store.path, "a/../../b c")[0]
    with TinyDB(part, access_mode="r") as runs:
        assert runs.table("runs").get(Query().id == run.id)["samples"] == 3
    names = sorted(p.name for p in part.parent.iterdir())
    assert names == ["heads.json", "payloads", "runs-b-b1.json"]
    assert [p.name for p in part.parent.glob("payloads/*")] == [f"{run.id}.npz"]
