"""Adding runs costs the same whatever the database holds: the new runs' lines go to a
segment beside the project's shard file (none of its runs parsed), and the document counts
each project's runs (their ids are in its shard files alone); files and entries an earlier
version wrote are read and rewritten by the next write."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import InputError
from perftui.domain.measurement.summary import config_key
from perftui.store.database import Store
from perftui.store.legacy import OLD_SUFFIX
from perftui.store.payloads import Ref
from perftui.store.shards import HEADER, Shard
from perftui.store.transaction import TAKEN_IN
from tests.store_helpers import (
    as_layout4,
    entries_inlined,
    make_project,
    make_run,
    read_json,
    shard_bytes,
    shard_paths,
    store_with_project,
    write_as_before,
)


def test_appending_copies_the_shard_file_and_parses_none_of_its_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store = store_with_project(tmp_path)
    others = [(make_run("p", layers=None), None) for _ in range(3)]  # outweighing a new run
    first = store.add_runs([(make_run("p"), np.ones(5)), *others])
    before = shard_bytes(path)["p"]

    def parse(raw: bytes) -> Shard:
        raise AssertionError("an append parsed the stored runs")

    monkeypatch.setattr(Shard, "parse", parse)
    added = Store(path).add_run(make_run("p", throughput_fps=1e6, benchmark_id="b"), np.ones(5))
    monkeypatch.undo()
    after = shard_bytes(path)["p"]
    assert after.startswith(before) and after.startswith(HEADER)
    (entry,) = read_json(path)["shards"].values()
    assert len(entry["tail"]) == 1  # the new run's segment alone was written
    fresh = Store(path)
    assert {r.id for r in fresh.runs("p")} == {added.id, *(r.id for r in first)}
    assert fresh.get_run(added.id) == added
    (summary,) = [s for _, s in fresh.summaries()]
    assert summary.runs == 5 and summary.best_throughput_config == config_key(added)
    with pytest.raises(InputError, match="already stored"):
        fresh.add_run(added)


def test_a_layout3_database_is_migrated_once_with_a_backup(
    tmp_path: Path,
) -> None:
    path = tmp_path / "perftui.json"
    store = Store(path)
    for name in ("p", "q"):
        store.ensure_project(make_project(name, f"/m/{name}"))
    old = store.add_run(make_run("p"), np.ones(5))
    store.add_run(make_run("q"), np.ones(5))
    counts = as_layout4(path)
    data = entries_inlined(path)  # as the version before wrote it
    data["meta"]["1"]["schema_version"] = 3
    for entry in data["shards"].values():
        shard = shard_paths(path)[entry["project"]]
        items = [json.loads(line) for line in shard.read_text().splitlines()[1:]]
        runs = {item["run"]["id"]: item["run"] for item in items}
        tables = {kind: {i: n for i, n in counts[kind].items() if i in runs} for kind in counts}
        shard.write_text(json.dumps({"runs": runs, **tables}))  # one object of tables
        entry["runs"] = list(runs)
        for key in ("count", "tail", "precision_source", "headlines", "best"):
            del entry[key]
    write_as_before(path, data)
    original = path.read_bytes()
    lines: list[str] = []
    assert Store(path, notify=lines.append).get_run(old.id) == old
    assert not lines and path.read_bytes() == original  # a read migrates nothing
    new = Store(path, notify=lines.append).add_run(make_run("p"), np.ones(5))
    assert len(lines) == 1 and "layout 7" in lines[0] and "layout3.bak" in lines[0]
    assert (tmp_path / "perftui.json.layout3.bak").read_bytes() == original
    assert all(raw.startswith(HEADER) for raw in shard_bytes(path).values())
    entries = {e["project"]: e for e in entries_inlined(path)["shards"].values()}
    assert entries["p"]["count"] == 2 and entries["q"]["count"] == 1
    assert all("runs" not in e and e["best"]["configs"] for e in entries.values())
    assert [r.id for r in Store(path).runs("p")] == [new.id, old.id]
    lines.clear()
    Store(path, notify=lines.append).add_run(make_run("q"))
    assert not lines  # once


def test_a_layout4_database_is_read_in_place_and_packed_by_the_next_write(
    tmp_path: Path,
) -> None:
    path, store = store_with_project(tmp_path)
    store.ensure_project(make_project("q", "/m/q"))
    rng = np.random.default_rng(0)
    kept = {}
    for name in ("p", "q"):
        for _ in range(3):
            samples = rng.gamma(4.0, 1.0, 50).astype(np.float32)
            kept[store.add_run(make_run(name), samples).id] = samples
    runs = {name: Store(path).runs(name) for name in ("p", "q")}
    counts = as_layout4(path)
    root = path.with_name(path.name + ".d")
    original, files = path.read_bytes(), sorted(root.rglob("*"))
    old = Store(path)
    assert {name: old.runs(name) for name in runs} == runs
    assert all(np.array_equal(old.latency_samples(i), s) for i, s in kept.items())
    assert path.read_bytes() == original and sorted(root.rglob("*")) == files  # no write
    lines: list[str] = []
    Store(path, notify=lines.append).add_project(make_project("r", "/m/r"))
    assert len(lines) == 1 and "layout 7" in lines[0] and "layout4.bak" in lines[0]
    fresh = Store(path)
    assert {name: fresh.runs(name) for name in runs} == runs
    assert all(np.array_equal(fresh.latency_samples(i), s) for i, s in kept.items())
    assert all(raw.startswith(HEADER) for raw in shard_bytes(path).values())
    retired = {(d["folder"], d["name"]) for d in read_json(path)["retired"].values()}
    old_files = {(k, i + OLD_SUFFIX[k]) for k, table in counts.items() for i in table}
    assert old_files <= retired and len(old_files) == 12  # removed after the grace period


def test_a_shard_reads_back_what_it_was_given() -> None:
    shard = Shard()
    pack = "0" * 32 + ".pack"
    given = (
        {"samples": Ref(5, pack, 0, 9), "layers": Ref(2, pack, 9, 4)},
        {},
        {"samples": Ref(0, pack, 13, 1)},
    )
    for n, refs in enumerate(given):
        doc = {**make_run("p", layers=None).to_dict(), "id": f"r{n}", "layers": None}
        shard.add(doc, refs, {"n": n} if n != 1 else None)
    again = Shard.parse(shard.blob())
    assert again.runs == shard.runs and again.refs == shard.refs
    assert again.figures == {"r0": {"n": 0}, "r2": {"n": 2}} and again.packs() == [pack]


def test_segments_take_in_the_smaller_ones_before_them(tmp_path: Path) -> None:
    """Each append's segment takes in the last files no more than TAKEN_IN times its size:
    sizes more than halve from the oldest file to the newest, so 40 appends leave a few
    files, the base file rewritten only when the runs after it outweigh it."""
    path, store = store_with_project(tmp_path)
    ids = [store.add_run(make_run("p", layers=None)).id]  # written whole: the first
    folder = path.with_name(path.name + ".d") / "runs"
    bases = set()
    for _ in range(40):
        ids.append(Store(path).add_run(make_run("p", layers=None)).id)
        (entry,) = read_json(path)["shards"].values()
        sizes = [(folder / name).stat().st_size for name in [entry["file"], *entry["tail"]]]
        assert all(old > TAKEN_IN * new for old, new in itertools.pairwise(sizes)), sizes
        bases.add(entry["file"])
    assert len(sizes) <= 4 and 2 < len(bases) < 10
    assert sorted(r.id for r in Store(path).runs("p")) == sorted(ids)
    Store(path).delete_run(ids[3])
    (entry,) = read_json(path)["shards"].values()
    assert entry["tail"] == [] and len(Store(path).runs("p")) == len(ids) - 1
