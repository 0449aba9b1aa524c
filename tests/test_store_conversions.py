"""A database written in each older layout reads back as it was written, a read writes
nothing, and its first write of every kind stores it as layout 7 with a backup, keeping all
that write did not touch (perftui.store.legacy), as a second Store and `doctor` agree."""

from __future__ import annotations

import base64
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from perftui.domain.records import BenchmarkRequest, RunConfig
from perftui.store import recovery
from perftui.store.codec import SAMPLES_CODEC
from perftui.store.database import Store
from perftui.store.legacy import OLD_SUFFIX
from perftui.store.payloads import KINDS
from tests.store_helpers import (
    as_layout4 as layout4,
)
from tests.store_helpers import (
    as_layout6,
    build,
    entries_inlined,
    folder,
    inlined_benchmarks,
    make_project,
    make_run,
    read_json,
    tree,
    write_as_before,
)

# ---------------------------------------------------------------- older layouts


def _tinydb(path: Path, version: int, **meta: object) -> None:
    """The document's projects and entries keyed by counters, as layouts 1-6 kept every
    table, and its meta record of `version` with `meta`."""
    data = read_json(path)
    data["meta"]["1"].update(schema_version=version, **meta)
    for table in ("projects", "shards"):
        if table in data:
            data[table] = {str(n): doc for n, doc in enumerate(data[table].values(), 1)}
    path.write_text(json.dumps(data))


def as_layout5(path: Path, **meta: object) -> None:
    """Layout 6 with the benchmarks in the document's `benchmarks` table."""
    path.write_text(json.dumps(inlined_benchmarks(path)))
    _tinydb(path, 5, **meta)


def as_layout4(path: Path, **meta: object) -> dict[str, dict]:
    """`store_helpers.as_layout4`, keyed by counters; every run's payload counts by kind."""
    counts = layout4(path)
    _tinydb(path, 4, **meta)
    return counts


def _shard_runs(path: Path, entry: dict) -> list[dict]:
    """The runs of a layout-4 shard file, as stored."""
    lines = (folder(path, "runs") / entry["file"]).read_text().splitlines()[1:]
    return [json.loads(line)["run"] for line in lines]


def as_layout3(path: Path) -> None:
    """Each entry listing its run ids and keeping its figures, its runs one object of
    tables, a payload file per run (as tests/test_store_append.py writes it)."""
    counts = layout4(path)
    data = entries_inlined(path)
    for entry in data["shards"].values():
        runs = {doc["id"]: doc for doc in _shard_runs(path, entry)}
        tables = {kind: {i: n for i, n in counts[kind].items() if i in runs} for kind in counts}
        (folder(path, "runs") / entry["file"]).write_text(json.dumps({"runs": runs, **tables}))
        entry["runs"] = list(runs)
        for key in ("count", "tail", "precision_source", "headlines", "best"):
            del entry[key]
    write_as_before(path, data)
    _tinydb(path, 3)


def as_layout2(path: Path) -> None:
    """Every run in the document's `runs` table, payload counts in `samples` and `layers`,
    a payload file per run; no shard or figures files."""
    counts = layout4(path)
    data, root = read_json(path), folder(path)
    runs = [doc for entry in data.pop("shards").values() for doc in _shard_runs(path, entry)]
    data.pop("retired", None)
    data["runs"] = {str(n): doc for n, doc in enumerate(runs, 1)}
    for kind in KINDS:
        rows = enumerate(counts[kind].items(), 1)
        data[kind] = {str(n): {"run_id": i, "count": c} for n, (i, c) in rows}
    shutil.rmtree(root / "runs")
    shutil.rmtree(root / "figures")
    path.write_text(json.dumps(data))
    _tinydb(path, 2)


