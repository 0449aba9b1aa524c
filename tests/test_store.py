"""The results database: round trips, project rules, cascades, damage, atomicity, concurrency."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import InputError, StoreError
from perftui.domain.records import (
    BenchmarkRequest,
    Budget,
    LatencyStats,
    LayerProfile,
    Project,
    RunConfig,
    RunResult,
)
from perftui.store.codec import samples_from_document, samples_to_document
from perftui.store.database import Store
from perftui.store.paths import default_db_path
from perftui.store.shards import Shard
from tests.process_helpers import read_line

REPO = Path(__file__).resolve().parents[1]


def make_project(name: str = "resnet-fp32", model: str = "/models/resnet.onnx", **kw) -> Project:
    return Project(name=name, model=model, engine=kw.pop("engine", "onnxruntime"), **kw)


def make_run(project: str = "resnet-fp32", *, started_at: str = "", **kw) -> RunResult:
    layers = kw.pop(
        "layers",
        (
            LayerProfile("conv1", "Convolution", "jit_avx2_I8", "I8", "executed", 0.25, ("c1",)),
            LayerProfile("relu1", "Relu", "undef", "FP32", "not_run", 0.0),
        ),
    )
    return RunResult(
        config=kw.pop(
            "config",
            RunConfig(
                batch=4, threads=2, streams=2, requests="auto", hint="throughput", api="async"
            ),
        ),
        status=kw.pop("status", "ok"),
        error=kw.pop("error", None),
        iterations=kw.pop("iterations", 120),
        duration_s=10.5,
        throughput_fps=kw.pop("throughput_fps", 456.5),
        first_inference_ms=3.25,
        compile_ms=120.5,
        read_ms=12.0,
        latency_ms=kw.pop(
            "latency_ms",
            LatencyStats(
                min=1.0, mean=2.0, median=1.9, p90=2.5, p99=3.5, max=4.0, stdev=0.3, cv=0.15
            ),
        ),
        layers=layers,
        resolved=kw.pop(
            "resolved",
            {"streams": 2, "requests": 4, "threads": 2, "shapes": {"x": [4, 3, 8, 8]}},
        ),
        project=project,
        benchmark_id=kw.pop("benchmark_id", ""),
        started_at=started_at,
        id=kw.pop("id", ""),
    )


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "data" / "perftui.json")


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def shard_paths(path: Path) -> dict[str, Path]:
    """Project name -> the shard file that holds its runs."""
    folder = path.with_name(path.name + ".d") / "runs"
    return {e["project"]: folder / e["file"] for e in read_json(path)["shards"].values()}


def shard_bytes(path: Path) -> dict[str, bytes]:
    """Project name -> its shard file and the segments appended since, as one."""
    folder = path.with_name(path.name + ".d") / "runs"
    return {
        e["project"]: b"".join((folder / n).read_bytes() for n in [e["file"], *e.get("tail", [])])
        for e in read_json(path)["shards"].values()
    }


def read_shard(path: Path) -> dict[str, dict]:
    """A shard file's runs, samples and layers counts by run id (written back with
    `json.dumps`, these tables are a shard file as an earlier version wrote it)."""
    shard = Shard.parse(path.read_bytes())
    return {"runs": shard.runs, **shard.counts}


def stored_tables(path: Path) -> dict[str, dict]:
    """Every shard's runs, samples and layers counts by run id, merged."""
    merged: dict[str, dict] = {"runs": {}, "samples": {}, "layers": {}}
    for shard in shard_paths(path).values():
        data = read_shard(shard)
        for name, table in merged.items():
            table.update(data[name])
    return merged


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
    assert meta[0]["schema_version"] == Store.SCHEMA_VERSION == 4


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
    # the run lives in its project's shard, layers and samples in files of their own
    data = stored_tables(store.path)
    assert next(iter(data["runs"].values()))["layers"] is None
    assert data["layers"] == {stored.id: len(run.layers)}
    assert data["samples"] == {stored.id: 5000}
    assert "runs" not in read_json(store.path)
    assert (store.path.parent / "perftui.json.d" / "samples" / f"{stored.id}.f32.z").is_file()


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
    data = stored_tables(store.path)
    assert len(data["runs"]) == len(data["layers"]) == len(data["samples"]) == 1
    assert list(shard_paths(store.path)) == ["b"]
    with pytest.raises(InputError):
        store.delete_project("a")


