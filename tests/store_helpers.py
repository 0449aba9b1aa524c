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
from perftui.store.database import Store
from perftui.store.layout import projects_root
from tests.factories import run_result

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
    return run_result(
        kw.pop("throughput_fps", 456.5),
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


def entry(path: Path, project: str) -> dict:
    """The project's document in the index."""
    return next(d for d in read_json(path)["projects"].values() if d["name"] == project)


def folder(path: Path, project: str) -> Path:
    """The project's folder."""
    return projects_root(path) / entry(path, project)["folder"]


def part_files(path: Path, project: str) -> list[Path]:
    return sorted(folder(path, project).glob("runs-*.json"))


def payload_at(path: Path, run_id: str) -> Path:
    """The run's .npz."""
    return next(projects_root(path).glob(f"*/payloads/{run_id}.npz"))


def edit_index(path: Path, change: Callable[[dict], object]) -> None:
    """Change the index's parsed tables in place and write them back."""
    data = read_json(path)
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


# ---------------------------------------------------------------- tampering, each a damage a
# command refuses (shared with benchmarks/faults.py and the dashboard's tests)


def empty(path: Path) -> None:
    path.write_bytes(b"")


def braces(path: Path) -> None:
    path.write_text("{", encoding="utf-8")


def count_not_a_number(path: Path) -> None:
    def change(data: dict) -> None:
        next(iter(data["projects"].values()))["benchmarks"] = "x"

    edit_index(path, change)


def folder_outside(path: Path) -> None:
    def change(data: dict) -> None:
        next(iter(data["projects"].values()))["folder"] = "../../outside"

    edit_index(path, change)


def missing_part(path: Path, project: str = "A") -> None:
    part_files(path, project)[0].unlink()


def missing_benchmarks(path: Path, project: str = "A") -> None:
    (folder(path, project) / "benchmarks.json").unlink()


def cut_part(path: Path, project: str = "A") -> None:
    part = part_files(path, project)[0]
    part.write_bytes(part.read_bytes()[:-40])


def damaged_payload(path: Path, project: str = "A") -> None:
    next(folder(path, project).glob("payloads/*.npz")).write_bytes(b"PK not numpy")


def link_folder(path: Path, project: str = "A") -> None:
    """The project's folder replaced by a link to the sibling folder `outside`."""
    target = folder(path, project)
    shutil.rmtree(target)
    target.symlink_to(path.parent.parent / "outside")


def link_part(path: Path, project: str = "A") -> None:
    part = part_files(path, project)[0]
    part.unlink()
    part.symlink_to(path.parent.parent / "outside" / "notes.txt")


def link_lock(path: Path) -> Path:
    """The lock file replaced by a link to a file outside; that file."""
    victim = path.parent.parent / "outside" / "notes.txt"
    lock = path.with_name(path.name + ".lock")
    lock.unlink(missing_ok=True)
    lock.symlink_to(victim)
    return victim


DAMAGES: dict[str, Callable[[Path], object]] = {
    "empty index": empty,
    "cut index": braces,
    "count not a number": count_not_a_number,
    "folder outside": folder_outside,
    "run file missing": missing_part,
    "benchmarks file missing": missing_benchmarks,
    "run file cut": cut_part,
    "payload damaged": damaged_payload,
    "project folder a link": link_folder,
    "run file a link": link_part,
}
"""Every damage a command refuses, by name: the tamper table of tests and benchmarks/faults.py."""
