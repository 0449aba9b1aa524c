"""Damage and tampering as a user's machine meets them, through the real CLI where a person would
meet them: a read never writes; nothing outside the database's folder is opened, written or
deleted; a refusal writes nothing; whatever makes a command refuse, `doctor` names (exit 1)
with the way out; a file the store does not know is ignored, never a reason to refuse or to
drop a run; damage in one project stops no other (issue 39)."""

from __future__ import annotations

import builtins
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import StoreError
from perftui.store.database import Store
from tests.cli_helpers import QUICK, one_error_line, perftui
from tests.process_helpers import read_line
from tests.store_helpers import (
    DAMAGES,
    MODEL,
    REPO,
    build,
    count_not_a_number,
    folder,
    link_lock,
    make_project,
    make_run,
    missing_benchmarks,
    missing_part,
    part_files,
    tree,
)

# ---------------------------------------------------------------- damage: refused, named, kept


@pytest.mark.parametrize("name", sorted(DAMAGES))
def test_damage_is_refused_in_one_line_named_by_doctor_and_left_in_place(
    tmp_path: Path, name: str
) -> None:
    path = build(tmp_path)
    DAMAGES[name](path)
    before = tree(tmp_path)
    refused = []
    for args in (("projects",), ("show", "A"), ("export",), ("history", "A")):
        result = perftui(*args, db=path)
        if result.returncode:
            refused.append(one_error_line(result))
    assert refused, "no command met the damage"
    doctor = perftui("doctor", db=path)
    assert doctor.returncode == 1, doctor.stdout
    assert "sound" not in doctor.stdout
    assert tree(tmp_path) == before  # nothing written, nothing deleted, nothing outside
    for write in (
        lambda store: store.add_run(make_run("A"), np.ones(5)),
        lambda store: store.rename_project("A", "A2"),
    ):
        try:
            write(Store(path))
        except StoreError as exc:  # refused: in one line, and it wrote nothing
            assert "\n" not in str(exc)
            assert tree(tmp_path) == before


def test_the_issue_s_deleted_benchmarks_file_is_named_by_doctor(tmp_path: Path) -> None:
    """Issue 39: with the benchmarks file deleted, bench and export refused while doctor said
    'sound'. Now both say so, and `doctor --repair` is the way out."""
    path = build(tmp_path)
    missing_benchmarks(path)
    line = one_error_line(perftui("export", db=path))
    assert "benchmarks.json of project 'A'" in line
    doctor = perftui("doctor", db=path)
    assert doctor.returncode == 1 and "benchmarks.json of project 'A'" in doctor.stdout
    assert "doctor --repair" in doctor.stdout
    repaired = perftui("doctor", "--repair", "--yes", db=path)
    assert repaired.returncode == 0, repaired.stdout
    assert perftui("export", db=path).returncode == 0
    assert len(Store(path).runs("A")) == 3


def test_the_issue_s_count_set_to_x_is_named_by_doctor(tmp_path: Path) -> None:
    path = build(tmp_path)
    count_not_a_number(path)
    assert "is malformed" in one_error_line(perftui("projects", db=path))
    doctor = perftui("doctor", db=path)
    assert doctor.returncode == 1 and "is malformed" in doctor.stdout
    assert "restore the database from a copy" in doctor.stdout


def test_damage_in_one_project_stops_neither_reads_nor_writes_of_another(
    tmp_path: Path,
) -> None:
    path = build(tmp_path)
    missing_part(path, "A")
    store = Store(path)
    with pytest.raises(StoreError, match="project 'A'"):
        store.runs("A")
    store.add_run(make_run("B"), np.ones(5))
    assert len(Store(path).runs("B")) == 4
    assert perftui("show", "B", db=path).returncode == 0


def test_a_linked_lock_file_is_never_written_through(tmp_path: Path) -> None:
    path = build(tmp_path)
    target = link_lock(path)
    before = tree(tmp_path)
    with pytest.raises(StoreError, match="symbolic link") as info:
        Store(path).add_project(make_project("C", "/m/c"))
    assert "\n" not in str(info.value)
    assert tree(tmp_path) == before and target.read_bytes() == b"keep me"


@pytest.mark.parametrize("damage", [missing_part, missing_benchmarks])
def test_bench_is_refused_before_it_measures_or_writes(tmp_path: Path, damage) -> None:
    path = build(tmp_path)
    damage(path)
    before = tree(tmp_path)
    result = perftui("bench", str(MODEL), "--project", "A", *QUICK, db=path)
    one_error_line(result)
    assert "measur" not in result.stderr.lower() and not result.stdout
    assert tree(tmp_path) == before