def test_delete_run(store: Store) -> None:
    store.ensure_project(make_project())
    a, b = store.add_run(make_run(), np.ones(2)), store.add_run(make_run(), np.ones(2))
    store.delete_run(a.id)
    assert [r.id for r in store.runs("resnet-fp32")] == [b.id]
    assert store.latency_samples(a.id) is None and store.latency_samples(b.id) is not None
    assert len(stored_tables(store.path)["layers"]) == 1
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
    assert read_json(store.path)["benchmarks"]["1"] == stored.to_dict()
    later = store.add_benchmark(replace(request, seed=7))
    assert store.last_benchmark(project.name).id == later
    assert store.last_benchmark("ghost") is None and store.project_benchmarks("ghost") == []


def test_malformed_rows_are_clear_errors(store: Store) -> None:
    project = store.ensure_project(make_project())
    good = store.add_benchmark(BenchmarkRequest(project=project, configs=(RunConfig(),)))
    bad = store.add_benchmark(BenchmarkRequest(project=project, configs=(RunConfig(),)))
    run = store.add_run(make_run(layers=None))
    data = read_json(store.path)
    for doc in data["benchmarks"].values():
        if doc["id"] == bad:
            del doc["configs"]
    store.path.write_text(json.dumps(data))
    shard = shard_paths(store.path)[project.name]
    runs = read_shard(shard)
    runs["runs"][run.id]["latency_ms"] = {"mean": "fast"}
    shard.write_text(json.dumps(runs))
    fresh = Store(store.path)
    assert fresh.get_benchmark(good).id == good
    with pytest.raises(StoreError, match=f"benchmark {bad} is malformed .KeyError"):
        fresh.last_benchmark(project.name)
    with pytest.raises(StoreError, match=f"benchmark {bad} is malformed"):
        fresh.project_benchmarks(project.name)
    with pytest.raises(StoreError, match=f"run {run.id} is malformed .ValueError"):
        fresh.get_run(run.id)


def test_summaries(store: Store) -> None:
    store.ensure_project(make_project("a"))
    store.ensure_project(make_project("b", model="/m/b.onnx"))
    store.add_run(make_run("a", throughput_fps=10.0, started_at="2025-01-01T00:00:00+00:00"))
    store.add_run(make_run("a", throughput_fps=30.0, started_at="2025-02-01T00:00:00+00:00"))
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


def test_file_is_plain_tinydb_json(store: Store) -> None:
    """Another tool (or TinyDB itself) can read the file."""
    from tinydb import TinyDB

    store.ensure_project(make_project())
    run = store.add_run(make_run(), np.ones(3))
    with TinyDB(store.path, access_mode="r") as db:
        assert db.table("projects").all()[0]["name"] == "resnet-fp32"
        assert db.table("shards").all()[0]["count"] == 1
        assert run.id in Store(store.path).runs("resnet-fp32")[0].id


# ----------------------------------------------------------------------------- damage


def test_damaged_blobs_are_store_errors(store: Store) -> None:
    store.ensure_project(make_project())
    run = store.add_run(make_run(), np.ones(3))
    folder = store.path.with_name(store.path.name + ".d")
    (folder / "layers" / f"{run.id}.json.z").write_bytes(b"AAAA")
    (folder / "samples" / f"{run.id}.f32.z").write_bytes(b"AAAA")
    fresh = Store(store.path)
    with pytest.raises(StoreError, match=f"damaged \\(layers of run {run.id}"):
        fresh.get_run(run.id)
    with pytest.raises(StoreError, match=f"damaged \\(samples of run {run.id}"):
        fresh.latency_samples(run.id)


def test_damaged_file_is_reported_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    path.write_bytes(b"{not json")
    store = Store(path)
    with pytest.raises(StoreError) as info:
        store.projects()
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"database {path} is damaged (")
    assert "it was left untouched — move it aside or use --db PATH" in message
    for action in (
        lambda: store.ensure_project(make_project()),
        lambda: store.add_project(make_project()),
        lambda: store.delete_project("x"),
        lambda: store.runs("x"),
        store.check,
    ):
        with pytest.raises(StoreError, match="damaged"):
            action()
    assert path.read_bytes() == b"{not json"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["perftui.json", "perftui.json.lock"]


