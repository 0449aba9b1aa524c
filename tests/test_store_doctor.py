"""`perftui doctor` reads every file the document names, a killed write's mark hides no
damage from it, and a repair adds back a run whose pack is gone without its payloads; a
parked run waits for its project, a killed write's temporaries go, a hard-linked lock is
refused."""

from __future__ import annotations

import builtins
import json
import os
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import StoreError
from perftui.store.database import Store
from perftui.store.inserts import with_id
from perftui.store.journal import Journal
from tests.cli_helpers import perftui
from tests.store_helpers import (
    build,
    entry,
    folder,
    make_project,
    make_run,
    older_copy,
    payload_at,
    tree,
)

MARK = json.dumps({"token": "0123456789abcdef"})
"""What a write killed before its first file leaves (its token names none of them)."""


def _garbage(path: Path) -> None:
    _, found = entry(path, "A")
    (folder(path, "runs") / found["file"]).write_bytes(b"garbage")


def _missing(path: Path) -> None:
    _, found = entry(path, "A")
    (folder(path, "runs") / found["file"]).unlink()


def _pack_gone(path: Path) -> None:
    run = Store(path).runs("A")[0]
    payload_at(path, run.id)[0].unlink()


@pytest.mark.parametrize("damage", [_garbage, _missing, _pack_gone])
def test_doctor_reads_every_file_the_document_names(tmp_path: Path, damage) -> None:
    path = build(tmp_path)
    damage(path)
    before = tree(tmp_path)
    shown = perftui("doctor", db=path)
    assert shown.returncode == 1, shown.stdout
    first, second = shown.stdout.splitlines()
    assert ("is damaged (" in first and "project 'A'" in first) or "pack file" in first
    assert "restore the database from a copy" in second
    assert tree(tmp_path) == before


def test_a_killed_write_s_mark_hides_no_damage(tmp_path: Path) -> None:
    """An older document restored where a write was killed: doctor shows the runs it would
    add back, and the repair adds them."""
    path = build(tmp_path)
    older_copy(path)
    (folder(path) / "pending").write_text(MARK)
    shown = perftui("doctor", db=path)
    assert shown.returncode == 1 and "add 1 run(s) back to project 'A'" in shown.stdout
    done = perftui("doctor", "--repair", "--yes", db=path)
    assert done.returncode == 0 and done.stdout.strip().endswith(": sound"), done.stdout
    assert len(Store(path).runs("A")) == 4


def test_a_run_whose_pack_is_gone_comes_back_without_its_payloads(tmp_path: Path) -> None:
    path = build(tmp_path)
    kept = {run.id for name in "AB" for run in Store(path).runs(name)}
    older_copy(path)  # A's newer run in a file the restored document does not name
    (line,) = [x for x in _stray_runs(path) if x["run"]["id"] not in kept]
    (folder(path, "packs") / line["samples"][1]).unlink()
    shown = perftui("doctor", db=path)
    assert "leave out 2 payload(s)" in shown.stdout, shown.stdout  # samples, layers
    done = perftui("doctor", "--repair", "--yes", db=path)
    assert done.returncode == 0, done.stdout + done.stderr
    store = Store(path)
    assert {run.id for name in "AB" for run in store.runs(name)} == {*kept, line["run"]["id"]}
    assert store.latency_samples(line["run"]["id"]) is None
    assert all(store.latency_samples(run_id) is not None for run_id in kept)
    assert not (folder(path) / "pending").exists()


def _stray_runs(path: Path) -> list[dict]:
    """The runs of the files the entries do not name (retired ones too)."""
    named = {entry(path, p)[1]["file"] for p in "AB"}
    named |= {n for p in "AB" for n in entry(path, p)[1].get("tail", [])}
    lines = []
    for file in folder(path, "runs").iterdir():
        if file.name not in named:
            lines += [json.loads(x) for x in file.read_text().splitlines()[1:]]
    return lines


def test_ctrl_d_at_the_question_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from perftui.cli.entry import main

    path = build(tmp_path)
    older_copy(path)
    before = tree(tmp_path)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)

    def no_answer(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr(builtins, "input", no_answer)
    assert main(["--db", str(path), "doctor", "--repair"]) == 1
    assert capsys.readouterr().out.strip().endswith("nothing was changed")
    assert tree(tmp_path) == before


def test_a_parked_run_whose_project_is_gone_stays_parked_and_is_said(tmp_path: Path) -> None:
    """A run parked for a project renamed meanwhile is not dropped: it waits in the journal,
    and the next write after its project exists again adds it."""
    path = build(tmp_path)
    run = with_id(make_run("A"))
    Store(path).rename_project("A", "A2")
    Journal(path).park([(run, np.ones(5, np.float32))])
    said: list[str] = []
    Store(path, notify=said.append).add_project(make_project("C", "/m/c"))
    assert any("1 parked run(s)" in line and "does not exist now" in line for line in said)
    assert Store(path).get_run(run.id) is None and Journal(path).entries()
    Store(path).rename_project("A2", "A")  # merged before it renames: still waiting
    Store(path).add_project(make_project("D", "/m/d"))
    assert Store(path).get_run(run.id) is not None and not Journal(path).entries()


def test_a_write_removes_the_temporary_files_a_killed_one_left(tmp_path: Path) -> None:
    """Beside the database and, once older than a park takes, in its journal; even a
    write that stores nothing."""
    path = build(tmp_path)
    journal = Journal(path).root
    journal.mkdir()
    left = [path.with_name(f".{path.name}.abcd1234.tmp"), journal / f".{'a' * 32}.json.x1.tmp"]
    parking = journal / f".{'b' * 32}.json.x2.tmp"  # a park being written: no lock taken
    for file in [*left, parking]:
        file.write_text("{}")
    os.utime(left[1], (0, 0))  # a killed park's, long ago
    Store(path).upkeep()
    assert not [file for file in left if file.exists()] and parking.exists()


def test_a_lock_file_hard_linked_to_another_file_is_refused(tmp_path: Path) -> None:
    path = build(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    lock = path.with_name(path.name + ".lock")
    lock.unlink()
    os.link(victim, lock)
    with pytest.raises(StoreError, match="not a regular file of its own"):
        Store(path).add_project(make_project("C", "/m/c"))
    assert victim.read_text() == "precious"


def test_a_park_whose_entry_is_merged_at_once_does_not_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that takes the lock the moment a run is parked may merge and remove its entry
    before the park returns: the run is stored, and the park must not call that an error."""
    from perftui.store import files

    path = build(tmp_path)
    replace = os.replace

    def merged_at_once(source: str, target: str) -> None:
        replace(source, target)
        if str(target).endswith(".json") and ".journal" in str(target):
            os.unlink(target)  # as Journal.discard does, in another process

    monkeypatch.setattr(files.os, "replace", merged_at_once)
    Journal(path).park([(with_id(make_run("A")), None)])
