"""Payloads in pack files: one per project and write, read where the shard lines say, retired
when no run uses them any more, and a killed write's packs removed by the next write unless
its document was committed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from perftui.store import recovery
from perftui.store.database import Store
from tests.store_helpers import make_project, make_run, payload_at, read_json, store_with_project


def packs(path: Path) -> set[str]:
    return {p.name for p in (path.with_name(path.name + ".d") / "packs").glob("*.pack")}


def retired(path: Path) -> set[str]:
    return {
        d["name"] for d in read_json(path).get("retired", {}).values() if d["folder"] == "packs"
    }


def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write from now on runs after the grace period."""
    now = time.time() + recovery.GRACE_S + 1
    monkeypatch.setattr(recovery.time, "time", lambda: now)


def test_a_write_puts_its_runs_payloads_in_one_pack_per_project(tmp_path: Path) -> None:
    path, store = store_with_project(tmp_path)
    store.ensure_project(make_project("q", "/m/q"))
    runs = store.add_runs([(make_run(name), np.ones(9)) for name in ("p", "p", "q")])
    assert len(packs(path)) == 2
    assert payload_at(path, runs[0].id)[0] == payload_at(path, runs[1].id)[0]
    assert all(np.array_equal(Store(path).latency_samples(r.id), np.ones(9)) for r in runs)


def test_a_pack_is_retired_once_no_run_uses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store = store_with_project(tmp_path)
    first, second = store.add_runs([(make_run("p"), np.ones(9)), (make_run("p"), np.ones(9))])
    third = store.add_run(make_run("p"), np.ones(9))
    (shared,), (own,) = {payload_at(path, first.id)[0].name}, {payload_at(path, third.id)[0].name}
    store.delete_run(first.id)  # its pack still holds the second run's payloads
    assert retired(path) == set() and packs(path) == {shared, own}
    store.delete_run(second.id)
    assert retired(path) == {shared} and packs(path) == {shared, own}  # a reader may need it
    later(monkeypatch)
    Store(path).add_project(make_project("q", "/m/q"))
    assert packs(path) == {own} and retired(path) == set()
    assert np.array_equal(Store(path).latency_samples(third.id), np.ones(9))


def test_a_renamed_project_keeps_its_packs_and_a_deleted_one_retires_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store = store_with_project(tmp_path)
    run = store.add_run(make_run("p"), np.ones(9))
    store.rename_project("p", "renamed")
    assert retired(path) == set()
    assert np.array_equal(Store(path).latency_samples(run.id), np.ones(9))
    store.delete_project("renamed")
    assert retired(path) == packs(path) and len(packs(path)) == 1
    later(monkeypatch)
    Store(path).add_project(make_project("q", "/m/q"))
    assert packs(path) == set()


@pytest.mark.parametrize("committed", [False, True])
def test_a_killed_writes_packs_go_unless_its_document_was_committed(
    tmp_path: Path, committed: bool
) -> None:
    path, store = store_with_project(tmp_path)
    run = store.add_run(make_run("p"), np.ones(9))
    folder = tmp_path / "perftui.json.d"
    (pack,) = packs(path)
    token = pack[:16] if committed else "0123456789abcdef"
    (folder / "pending").write_text(json.dumps({"token": token}))  # killed before clearing
    left = folder / "packs" / f"{token}{'9' * 16}.pack"
    left.write_bytes(b"half")
    Store(path).add_project(make_project("q", "/m/q"))
    assert left.exists() == committed and (folder / "packs" / pack).exists()
    assert not (folder / "pending").exists()
    assert np.array_equal(Store(path).latency_samples(run.id), np.ones(9))
