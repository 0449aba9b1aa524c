"""Records and readers of the store's files, for the store tests (the `store` fixture is in
conftest.py)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import numpy as np

from perftui.domain.records import (
    BenchmarkRequest,
    LatencyStats,
    LayerProfile,
    Project,
    RunConfig,
    RunResult,
)
from perftui.store import recovery
from perftui.store.database import Store
from perftui.store.files import signature
from perftui.store.legacy import OLD_SUFFIX
from perftui.store.payloads import KINDS, Payloads, Ref, checked_ref
from perftui.store.shards import Shard

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


def entries_inlined(path: Path) -> dict:
    """The document with each project's figures in its entry instead of a figures file, as
    entries were written before."""
    data = read_json(path)
    folder = path.with_name(path.name + ".d") / "figures"
    for entry in data["shards"].values():
        entry.update(json.loads((folder / entry.pop("figures")).read_bytes()))
    return data


def write_as_before(path: Path, data: dict) -> None:
    """Write `data` (from `entries_inlined`) as the document, without the figures files the
    previous version did not write."""
    path.write_text(json.dumps(data))
    for stale in (path.with_name(path.name + ".d") / "figures").glob("*"):
        stale.unlink()


def read_shard(path: Path) -> dict[str, dict]:
    """A shard file's runs, and where each run's samples and layers are ([count, pack, at,
    size]) by run id."""
    shard = Shard.parse(path.read_bytes())
    refs = {kind: {i: list(ref) for i, ref in table.items()} for kind, table in shard.refs.items()}
    return {"runs": shard.runs, **refs}


def write_shard(path: Path, tables: dict[str, dict]) -> None:
    """Write `read_shard`'s tables back as a shard file of this version."""
    refs = {kind: {i: checked_ref(v) for i, v in tables[kind].items()} for kind in KINDS}
    path.write_bytes(Shard(tables["runs"], refs).blob())


def stored_tables(path: Path) -> dict[str, dict]:
    """Every shard's runs, and the count of each run's samples and layers, merged."""
    merged: dict[str, dict] = {"runs": {}, "samples": {}, "layers": {}}
    for raw in shard_bytes(path).values():
        shard = Shard.parse(raw)
        merged["runs"].update(shard.runs)
        for kind in KINDS:
            merged[kind].update({i: ref.count for i, ref in shard.refs[kind].items()})
    return merged


def payload_at(path: Path, run_id: str, kind: str = "samples") -> tuple[Path, Ref]:
    """The pack file holding a run's payload of `kind`, and where in it."""
    for raw in shard_bytes(path).values():
        ref = Shard.parse(raw).refs[kind].get(run_id)
        if ref is not None:
            return path.with_name(path.name + ".d") / "packs" / ref.pack, ref
    raise KeyError(run_id)


def damage_payload(path: Path, run_id: str, kind: str = "samples", data: bytes = b"") -> None:
    """Overwrite a run's payload in its pack with `data` (default: as many zero bytes)."""
    pack, ref = payload_at(path, run_id, kind)
    raw = bytearray(pack.read_bytes())
    raw[ref.at : ref.at + ref.size] = (data or bytes(ref.size))[: ref.size].ljust(ref.size, b"\0")
    pack.write_bytes(bytes(raw))


def benchmarks_file(path: Path) -> Path:
    """The file of the database's benchmarks (perftui.store.benchmark_file)."""
    (doc,) = read_json(path)["benchmark_file"].values()
    return path.with_name(path.name + ".d") / "benchmarks" / doc["name"]


def inlined_benchmarks(path: Path) -> dict:
    """The document with the benchmarks in its `benchmarks` table, as layouts 1-5 kept
    them (their file removed)."""
    root = path.with_name(path.name + ".d")
    data = read_json(path)
    for doc in data.pop("benchmark_file", {}).values():
        found = json.loads((root / "benchmarks" / doc["name"]).read_text())["benchmarks"]
        data["benchmarks"] = {str(n): bench for n, bench in enumerate(found, 1)}
        (root / "benchmarks" / doc["name"]).unlink()
    return data


