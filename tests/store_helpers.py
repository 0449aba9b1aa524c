"""Records and readers of the store's files, for the store tests (the `store` fixture is in
conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

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


def store_with_project(tmp_path: Path, name: str = "p") -> tuple[Path, Store]:
    """A new database in `tmp_path` (its path and a Store on it) holding project `name`."""
    path = tmp_path / "perftui.json"
    store = Store(path)
    store.ensure_project(make_project(name))
    return path, store
