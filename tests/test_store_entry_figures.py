"""Each project's figures in a file its entry names: an append reads and writes the figures of
the project it adds to alone, entries that kept their figures themselves are read as they are
and moved to files by the next write, and a missing figures file is computed again."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.measurement.summary import config_key
from perftui.store import snapshot
from perftui.store.database import Store
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