def as_layout6(path: Path, **meta: object) -> bytes:
    """Rewrite the database's document as layout 6 kept it (projects and entries keyed by
    counters), with `meta` in its meta record; its bytes."""
    data = read_json(path)
    old = {
        **{name: table for name, table in data.items() if name not in ("projects", "shards")},
        "meta": {"1": {**data["meta"]["1"], "schema_version": 6, **meta}},
        "projects": {str(i): doc for i, doc in enumerate(data["projects"].values(), 1)},
        "shards": {str(i): doc for i, doc in enumerate(data["shards"].values(), 1)},
    }
    path.write_text(json.dumps(old))
    return path.read_bytes()


def as_layout4(path: Path) -> dict[str, dict]:
    """Rewrite the database as layout 4 kept it: shards of JSON lines with payload counts
    (``{"perftui_shard":2}``), a payload file per run, no packs; every run's counts by kind."""
    root = path.with_name(path.name + ".d")
    data = inlined_benchmarks(path)
    data["meta"]["1"]["schema_version"] = 4
    counts: dict[str, dict] = {"samples": {}, "layers": {}}
    for entry in data["shards"].values():
        names = [entry["file"], *entry.pop("tail", [])]
        raw = b"".join((root / "runs" / name).read_bytes() for name in names)
        shard = Shard.parse(raw)
        lines = []
        for run_id, doc in shard.runs.items():
            item = {"run": doc}
            for kind, ref in shard.refs_of(run_id).items():
                blob = (root / "packs" / ref.pack).read_bytes()[ref.at : ref.at + ref.size]
                (root / kind).mkdir(exist_ok=True)
                (root / kind / (run_id + OLD_SUFFIX[kind])).write_bytes(blob)
                item[kind] = counts[kind][run_id] = ref.count
            lines.append(json.dumps(item) + "\n")
        (root / "runs" / entry["file"]).write_text('{"perftui_shard":2}\n' + "".join(lines))
        for name in names[1:]:
            (root / "runs" / name).unlink()
        entry["tail"] = []
    shutil.rmtree(root / "packs", ignore_errors=True)
    path.write_text(json.dumps(data))
    return counts


def store_with_project(tmp_path: Path, name: str = "p") -> tuple[Path, Store]:
    """A new database in `tmp_path` (its path and a Store on it) holding project `name`."""
    path = tmp_path / "perftui.json"
    store = Store(path)
    store.ensure_project(make_project(name))
    return path, store


# ---------------------------------------------------------------- tampering (issue 23)
# shared with benchmarks/faults.py

MODEL = REPO / "sample_models" / "mobilenet_fp32.onnx"


def build(tmp_path: Path) -> Path:
    """A database of projects A (the sample model on OpenVINO/CPU) and B, three runs each
    with samples and layers; a sibling folder `outside` of files older than any grace
    period."""
    path = tmp_path / "db" / "db.json"
    store = Store(path)
    a = store.ensure_project(make_project("A", str(MODEL), engine="openvino", device="CPU"))
    store.ensure_project(make_project("B", "/m/b.onnx"))
    store.add_benchmark(BenchmarkRequest(project=a, configs=(RunConfig(),)))
    for name in ("A", "B"):
        for i in range(3):
            store.add_run(make_run(name, throughput_fps=100.0 + i), np.ones(50, np.float32))
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("victim.f32.z", "victim.json.z", "notes.txt", f"{'f' * 32}.json"):
        (outside / name).write_bytes(b"keep me")
        os.utime(outside / name, (0, 0))
    return path