def as_layout1(path: Path) -> None:
    """Layout 2 with every payload inline in its row (base64 of the same blob) and each
    environment in its run's `resolved`."""
    as_layout2(path)
    data, root = read_json(path), folder(path)
    envs = {env["id"]: env["environment"] for env in data.pop("environments").values()}
    for run in data["runs"].values():
        if "environment" in run:
            run["resolved"]["environment"] = envs[run.pop("environment")]
    codec = {"samples": SAMPLES_CODEC, "layers": "json+zlib+base64"}
    for kind in KINDS:
        for row in data[kind].values():
            blob = (root / kind / (row["run_id"] + OLD_SUFFIX[kind])).read_bytes()
            row.update(codec=codec[kind], data=base64.b64encode(blob).decode("ascii"))
        shutil.rmtree(root / kind)
    data["meta"]["1"]["schema_version"] = 1
    path.write_text(json.dumps(data))


LAYOUTS: dict[str, tuple[int, Callable[[Path], object]]] = {
    "7": (7, lambda path: None),  # the control: nothing to convert
    "6-named": (6, lambda path: as_layout6(path, named_files=True)),
    "6": (6, as_layout6),
    "5-named": (5, lambda path: as_layout5(path, named_files=True)),
    "5": (5, as_layout5),
    "4-named": (4, lambda path: as_layout4(path, named_files=True)),
    "4": (4, as_layout4),
    "3": (3, as_layout3),
    "2": (2, as_layout2),
    "1": (1, as_layout1),
}

# ---------------------------------------------------------------- what the API reads


def built(tmp_path: Path) -> Path:
    """`build`'s database, each project given an older fourth run with samples of its own
    (build's are all ones) and an environment (kept once, by digest)."""
    path = build(tmp_path)
    rng = np.random.default_rng(7)
    resolved = {"streams": 2, "environment": {"cpu": "x", "flags": ["avx2"]}}
    Store(path).add_runs(
        (make_run(name, throughput_fps=50.0 + n, started_at="2020-01-01T00:00:00+00:00",
                  resolved=resolved),
         rng.gamma(4.0, 1.0, 40 + n).astype(np.float32))
        for n, name in enumerate("AB")
    )  # fmt: skip
    return path


def view(store: Store) -> dict[str, Any]:
    """Everything the public API says of the database, by project name."""
    summaries = {project.name: summary for project, summary in store.summaries()}
    found: dict[str, Any] = {"precisions": store.precisions()}
    for project in store.projects():
        name, summary = project.name, summaries[project.name]
        runs = store.runs(name)
        found[name] = {
            "project": project,
            "runs": runs,
            "samples": [store.latency_samples(run.id).tolist() for run in runs],
            "figures": [store.figures(run.id) for run in runs],
            "benchmarks": store.project_benchmarks(name),
            "summary": summary,
            "headlines": [
                store.headline(name, summary.best_throughput_config),
                store.headline(name, summary.best_latency_config),
            ],
        }
    return found


def renamed(seen: dict[str, Any], new: str) -> dict[str, Any]:
    """A project's view as it reads once renamed `new`."""
    project = replace(seen["project"], name=new)
    return {
        **seen,
        "project": project,
        "runs": [replace(run, project=new) for run in seen["runs"]],
        "benchmarks": [
            replace(b, project_name=new, request=replace(b.request, project=project))
            for b in seen["benchmarks"]
        ],
    }


# ---------------------------------------------------------------- the first writes


