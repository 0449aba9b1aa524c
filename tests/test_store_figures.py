"""The store's per-project figures kept up to date by appends alone, and start-up upkeep that
walks the payload files only after a write that did not finish."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import StoreError
from perftui.domain.measurement.figures import run_figures
from perftui.domain.measurement.summary import config_key
from perftui.domain.records import LayerProfile
from perftui.store import database_file, entries
from perftui.store.database import Store
from perftui.store.snapshot import Snapshot
from tests.store_helpers import (
    as_layout4,
    entries_inlined,
    make_run,
    read_json,
    store_with_project,
    write_as_before,
)

FP32 = (LayerProfile("c", "Conv", "jit", "FP32", "executed", 1.0),)


def figures(path: Path, project: str = "p") -> tuple:
    store = Store(path)
    (summary,) = [s for p, s in store.summaries() if p.name == project]
    return summary, store.precisions().get(project)


def test_appending_runs_extends_the_figures_without_reading_the_older_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store = store_with_project(tmp_path)
    first = store.add_run(
        make_run("p", throughput_fps=100.0, started_at="2025-01-01T00:00:00", benchmark_id="b1")
    )

    def read_all(*args: object) -> None:
        raise AssertionError("an append read the project's older runs")

    monkeypatch.setattr(entries, "computed", read_all)
    fast = make_run(
        "p", throughput_fps=900.0, layers=FP32, started_at="2025-02-01T00:00:00", benchmark_id="b2"
    )
    slow = make_run("p", throughput_fps=5.0, layers=None, benchmark_id="b3")
    stored = Store(path).add_runs([(fast, np.ones(10)), (slow, None)])
    summary, precision = figures(path)
    assert summary.runs == 3 and summary.best_throughput_fps == 900.0
    assert summary.best_throughput_config == config_key(stored[0]) and precision == "FP32"
    monkeypatch.undo()
    Store(path).delete_run(stored[0].id)  # not an append: computed from the runs
    summary, precision = figures(path)
    assert (
        summary.runs == 2
        and summary.best_throughput_config == config_key(first)
        and precision == "I8"
    )


def test_figures_written_by_the_previous_version_are_recomputed_on_the_next_append(
    tmp_path: Path,
) -> None:
    path, store = store_with_project(tmp_path)
    store.add_run(make_run("p", throughput_fps=100.0, layers=FP32))
    as_layout4(path)
    data = entries_inlined(path)
    for entry in data["shards"].values():
        del entry["precision_source"]
    write_as_before(path, data)
    assert figures(path)[1] == "FP32"  # read as it is
    Store(path).add_run(make_run("p", throughput_fps=50.0, layers=None, benchmark_id="b2"))
    summary, precision = figures(path)
    assert summary.runs == 2 and summary.best_throughput_fps == 100.0 and precision == "FP32"
    (entry,) = entries_inlined(path)["shards"].values()
    assert entry["precision_source"]["profile"][1] == "FP32"


def test_the_next_write_removes_only_what_a_killed_write_left(tmp_path: Path) -> None:
    path, store = store_with_project(tmp_path)
    kept = store.add_run(make_run("p"), np.ones(10))
    folder = tmp_path / "perftui.json.d"
    assert not (folder / "pending").exists()  # a finished write clears its mark
    foreign = folder / "packs" / f"{'f' * 32}.pack"  # no write of ours named it
    orphan = folder / "packs" / f"0123456789abcdef{'0' * 16}.pack"  # the killed write's
    for made in (foreign, orphan):
        made.write_bytes(b"x")
    temp = folder / "runs" / f".{'a' * 32}.json.k2j4_x1q.tmp"
    temp.write_bytes(b"half")
    mark = {"token": "0123456789abcdef"}
    (folder / "pending").write_text(json.dumps(mark))  # as a writer killed mid-write leaves it
    before = sorted(p for p in tmp_path.rglob("*"))
    Store(path).projects()
    assert sorted(p for p in tmp_path.rglob("*")) == before  # a read writes nothing
    Store(path).add_run(make_run("p"), None)
    assert not orphan.exists() and not temp.exists() and not (folder / "pending").exists()
    assert foreign.exists()  # never "anything not named"
    assert Store(path).latency_samples(kept.id) is not None


def test_a_write_whose_document_cannot_be_committed_removes_the_files_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, store = store_with_project(tmp_path)
    store.add_run(make_run("p"), np.ones(10))
    before = sorted(p for p in tmp_path.rglob("*") if p.is_file())

    def full_disk(target: Path, payload: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(database_file, "atomic_write_bytes", full_disk)
    with pytest.raises(StoreError, match="No space left"):
        store.add_run(make_run("p"), np.ones(10))
    assert sorted(p for p in tmp_path.rglob("*") if p.is_file()) == before


def test_the_best_runs_figures_are_read_from_the_document_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store = store_with_project(tmp_path)
    samples = np.random.default_rng(0).gamma(4.0, 1.0, 2000).astype(np.float32)
    best = store.add_run(make_run("p", throughput_fps=900.0, benchmark_id="b1"), samples)
    other = store.add_run(make_run("p", throughput_fps=9.0, benchmark_id="b2"), samples)
    expected = run_figures(best, samples)
    computed = Store(path).figures(other.id)
    assert computed == run_figures(other, samples)

    def unread(*args: object, **kwargs: object) -> None:
        raise AssertionError("the figures of a best run read its runs or samples")

    monkeypatch.setattr(Snapshot, "shard", unread)
    monkeypatch.setattr(Snapshot, "latency_samples", unread)
    fresh = Store(path)
    (summary,) = [s for _, s in fresh.summaries()]
    assert summary.best_throughput_config == config_key(best)
    headline = fresh.headline("p", summary.best_throughput_config)
    assert headline is not None and headline.figures == expected and headline.runs == 1
    monkeypatch.undo()
    assert fresh.figures(best.id) == expected
    assert fresh.figures("no such run") is None


def test_a_first_write_killed_before_the_database_existed_leaves_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "perftui.json"
    folder = tmp_path / "perftui.json.d"
    (folder / "packs").mkdir(parents=True)
    orphan = folder / "packs" / f"0123456789abcdef{'1' * 16}.pack"
    orphan.write_bytes(b"x")
    mark = {"token": "0123456789abcdef"}
    (folder / "pending").write_text(json.dumps(mark))  # a first write killed before its document
    assert Store(path).projects() == []
    assert orphan.exists() and not path.exists()  # a read creates and removes nothing
    store_with_project(tmp_path)
    assert not orphan.exists() and not (folder / "pending").exists()


def test_headlines_of_another_method_are_combined_again_by_the_next_write(
    tmp_path: Path,
) -> None:
    """Each configuration's combined figure kept by a version whose method differs is not
    extended but computed again from the runs."""
    path, store = store_with_project(tmp_path)
    first = store.add_run(make_run("p", throughput_fps=100.0, benchmark_id="b1"), np.ones(10))
    (entry,) = read_json(path)["shards"].values()
    stored = tmp_path / "perftui.json.d" / "figures" / entry["figures"]
    part = json.loads(stored.read_text())
    part["best"]["method"] = "another"
    part["headlines"] = json.dumps({config_key(first): [1e9, 0.001]})  # another method's
    stored.write_text(json.dumps(part))
    Store(path).add_run(make_run("p", throughput_fps=50.0, benchmark_id="b2"), np.ones(10))
    summary, _ = figures(path)
    assert summary.best_throughput_fps == 100.0
    assert summary.best_throughput_config == config_key(first)
