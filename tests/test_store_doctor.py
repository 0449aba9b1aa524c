"""`perftui doctor`: it reads everything a command reads, names what the store ignores, and
`--repair` counts what the files hold once a file went missing, after showing it and asking."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import StoreError
from perftui.store.database import Store
from tests.cli_helpers import perftui
from tests.store_helpers import (
    build,
    cut_part,
    folder,
    make_project,
    make_run,
    tree,
)


def test_a_run_file_gone_is_named_and_repair_goes_on_without_its_runs(tmp_path: Path) -> None:
    path = build(tmp_path)
    store = Store(path)
    store.add_run(make_run("A", benchmark_id="kept"), np.ones(5))
    next(folder(path, "A").glob("runs-m-*.json")).unlink()  # the month's runs: 3 of its 4
    doctor = perftui("doctor", db=path)
    assert doctor.returncode == 1 and "is missing" in doctor.stdout
    assert "`perftui doctor --repair` to mend it" in doctor.stdout
    repaired = perftui("doctor", "--repair", "--yes", db=path)
    assert repaired.returncode == 0, repaired.stdout
    assert "counted 1 run(s) (the index had 4)" in repaired.stdout
    summary = dict((p.name, s) for p, s in Store(path).summaries())["A"]
    assert summary.runs == 1 and [r.benchmark_id for r in Store(path).runs("A")] == ["kept"]
    assert len(Store(path).runs("B")) == 3


def test_a_cut_run_file_needs_a_copy_and_repair_changes_nothing(tmp_path: Path) -> None:
    path = build(tmp_path)
    cut_part(path)
    before = tree(tmp_path)
    result = perftui("doctor", "--repair", "--yes", db=path)
    assert result.returncode == 1
    assert "restore the database from a copy" in result.stdout
    assert tree(tmp_path) == before


def test_a_write_removes_the_temporary_files_a_killed_one_left(tmp_path: Path) -> None:
    path = build(tmp_path)
    left = [path.with_name(".tmp-abcd1234.tmp"), folder(path, "A") / ".tmp-x1.tmp"]
    foreign = folder(path, "A") / ".mine.tmp"
    for file in [*left, foreign]:
        file.write_text("{}")
    Store(path).add_run(make_run("A"))
    assert not [file for file in left if file.exists()] and foreign.exists()


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


def test_upkeep_removes_what_a_killed_import_left_and_keeps_run_files(tmp_path: Path) -> None:
    path = build(tmp_path)
    root = path.with_name(path.name + ".projects")
    killed = root / ("a" * 32)  # payloads renamed, then killed before its run files
    (killed / "payloads").mkdir(parents=True)
    (killed / "payloads" / "r1.npz").write_bytes(b"x")
    (killed / ".tmp-x.tmp").write_bytes(b"x")
    kept = root / ("b" * 32)  # run files no index names: an older index restored?
    kept.mkdir()
    (kept / "runs-m-.json").write_text("{}")
    Store(path).upkeep()
    assert not killed.exists() and (kept / "runs-m-.json").exists()
    doctor = perftui("doctor", db=path)
    assert doctor.returncode == 0 and str(kept) in doctor.stdout


def test_repair_shows_what_is_wrong_and_asks_before_it_changes_anything(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    from perftui.cli.entry import main

    path = build(tmp_path)
    next(folder(path, "A").glob("runs-m-*.json")).unlink()
    before = tree(tmp_path)
    asked: list[str] = []
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)

    def answer(prompt: str) -> str:
        asked.append(capsys.readouterr().out + prompt)
        return "n"

    monkeypatch.setattr("builtins.input", answer)
    assert main(["doctor", "--repair", "--db", str(path)]) == 1
    assert len(asked) == 1 and "is missing" in asked[0] and asked[0].endswith("[y/N] ")
    assert "nothing was changed" in capsys.readouterr().out
    assert tree(tmp_path) == before
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)  # no one to ask: no repair
    assert main(["doctor", "--repair", "--db", str(path)]) == 1
    assert "give --yes" in capsys.readouterr().out and tree(tmp_path) == before
    monkeypatch.setattr("builtins.input", lambda _prompt: "y")
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    assert main(["doctor", "--repair", "--db", str(path)]) == 0
    assert tree(tmp_path) != before