def add_run(store: Store, before: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    run = store.add_run(make_run("A", throughput_fps=999.0), np.full(7, 3.0, np.float32))

    def check(after: dict[str, Any]) -> None:
        a = after.pop("A")
        assert a["runs"][0] == run and a["samples"][0] == [3.0] * 7  # newest
        assert a["runs"][1:] == before["A"]["runs"] and a["samples"][1:] == before["A"]["samples"]
        assert a["figures"][1:] == before["A"]["figures"]
        assert (
            a["benchmarks"] == before["A"]["benchmarks"] and a["project"] == before["A"]["project"]
        )
        assert a["summary"].runs == before["A"]["summary"].runs + 1
        assert a["summary"].best_throughput_fps > before["A"]["summary"].best_throughput_fps
        del before["A"]

    return check


def rename(store: Store, before: dict[str, Any]) -> None:
    store.rename_project("A", "A2")
    before["A2"] = renamed(before.pop("A"), "A2")
    before["precisions"]["A2"] = before["precisions"].pop("A")


def delete(store: Store, before: dict[str, Any]) -> None:
    store.delete_project("B")
    del before["B"], before["precisions"]["B"]


def add_benchmark(store: Store, before: dict[str, Any]) -> None:
    project = store.get_project("A")
    assert project is not None
    new = store.add_benchmark(BenchmarkRequest(project=project, configs=(RunConfig(batch=8),)))
    stored = store.get_benchmark(new)
    assert stored is not None and stored.request.configs == (RunConfig(batch=8),)
    before["A"]["benchmarks"] = [*before["A"]["benchmarks"], stored]


def ensure(store: Store, before: dict[str, Any]) -> None:
    project = store.ensure_project(make_project("C", "/m/c.onnx"))
    (summary,) = [s for p, s in store.summaries() if p.name == "C"]
    assert summary.runs == 0 and summary.best_throughput_config is None
    before["C"] = {"project": project, "runs": [], "samples": [], "figures": [], "benchmarks": []}
    before["C"] |= {"summary": summary, "headlines": [None, None]}


WRITES = {
    "add_run": add_run,
    "rename": rename,
    "delete": delete,
    "add_benchmark": add_benchmark,
    "ensure_project": ensure,
}


# ---------------------------------------------------------------- the tests


@pytest.fixture(params=list(LAYOUTS))
def old(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, int, dict, bytes]:
    """A database rewritten in one layout: its path, the layout, what it read before, its
    document's bytes."""
    path = built(tmp_path)
    before = view(Store(path))
    assert [len(before[name]["runs"]) for name in "AB"] == [4, 4]
    assert len(before["A"]["benchmarks"]) == 1 and before["B"]["benchmarks"] == []
    assert before["B"]["runs"][-1].resolved["environment"] == {"cpu": "x", "flags": ["avx2"]}
    version, rewrite = LAYOUTS[request.param]
    rewrite(path)
    assert read_json(path)["meta"]["1"]["schema_version"] == version
    return path, version, before, path.read_bytes()


def test_a_read_returns_what_was_written_and_writes_nothing(old: tuple) -> None:
    """Read in place: the same records, figures and samples; no byte or file changed."""
    path, _, before, raw = old
    files = tree(path.parent)
    assert view(Store(path)) == before
    problem, found = Store(path).diagnose()
    assert problem == "" and found is not None and found.lines() == []
    assert path.read_bytes() == raw and tree(path.parent) == files


@pytest.mark.parametrize("write", list(WRITES))
def test_the_first_write_keeps_what_it_does_not_touch(
    old: tuple, write: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stored as layout 7 once, with a backup; what the write left alone reads the same, to
    a reader of the old layout too, after the old files are removed, and `doctor` finds it
    sound."""
    path, version, before, raw = old
    reader = Store(path)  # another process's Store, which read the older layout
    assert view(reader) == before
    said: list[str] = []
    check = WRITES[write](Store(path, notify=said.append), before)
    if version < 7:
        assert len(said) == 1 and "layout 7" in said[0] and f"layout{version}.bak" in said[0]
        assert path.with_name(f"{path.name}.layout{version}.bak").read_bytes() == raw
    else:
        assert said == []
    assert read_json(path)["meta"]["1"]["schema_version"] == 7
    after = view(Store(path))
    assert view(Store(path)) == view(reader) == after  # a second Store reads the same
    problem, found = Store(path).diagnose()
    assert problem == "" and found is not None and found.lines() == []
    said.clear()
    Store(path, notify=said.append).upkeep()  # converted once: nothing more to do
    assert said == [] and view(Store(path)) == after
    now = time.time() + recovery.GRACE_S + 1  # a write after the grace period removes
    monkeypatch.setattr(recovery.time, "time", lambda: now)  # the files the first retired
    Store(path).add_project(make_project("Z", "/m/z.onnx"))
    assert not [f for kind in KINDS for f in folder(path, kind).glob("*")]  # payload files
    assert {k: v for k, v in view(Store(path)).items() if k != "Z"} == after
    if check is not None:
        check(after)  # takes out what the write changed
    assert after == before
