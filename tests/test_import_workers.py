"""A large export's runs prepared by worker processes while this process stores them: the
same runs and figures as an import done in one process, a bad run anywhere refused with
nothing stored, and a worker that dies reported in one line."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from perftui.domain.errors import InputError, StoreError
from perftui.exchange import importer, prepare
from perftui.exchange.importer import import_file
from perftui.store.database import Store
from tests.store_helpers import tree
from tests.test_import_stream import filled


@pytest.fixture
def workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every export file prepared by two workers, however small."""
    monkeypatch.setattr(importer, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(prepare, "BATCH", 4)


def stored(path: Path) -> dict:
    store = Store(path)
    return {
        p.name: [
            (r, store.figures(r.id), list(store.latency_samples(r.id))) for r in store.runs(p.name)
        ]
        for p in store.projects()
    }


def test_workers_store_what_one_process_stores(
    tmp_path: Path, workers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, export = filled(tmp_path, runs=11)
    assert import_file(Store(tmp_path / "by_workers.json"), export, "x") == (2, 11)
    monkeypatch.setattr(importer, "PARALLEL_BYTES", 2**40)
    assert import_file(Store(tmp_path / "alone.json"), export, "x") == (2, 11)
    assert stored(tmp_path / "by_workers.json") == stored(tmp_path / "alone.json")


def test_a_bad_run_a_worker_finds_stores_nothing(tmp_path: Path, workers: None) -> None:
    _, export = filled(tmp_path, runs=9)
    lines = export.read_text().splitlines(keepends=True)
    last = max(n for n, line in enumerate(lines) if '"latency_samples"' in line)
    assert '"status":"ok"' in lines[last]
    lines[last] = lines[last].replace('"status":"ok"', '"status":"fine"', 1)
    export.write_text("".join(lines))
    target = Store(tmp_path / "target.json")
    target.ensure_project(Store(tmp_path / "source.json").projects()[0])
    before = tree(tmp_path / "target.json.projects"), (tmp_path / "target.json").read_bytes()
    with pytest.raises(InputError, match=r"projects\[1\]\.runs\[8\]\.status"):
        import_file(target, export, "x")
    assert (
        tree(tmp_path / "target.json.projects"),
        (tmp_path / "target.json").read_bytes(),
    ) == before


def test_a_worker_that_dies_is_one_line_and_nothing_stored(
    tmp_path: Path, workers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, export = filled(tmp_path, runs=9)
    monkeypatch.setattr(prepare, "ready_lines", _die)
    with pytest.raises(StoreError, match="a worker process ended") as info:
        import_file(Store(tmp_path / "target.json"), export, "x")
    assert "\n" not in str(info.value)
    assert not (tmp_path / "target.json").exists()


def _die(lines: list) -> list:
    os.kill(os.getpid(), signal.SIGKILL)
    return []