def tree(root: Path) -> dict[str, tuple]:
    """Every path under `root` (links not followed) with its kind and content."""
    found: dict[str, tuple] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            st = os.lstat(path)
            key = str(path.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                found[key] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                found[key] = ("dir",)
            else:
                found[key] = ("file", hashlib.sha256(path.read_bytes()).hexdigest(), st.st_mtime_ns)
    return found


def folder(path: Path, name: str = "") -> Path:
    root = path.with_name(path.name + ".d")
    return root / name if name else root


def entry(path: Path, project: str) -> tuple[dict, dict]:
    data = read_json(path)
    (found,) = [e for e in data["shards"].values() if e["project"] == project]
    return data, found


def empty(path: Path) -> None:
    path.write_bytes(b"")


def braces(path: Path) -> None:
    path.write_text("{}")


def no_shards_table(path: Path) -> None:
    data = read_json(path)
    del data["shards"]
    path.write_text(json.dumps(data))


def older_copy(path: Path) -> None:
    older = path.read_bytes()
    Store(path).add_run(make_run("A"), np.ones(50, np.float32))  # a newer segment
    path.write_bytes(older)  # a backup restored beside the newer folder


def missing_shard(path: Path) -> None:
    _, found = entry(path, "A")
    (folder(path, "runs") / found["file"]).unlink()


def redirected_shard(path: Path) -> None:
    data, found = entry(path, "A")
    found["file"] = "../../../outside/" + "f" * 32 + ".json"
    path.write_text(json.dumps(data))


def folder_is_a_file(path: Path) -> None:
    shutil.rmtree(folder(path))
    folder(path).write_text("not a folder")


def link_folder(path: Path, name: str) -> None:
    """The folder `name` of the database's folder moved outside, a link left in its place."""
    moved = path.parents[1] / "outside" / name
    shutil.move(folder(path, name), moved)
    folder(path, name).symlink_to(moved)


def run_id_outside(path: Path, what: str = "id") -> None:
    """A run of A whose id (or whose samples' pack: `what` "pack") leads to a file outside."""
    _, found = entry(path, "A")
    shard = folder(path, "runs") / found["file"]
    lines = shard.read_bytes().splitlines(keepends=True)
    item = json.loads(lines[1])
    if what == "pack":
        item["samples"][1] = "../../../outside/victim.f32.z"
    else:
        item["run"]["id"] = "../../../outside/victim"
    lines[1] = json.dumps(item).encode() + b"\n"
    shard.write_bytes(b"".join(lines))


PLANTED = {"run": {"id": "x1", "project": "A", "config": {}, "throughput_fps": 777777.0}}


def file_outside(path: Path, where: str) -> None:
    """A's entry naming a planted file outside: `where` is absolute, relative (its file),
    tail or figures."""
    planted = path.parents[1] / "outside" / "planted.json"
    planted.write_text('{"perftui_shard":3}\n' + json.dumps(PLANTED) + "\n")
    data, found = entry(path, "A")
    name = str(planted) if where == "absolute" else "../../../outside/planted.json"
    if where == "tail":
        found["tail"] = [name]
    elif where == "figures":
        found["figures"] = name
    else:
        found["file"] = name
    path.write_text(json.dumps(data))


def restamp(path: Path) -> None:
    """The folders' stamp made to match the document as it is, as if a write had left them:
    the stamp trusted, a read checks only the names it uses."""
    document = recovery.document_identity(signature(os.stat(path)), path.read_bytes())
    recovery.record_stamp(Payloads(Path(os.path.realpath(path))), document)


def restamped(damage: Callable[[Path], object]) -> Callable[[Path], Callable[[Path], None]]:
    """`damage`, then `restamp` to be called once the files' times are set."""

    def apply(path: Path) -> Callable[[Path], None]:
        damage(path)
        return restamp

    return apply


def link_lock(path: Path) -> Path:
    """The lock file made a link to a file outside; that file."""
    target = path.parents[1] / "outside" / "notes.txt"
    path.with_name(path.name + ".lock").unlink()
    path.with_name(path.name + ".lock").symlink_to(target)
    return target
