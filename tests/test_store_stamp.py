"""The folders' stamp: a read finds them as the last write left them without listing them,
and anything that changed them or the document since is listed and found."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import StoreError
from perftui.store import entries, recovery
from perftui.store.database import Store
from tests.store_helpers import (
    build,
    entry,
    make_project,
    make_run,
    older_copy,
    read_json,
    restamp,
    store_with_project,
)


def listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders `recovery` lists from now on."""
    seen: list[str] = []
    listed = recovery._listed

    def spy(payloads: object, folder: str) -> list[str]:
        seen.append(folder)
        return listed(payloads, folder)  # type: ignore[arg-type]

    monkeypatch.setattr(recovery, "_listed", spy)
    return seen


def test_a_read_of_the_folders_as_the_last_write_left_them_lists_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store = store_with_project(tmp_path)
    store.add_run(make_run("p"), np.ones(10))
    seen = listings(monkeypatch)
    assert len(Store(path).runs("p")) == 1
    assert seen == []


def test_a_file_put_in_a_folder_after_the_write_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store = store_with_project(tmp_path)
    store.add_run(make_run("p"), np.ones(10))
    stray = path.with_name(path.name + ".d") / "runs" / ("ab" * 16 + ".json")
    stray.write_bytes(b"")
    seen = listings(monkeypatch)
    with pytest.raises(StoreError, match="does not name"):
        Store(path).projects()
    assert "runs" in seen


def test_an_older_document_beside_the_stamped_folders_is_checked(tmp_path: Path) -> None:
    path, store = store_with_project(tmp_path, "A")
    store.add_run(make_run("A"), np.ones(10))
    older_copy(path)
    with pytest.raises(StoreError, match="does not name"):
        Store(path).projects()


def test_a_stamp_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    path, store = store_with_project(tmp_path)
    store.add_run(make_run("p"), np.ones(10))
    stamp = path.with_name(path.name + ".d") / "stamp"
    outside = tmp_path / "outside"
    outside.write_bytes(b"kept")
    stamp.unlink()
    os.symlink(outside, stamp)
    assert len(Store(path).runs("p")) == 1  # listed instead: nothing is wrong
    store.add_run(make_run("p"), np.ones(10))
    assert not stamp.is_symlink() and outside.read_bytes() == b"kept"


def test_a_stamp_a_kill_left_half_written_is_removed_by_the_next_write(tmp_path: Path) -> None:
    path, store = store_with_project(tmp_path)
    store.add_run(make_run("p"), np.ones(10))
    temp = path.with_name(path.name + ".d") / ".stamp.k1ll3d_x.tmp"
    temp.write_bytes(b"[")
    Store(path).projects()
    assert temp.exists()  # a read never writes
    Store(path).add_run(make_run("p"), np.ones(10))
    assert not temp.exists()


def test_a_backup_restored_with_its_folders_times_is_checked(tmp_path: Path) -> None:
    """`cp -a` of the document and its folder over the live ones sets the folders' times
    back and brings the old stamp: their change time still tells."""
    path, store = store_with_project(tmp_path)
    store.add_run(make_run("p"), np.ones(10))
    backup = tmp_path / "backup"
    backup.mkdir()
    folder = path.with_name(path.name + ".d")
    subprocess.run(["cp", "-a", str(path), str(folder), str(backup)], check=True)
    Store(path).add_run(make_run("p"), np.ones(10))  # a newer run in files of its own
    copies = [str(backup / path.name), str(backup / folder.name)]
    subprocess.run(["cp", "-a", *copies, str(tmp_path)], check=True)
    with pytest.raises(StoreError, match="does not name"):
        Store(path).projects()


def test_a_read_of_stamped_folders_checks_the_names_of_the_project_it_reads_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "perftui.json"
    store = Store(path)
    for i in range(5):
        store.ensure_project(make_project(f"p{i}"))
        store.add_run(make_run(f"p{i}"), np.ones(10))
    checked: list[tuple[str, ...]] = []
    check = entries.checked_files

    def spy(names: tuple[str, ...]) -> tuple[str, ...]:
        checked.append(names)
        return check(names)

    monkeypatch.setattr(entries, "checked_files", spy)
    assert len(Store(path).runs("p3")) == 1
    assert 0 < len(checked) <= 2  # p3's entry alone


def test_a_delete_keeps_a_file_another_entry_still_names(tmp_path: Path) -> None:
    """B's entry edited to name A's runs file, the stamp made to match: deleting B
    retires none of A's files (a write retires only what the new document names no more)."""
    path = build(tmp_path)
    data, a = entry(path, "A")
    (b,) = [e for e in data["shards"].values() if e["project"] == "B"]
    b["file"], b["tail"] = a["file"], a["tail"]
    path.write_text(json.dumps(data))
    restamp(path)
    Store(path).delete_project("B")
    retired = {doc["name"] for doc in read_json(path)["retired"].values()}
    assert retired.isdisjoint([a["file"], *a["tail"]])


def test_two_entries_naming_one_file_are_damage(tmp_path: Path) -> None:
    path = build(tmp_path)
    data, a = entry(path, "A")
    (b,) = [e for e in data["shards"].values() if e["project"] == "B"]
    b["file"] = a["file"]
    path.write_text(json.dumps(data))
    with pytest.raises(StoreError, match="names another's file"):
        Store(path).delete_project("B")
    assert read_json(path) == data


def test_doctor_does_not_trust_the_stamp(tmp_path: Path) -> None:
    """An entry naming a file outside, the stamp made to match: reads check the names
    they use; `doctor` checks them all."""
    path = build(tmp_path)
    data, b = entry(path, "B")
    b["figures"] = "../../outside/" + "f" * 32 + ".json"
    path.write_text(json.dumps(data))
    restamp(path)
    problem, _ = Store(path).diagnose()
    assert "damaged" in problem