# ---------------------------------------------------------------- files the store does not know


def test_a_conflict_copy_loses_no_run_and_doctor_reports_it(tmp_path: Path) -> None:
    """Issue 39: a copy of a run file (a sync tool's conflict copy) made the database
    'damaged' and a running bench lost its runs. Now it is ignored and reported."""
    path = build(tmp_path)
    part = part_files(path, "A")[0]
    copies = [
        part.with_name("runs-b-1.json"),  # a run file's name, holding another file's runs
        part.with_name(part.stem + " (conflicted copy).json"),
        part.with_name(part.name + ".bak"),
        folder(path, "A") / ".benchmarks.json.swp",
        path.with_name(path.name + " (1)"),
    ]
    for copy in copies:
        copy.write_bytes(part.read_bytes())
    result = perftui("bench", str(MODEL), "--project", "A", *QUICK, db=path)
    assert result.returncode == 0, result.stderr
    assert len(Store(path).runs("A")) == 4
    doctor = perftui("doctor", db=path)
    assert doctor.returncode == 0 and "sound" in doctor.stdout
    assert all(str(copy) in doctor.stdout for copy in copies), doctor.stdout
    assert all(copy.exists() for copy in copies)


# ---------------------------------------------------------------- killed writes


STALLER = textwrap.dedent(
    """
    import os, sys, time
    import numpy as np
    from perftui.store.database import Store
    from tests.store_helpers import make_run

    real_replace = os.replace

    def replace(src, dst):  # the run file is whole: wait to be killed before the index's rename
        if os.path.basename(dst) == os.path.basename(sys.argv[1]):
            print("stalled", flush=True)
            time.sleep(60)
        real_replace(src, dst)

    store = Store(sys.argv[1])
    os.replace = replace
    store.add_runs([(make_run("A"), np.ones(50, np.float32)) for _ in range(20)])
    """
)


def test_a_write_killed_before_its_index_loses_nothing_and_the_next_counts_it(
    tmp_path: Path,
) -> None:
    path = build(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-c", STALLER, str(path)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert read_line(proc.stdout).strip() == "stalled"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    before = tree(tmp_path)
    assert len(Store(path).runs("A")) == 23  # its run file was renamed: nothing lost
    assert tree(tmp_path) == before  # a read leaves what the kill left
    assert perftui("doctor", db=path).returncode == 0
    Store(path).add_run(make_run("A"), np.ones(5))
    assert not list(path.parent.glob(".tmp-*"))  # the killed write's temporary index
    summary = dict((p.name, s) for p, s in Store(path).summaries())["A"]
    assert summary.runs == 24


def test_a_bench_whose_store_fails_at_the_end_still_prints_its_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from perftui.cli.entry import main

    path = build(tmp_path)

    def full_disk(self: Store, items: object) -> list:
        raise StoreError(f"cannot write database {self.path} (No space left on device)")

    monkeypatch.setattr(Store, "add_runs", full_disk)
    code = main(["--db", str(path), "bench", str(MODEL), "--project", "A", *QUICK, "--json"])
    out, err = capsys.readouterr()
    assert code == 2
    (run,) = json.loads(out)["runs"]  # measured, printed, not lost
    assert run["status"] == "ok"
    last = err.strip().splitlines()[-1]
    assert last.startswith("perftui: error: cannot write database") and "\n" not in last
    assert "--db PATH" in last and "perftui export" in last


# ---------------------------------------------------------------- doctor --repair's question


@pytest.mark.parametrize("tty", [True, False])
def test_no_answer_to_the_repair_question_changes_nothing_with_one_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tty: bool
) -> None:
    """Issue 40 item 18: Ctrl-D at the question exited 1, a closed stdin 2."""
    from perftui.cli.entry import main

    path = build(tmp_path)
    missing_benchmarks(path)
    before = tree(tmp_path)
    monkeypatch.setattr("sys.stdin.isatty", lambda: tty)

    def no_answer(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr(builtins, "input", no_answer)
    assert main(["--db", str(path), "doctor", "--repair"]) == 1
    assert capsys.readouterr().out.strip().endswith("nothing was changed")
    assert tree(tmp_path) == before