@pytest.mark.parametrize(
    "content",
    [b"[1, 2]", b'{"runs": [1]}', b'{"runs": {"1": 5}}', b"\xff\xfe{}"],
)
def test_wrong_structure_is_damaged(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "db.json"
    path.write_bytes(content)
    with pytest.raises(StoreError, match="damaged"):
        Store(path).projects()
    assert path.read_bytes() == content


def test_foreign_json_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    path.write_text('{"_default": {"1": {"x": 1}}}')
    with pytest.raises(StoreError, match="not a perftui database"):
        Store(path).ensure_project(make_project())
    assert read_json(path) == {"_default": {"1": {"x": 1}}}


def test_empty_file_counts_as_empty_database(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    path.write_bytes(b"")
    store = Store(path)
    assert store.projects() == []
    store.ensure_project(make_project())
    assert Store(path).get_project("resnet-fp32") is not None


def test_directory_as_path(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with pytest.raises(StoreError, match="is a directory") as info:
        store.projects()
    assert "\n" not in str(info.value)
    with pytest.raises(StoreError, match="is a directory"):
        store.ensure_project(make_project())
    assert not (tmp_path.parent / f"{tmp_path.name}.lock").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a chmod 000 file")
def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    Store(path).ensure_project(make_project())
    before = path.read_bytes()
    path.chmod(0)
    try:
        with pytest.raises(StoreError, match="cannot be read") as info:
            Store(path).projects()
        assert "\n" not in str(info.value)
        with pytest.raises(StoreError):
            Store(path).ensure_project(make_project("other"))
    finally:
        path.chmod(0o644)
    assert path.read_bytes() == before


UNREADABLE = textwrap.dedent(
    """
    import sys
    from perftui.domain.errors import StoreError
    from perftui.domain.records import Project
    from perftui.store.database import Store
    for action in ("read", "write"):
        store = Store(sys.argv[1])
        try:
            store.projects() if action == "read" else store.add_project(
                Project(name="other", model="/m.onnx", engine="openvino")
            )
        except StoreError as error:
            print(error)
    """
)


DROP_FILE_CAPS = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search")


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv"
)
def test_unreadable_file_as_root_without_file_capabilities(tmp_path: Path) -> None:
    """Root reads anything; drop CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH to see chmod 000."""
    path = tmp_path / "db.json"
    Store(path).ensure_project(make_project())
    before = path.read_bytes()
    path.chmod(0)
    try:
        result = subprocess.run(
            [*DROP_FILE_CAPS, sys.executable, "-c", UNREADABLE, str(path)],
            env={**os.environ, "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        path.chmod(0o644)
    if result.returncode != 0 and "setpriv" in result.stderr:
        pytest.skip(f"setpriv cannot drop capabilities here: {result.stderr.strip()}")
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stderr
    assert len(lines) == 2 and all("cannot be read (permission denied)" in x for x in lines)
    assert path.read_bytes() == before


def test_permission_denied_is_one_line(tmp_path: Path, monkeypatch) -> None:
    """The same path as chmod 000, simulated so that it also runs as root."""
    path = tmp_path / "db.json"
    Store(path).ensure_project(make_project())
    real_open = os.open

    def denied(file, flags, *args, **kwargs):
        if Path(file) == path:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    with pytest.raises(StoreError, match="cannot be read \\(permission denied\\)") as info:
        Store(path).projects()
    assert "\n" not in str(info.value) and "--db PATH" in str(info.value)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    content = json.dumps({"meta": {"1": {"schema_version": 5}}, "projects": {}})
    path.write_text(content)
    with pytest.raises(StoreError, match=r"newer perftui \(schema 5") as info:
        Store(path).projects()
    assert "\n" not in str(info.value)
    with pytest.raises(StoreError, match="newer"):
        Store(path).add_project(make_project())
    assert path.read_text() == content


# ----------------------------------------------------------------------------- atomicity


def test_failed_replace_leaves_original_intact(store: Store, monkeypatch) -> None:
    store.ensure_project(make_project())
    before = store.path.read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(StoreError, match="No space left on device") as info:
        store.add_run(make_run(), np.ones(100))
    assert "\n" not in str(info.value)
    monkeypatch.undo()
    assert store.path.read_bytes() == before
    files = [p.name for p in store.path.parent.rglob("*") if p.is_file()]
    assert sorted(files) == ["perftui.json", "perftui.json.lock"]
    assert Store(store.path).runs("resnet-fp32") == []
    assert store.runs("resnet-fp32") == []  # the cache was not updated either


def test_failed_fsync_leaves_original_intact(store: Store, monkeypatch) -> None:
    store.ensure_project(make_project())
    before = store.path.read_bytes()

    def broken_fsync(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(StoreError, match="Input/output error"):
        store.delete_project("resnet-fp32")
    monkeypatch.undo()
    assert store.path.read_bytes() == before
    assert len(list(store.path.parent.iterdir())) == 2


def test_mode_of_existing_file_is_kept(store: Store) -> None:
    store.ensure_project(make_project())
    store.path.chmod(0o600)
    store.add_run(make_run())
    assert store.path.stat().st_mode & 0o777 == 0o600


def test_symlinked_database_stays_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real" / "perftui.json"
    Store(real).ensure_project(make_project())
    link = tmp_path / "link.json"
    link.symlink_to(real)
    Store(link).add_run(make_run())
    assert link.is_symlink() and len(Store(real).runs("resnet-fp32")) == 1


WRITER = textwrap.dedent(
    """
    import sys, numpy as np
    from perftui.domain.records import Project, RunConfig, RunResult
    from perftui.store.database import Store
    path, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = Store(path)
    store.ensure_project(Project(name="p", model="/m.onnx", engine="openvino"))
    print("ready", flush=True)
    samples = np.random.default_rng(0).random(int(sys.argv[4]), dtype=np.float32)
    for i in range(count):
        store.add_run(
            RunResult(config=RunConfig(batch=i + 1), project="p", resolved={"tag": tag}),
            samples,
        )
    """
)


def _spawn_writer(path: Path, tag: str, count: int, samples: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), tag, str(count), str(samples)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_writing_at_once(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    procs = [_spawn_writer(path, tag, 50, 200) for tag in ("a", "b")]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    data = read_json(path)  # valid JSON
    runs = Store(path).runs("p")
    assert len(runs) == 100 and len({r.id for r in runs}) == 100
    for tag in ("a", "b"):
        batches = sorted(r.config.batch for r in runs if r.resolved["tag"] == tag)
        assert batches == list(range(1, 51))
    assert len(stored_tables(path)["samples"]) == 100 and len(data["projects"]) == 1
    assert all(Store(path).latency_samples(r.id).size == 200 for r in runs[:5])


STALLER = textwrap.dedent(
    """
    import os, sys, time
    from perftui.domain.records import Project, RunConfig, RunResult
    from perftui.store.database import Store

    real_fdopen = os.fdopen

    class HalfWriter:
        # writes half of the new database file, then waits to be killed

        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, payload):
            self.handle.write(payload[: len(payload) // 2])
            self.handle.flush()
            print("stalled", flush=True)
            time.sleep(60)

    def fdopen(fd, mode="r", *args, **kwargs):
        handle = real_fdopen(fd, mode, *args, **kwargs)
        return HalfWriter(handle) if "w" in mode else handle

    store = Store(sys.argv[1])
    store.ensure_project(Project(name="p", model="/m.onnx", engine="openvino"))
    for i in range(3):
        store.add_run(RunResult(config=RunConfig(batch=i + 1), project="p"), [1.0] * 1000)
    os.fdopen = fdopen
    store.add_run(RunResult(config=RunConfig(batch=99), project="p"), [2.0] * 1000)
    """
)


def test_kill_mid_write_never_leaves_a_half_file(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    proc = subprocess.Popen(
        [sys.executable, "-c", STALLER, str(path)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert read_line(proc.stdout).strip() == "stalled"
        before = path.read_bytes()
        (temp,) = [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
        assert temp.stat().st_size > 0  # the half-written payload of the new version
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert path.read_bytes() == before
    read_json(path)  # whole
    store = Store(path)
    assert sorted(r.config.batch for r in store.runs("p")) == [1, 2, 3]  # start-up tidies
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
    store.add_run(make_run("p"))
    assert len(Store(path).runs("p")) == 4


def test_random_kills_leave_a_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    rng = np.random.default_rng(7)
    for _ in range(2):
        proc = _spawn_writer(path, "k", 10_000, 50_000)
        assert read_line(proc.stdout).strip() == "ready"
        time.sleep(float(rng.uniform(0.05, 0.3)))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        read_json(path)
        assert Store(path).get_project("p") is not None
