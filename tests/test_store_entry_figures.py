"""Each project's figures in a file its entry names: an append reads and writes the figures of
the project it adds to alone, entries that kept their figures themselves are read as they are
and moved to files by the next write, and a missing figures file is computed again."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.measurement.summary import config_key
from perftui.domain.model.profile import runtime_precision
from perftui.domain.records import LayerProfile
from perftui.store import snapshot
from perftui.store.database import Store
from perftui.store.entries import computed
from perftui.store.inserts import with_id
from perftui.store.journal import Journal
from perftui.store.shards import Shard
from tests.store_helpers import (
    as_layout4,
    entries_inlined,
    make_project,
    make_run,
    read_json,
    store_with_project,
)


def figures_folder(path: Path) -> Path:
    return path.with_name(path.name + ".d") / "figures"


def with_three_projects(tmp_path: Path) -> Path:
    path, store = store_with_project(tmp_path)
    for name in ("q", "r"):
        store.ensure_project(make_project(name, f"/m/{name}"))
    for name in ("p", "q", "r"):
        store.add_run(make_run(name), np.ones(10))
    return path


def entries(path: Path) -> dict[str, dict]:
    return {e["project"]: e for e in read_json(path)["shards"].values()}


def test_an_append_reads_and_writes_the_figures_of_its_project_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = with_three_projects(tmp_path)
    before = entries(path)
    others = {
        before[n]["figures"]: (figures_folder(path) / before[n]["figures"]).read_bytes()
        for n in ("q", "r")
    }
    read: list[str] = []
    real = snapshot.read_figures

    def counted(folder: Path, name: str) -> dict | None:
        read.append(name)
        return real(folder, name)

    def parse(raw: bytes) -> Shard:
        raise AssertionError("an append parsed the stored runs")

    monkeypatch.setattr(snapshot, "read_figures", counted)
    monkeypatch.setattr(Shard, "parse", parse)
    added = Store(path).add_run(make_run("p", throughput_fps=1e6, benchmark_id="new"), np.ones(10))
    monkeypatch.undo()
    assert read == [before["p"]["figures"]]
    after = entries(path)
    assert after["q"] == before["q"] and after["r"] == before["r"]
    assert all((figures_folder(path) / n).read_bytes() == raw for n, raw in others.items())
    assert set(after["p"]) == {"project", "file", "tail", "count", "figures"}
    assert after["p"]["figures"] != before["p"]["figures"]
    (summary,) = [s for p, s in Store(path).summaries() if p.name == "p"]
    assert summary.runs == 2 and summary.best_throughput_config == config_key(added)


def test_entries_that_keep_their_figures_are_read_and_moved_to_files_by_the_next_write(
    tmp_path: Path,
) -> None:
    path = with_three_projects(tmp_path)
    expected = Store(path).summaries(), Store(path).precisions()
    as_layout4(path)
    path.write_text(json.dumps(entries_inlined(path)))  # as entries were written before
    for stale in figures_folder(path).iterdir():
        stale.unlink()
    assert (Store(path).summaries(), Store(path).precisions()) == expected
    Store(path).add_project(make_project("s", "/m/s"))  # any write moves them
    moved = entries(path)
    fields = {"project", "file", "tail", "count", "figures"}
    assert all(set(e) == fields for e in moved.values())
    assert {p.name for p in figures_folder(path).iterdir()} == {
        e["figures"] for e in moved.values()
    }
    assert (Store(path).summaries()[:3], Store(path).precisions()) == expected


def test_a_missing_figures_file_is_computed_from_the_runs(tmp_path: Path) -> None:
    path = with_three_projects(tmp_path)
    expected = Store(path).summaries()
    (figures_folder(path) / entries(path)["q"]["figures"]).unlink()
    assert Store(path).summaries() == expected
    Store(path).add_run(make_run("q"), np.ones(10))
    (summary,) = [s for p, s in Store(path).summaries() if p.name == "q"]
    assert summary.runs == 2


def test_replaced_figures_files_are_removed_once_no_reader_may_want_them(
    tmp_path: Path,
) -> None:
    path = with_three_projects(tmp_path)
    first = entries(path)["p"]["figures"]
    Store(path).add_run(make_run("p"), np.ones(10))
    second = entries(path)["p"]["figures"]
    assert (figures_folder(path) / first).exists()  # a reader of the last version may want it
    data = read_json(path)
    assert retired_figures(data) == [first]
    for doc in data["retired"].values():
        doc["at"] = 0.0  # retired long ago
    path.write_text(json.dumps(data))
    Store(path).add_run(make_run("p"), np.ones(10))
    assert not (figures_folder(path) / first).exists()
    data = read_json(path)
    assert retired_figures(data) == [second]
    for doc in data["retired"].values():
        doc["at"] = 0.0
    path.write_text(json.dumps(data))
    Store(path).add_run(make_run("p"), np.ones(10))
    names = {p.name for p in figures_folder(path).iterdir()}
    assert first not in names and second not in names
    retired = set(retired_figures(read_json(path)))
    assert names == {e["figures"] for e in entries(path).values()} | retired


def retired_figures(data: dict) -> list[str]:
    """The figures files the document records as retired (its runs files aside: an append
    may take in the project's smaller files)."""
    return [d["name"] for d in data["retired"].values() if d["folder"] == "figures"]


def _recomputed(path: Path, project: str) -> dict:
    """The project's figures as stored, and as computed again from its runs."""
    store = Store(path)
    snap = store._read()
    shard = snap.shard(project)
    assert shard is not None
    return {
        "stored": json.loads(snap.entry_figures(project)["headlines"]),
        "computed": json.loads(computed(snap, project, shard).part()["headlines"]),
        "precision": (store.precisions()[project], runtime_precision(store.runs(project))),
    }


I8 = (LayerProfile("c", "Convolution", "jit_I8", "I8", "executed", 0.2),)


@pytest.mark.parametrize("one_write", [True, False])
def test_an_empty_profile_names_no_precision(tmp_path: Path, one_write: bool) -> None:
    """A run whose profile holds no layer (an engine may give one) leaves the precision to
    the newest profile that holds some, however the runs came and after a rename."""
    path, store = store_with_project(tmp_path)
    runs = [
        make_run("p", started_at="2024-01-01T00:00:00+00:00", layers=I8),
        make_run("p", started_at="2024-01-02T00:00:00+00:00", layers=()),
    ]
    if one_write:
        store.add_runs([(run, None) for run in runs])
    else:
        for run in runs:
            store.add_run(run)
    assert _recomputed(path, "p")["precision"] == ("I8", "I8")
    Store(path).rename_project("p", "q")
    assert _recomputed(path, "q")["precision"] == ("I8", "I8")


def test_a_deleted_project_takes_the_runs_its_write_merged(tmp_path: Path) -> None:
    """Runs parked while the lock was taken are merged by the next write: when that write
    deletes their project, no file of theirs is left that the document does not name."""
    path, store = store_with_project(tmp_path)
    store.add_run(make_run("p"), np.ones(10))
    Journal(path).park([(with_id(make_run("p")), np.ones(10))])
    store.delete_project("p")
    assert Store(path).diagnose()[0] == ""  # trusts no stamp: lists every folder
    packs = path.with_name(path.name + ".d") / "packs"
    retired = {doc["name"] for doc in read_json(path)["retired"].values()}
    assert {p.name for p in packs.iterdir()} <= retired
