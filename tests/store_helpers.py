"""Records and readers of the store's files, for the store tests (the `store` fixture is in
conftest.py)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path

import numpy as np

from perftui.domain.records import (
    LatencyStats,
    LayerProfile,
    Project,
    RunConfig,
    RunResult,
)
from perftui.store.database import Store
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
    """A shard file's runs, samples and layers counts by run id (written back with
    `json.dumps`, these tables are a shard file as layout 3 wrote it; with `write_shard`, one
    of this version)."""
    shard = Shard.parse(path.read_bytes())
    return {"runs": shard.runs, **shard.counts}


def write_shard(path: Path, tables: dict[str, dict]) -> None:
    """Write `read_shard`'s tables back as a shard file of this version."""
    path.write_bytes(Shard(tables["runs"], tables["samples"], tables["layers"]).blob())


def stored_tables(path: Path) -> dict[str, dict]:
    """Every shard's runs, samples and layers counts by run id, merged."""
    merged: dict[str, dict] = {"runs": {}, "samples": {}, "layers": {}}
    for shard in shard_paths(path).values():
        data = read_shard(shard)
        for name, table in merged.items():
            table.update(data[name])
    return merged


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
    store.ensure_project(make_project("A", str(MODEL), engine="openvino", device="CPU"))
    store.ensure_project(make_project("B", "/m/b.onnx"))
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


def run_id_outside(path: Path) -> None:
    """A run of A whose id leads to a file outside."""
    _, found = entry(path, "A")
    shard = folder(path, "runs") / found["file"]
    lines = shard.read_bytes().splitlines(keepends=True)
    item = json.loads(lines[1])
    item["run"]["id"] = "../../../outside/victim"
    lines[1] = json.dumps(item).encode() + b"\n"
    shard.write_bytes(b"".join(lines))


PLANTED = {"run": {"id": "x1", "project": "A", "config": {}, "throughput_fps": 777777.0}}


def file_outside(path: Path, where: str) -> None:
    """A's entry naming a planted file outside: `where` is absolute, relative (its file),
    tail or figures."""
    planted = path.parents[1] / "outside" / "planted.json"
    planted.write_text('{"perftui_shard":2}\n' + json.dumps(PLANTED) + "\n")
    data, found = entry(path, "A")
    name = str(planted) if where == "absolute" else "../../../outside/planted.json"
    if where == "tail":
        found["tail"] = [name]
    elif where == "figures":
        found["figures"] = name
    else:
        found["file"] = name
    path.write_text(json.dumps(data))


def link_lock(path: Path) -> Path:
    """The lock file made a link to a file outside; that file."""
    target = path.parents[1] / "outside" / "notes.txt"
    path.with_name(path.name + ".lock").unlink()
    path.with_name(path.name + ".lock").symlink_to(target)
    return target
