"""Damage and tampering as a user's machine meets them (issue 23), through the real CLI where a
person would meet them: a read never writes, nothing outside the database's folder is opened,
written or deleted, a refusal writes nothing, and a killed write's temporaries are removed."""

from __future__ import annotations

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
    MODEL,
    REPO,
    as_layout6,
    braces,
    build,
    empty,
    entry,
    file_outside,
    folder,
    folder_is_a_file,
    link_folder,
    link_lock,
    make_project,
    make_run,
    missing_shard,
    no_shards_table,
    older_copy,
    read_json,
    redirected_shard,
    run_id_outside,
    tree,
)

# ---------------------------------------------------------------- 1: a read never writes


@pytest.mark.parametrize("damage", [empty, braces, no_shards_table, older_copy])
def test_a_document_that_does_not_name_its_files_is_damage_and_nothing_changes(
    tmp_path: Path, damage
) -> None:
    path = build(tmp_path)
    damage(path)
    before = tree(tmp_path)
    for args in (("projects",), ("show", "A"), ("export",)):
        line = one_error_line(perftui(*args, db=path))
        assert "is damaged" in line and "nothing was changed" in line, line
    with pytest.raises(StoreError, match="is damaged"):
        Store(path).add_run(make_run("A"), np.ones(5))
    assert tree(tmp_path) == before  # nothing written, nothing deleted


def test_a_read_after_a_killed_write_writes_nothing(tmp_path: Path) -> None:
    path = build(tmp_path)
    mark = {"token": "0123456789abcdef"}
    (folder(path) / "pending").write_text(json.dumps(mark))  # a write killed mid-way
    half = folder(path, "packs") / f"0123456789abcdef{'9' * 16}.pack"
    half.write_bytes(b"half")
    before = tree(tmp_path)
    result = perftui("projects", db=path)
    assert result.returncode == 0, result.stderr
    assert tree(tmp_path) == before
    Store(path).add_project(make_project("C", "/m/c"))  # the next write cleans up
    assert not half.exists()
    assert len(Store(path).runs("A")) == 3


# ---------------------------------------------------------------- 2: never outside the folder


@pytest.mark.parametrize("name", ["runs", "figures", "packs", "benchmarks"])
def test_a_linked_folder_inside_the_database_is_never_followed(tmp_path: Path, name: str) -> None:
    path = build(tmp_path)
    link_folder(path, name)
    before = tree(tmp_path)
    perftui("projects", db=path)
    line = one_error_line(perftui("export", db=path))
    assert "symbolic link" in line
    with pytest.raises(StoreError, match="symbolic link"):
        Store(path).delete_project("A")
    assert tree(tmp_path) == before


@pytest.mark.parametrize("what", ["id", "pack"])
def test_a_run_id_or_pack_that_leads_outside_is_damage(tmp_path: Path, what: str) -> None:
    path = build(tmp_path)
    run_id_outside(path, what)
    before = tree(tmp_path)
    for args in (("show", "A", "--json"), ("export",), ("report", "A")):
        assert "is damaged" in one_error_line(perftui(*args, db=path))
    with pytest.raises(StoreError, match="is damaged"):
        Store(path).delete_project("A")
    assert tree(tmp_path) == before


@pytest.mark.parametrize("where", ["absolute", "relative", "tail", "figures"])
def test_a_file_name_that_leads_outside_is_damage(tmp_path: Path, where: str) -> None:
    path = build(tmp_path)
    file_outside(path, where)
    before = tree(tmp_path)
    for args in (("show", "A", "--json"), ("projects",)):
        result = perftui(*args, db=path)
        assert "777" not in result.stdout
        assert "is damaged" in one_error_line(result)
    assert tree(tmp_path) == before


def test_a_linked_lock_file_is_never_written_through(tmp_path: Path) -> None:
    path = build(tmp_path)
    target = link_lock(path)
    before = tree(tmp_path)
    with pytest.raises(StoreError, match="symbolic link") as info:
        Store(path).add_project(make_project("C", "/m/c"))
    assert "\n" not in str(info.value)
    assert tree(tmp_path) == before and target.read_bytes() == b"keep me"


# ---------------------------------------------------------------- 3: a refusal writes nothing


@pytest.mark.parametrize("damage", [missing_shard, redirected_shard, folder_is_a_file])
def test_bench_is_refused_before_it_measures_or_writes(tmp_path: Path, damage) -> None:
    path = build(tmp_path)
    damage(path)
    before = tree(tmp_path)
    result = perftui("bench", str(MODEL), "--project", "A", *QUICK, db=path)
    one_error_line(result)
    assert "measur" not in result.stderr.lower() and not result.stdout
    assert tree(tmp_path) == before


# ---------------------------------------------------------------- 4: killed writes' temporaries

STALLER = textwrap.dedent(
    """
    import os, sys, time
    import numpy as np
    from perftui.store.database import Store
    from tests.store_helpers import make_run

    real_replace = os.replace

    def replace(src, dst):  # the shard's temporary is whole: wait to be killed before its rename
        if os.path.basename(os.path.dirname(dst)) == "runs":
            print("stalled", flush=True)
            time.sleep(60)
        real_replace(src, dst)

    store = Store(sys.argv[1])
    os.replace = replace
    store.add_runs([(make_run("A"), np.ones(50, np.float32)) for _ in range(20)])
    """
)


def test_the_next_write_removes_the_temporaries_a_killed_import_left(tmp_path: Path) -> None:
    path = build(tmp_path)
    foreign = [folder(path, "runs") / "notes.txt", folder(path, "runs") / ".mine.tmp"]
    for made in foreign:
        made.write_bytes(b"not the store's")
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
    temps = [p for p in folder(path).rglob("*.tmp") if p not in foreign]
    assert temps  # what the kill left
    before = tree(tmp_path)
    assert len(Store(path).runs("A")) == 3 and tree(tmp_path) == before  # a read leaves it
    Store(path).add_project(make_project("C", "/m/c"))
    assert not [p for p in temps if p.exists()] and all(p.exists() for p in foreign)
    assert not (folder(path) / "pending").exists()
    assert not list(folder(path, "samples").glob("*.f32.z"))[6:]  # the killed runs' are gone


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


def test_a_document_an_earlier_version_wrote_keeps_the_files_it_left_unnamed(
    tmp_path: Path,
) -> None:
    path = build(tmp_path)
    as_layout6(path)  # as documents were written before "named_files"
    left = folder(path, "figures") / ("e" * 32 + ".json")
    left.write_text("{}")  # superseded, not removed yet by that version
    before = path.read_bytes()
    assert len(Store(path).runs("A")) == 3  # read as it is: it cannot tell
    assert path.read_bytes() == before
    Store(path).add_project(make_project("C", "/m/c"))
    data = read_json(path)
    assert left.name in {d["name"] for d in data["unclaimed"].values()}
    assert all(doc["schema_version"] == 7 for doc in data["meta"].values())
    assert left.exists() and len(Store(path).runs("A")) == 3  # kept, never removed
    (folder(path, "runs") / ("d" * 32 + ".json")).write_text("{}")
    with pytest.raises(StoreError, match="is damaged"):  # now it can tell
        Store(path).projects()


def test_doctor_shows_then_adds_back_the_runs_an_older_document_lost(tmp_path: Path) -> None:
    path = build(tmp_path)
    older_copy(path)
    before = tree(tmp_path)
    shown = perftui("doctor", db=path)
    assert shown.returncode == 1 and "add 1 run(s) back to project 'A'" in shown.stdout
    asked = perftui("doctor", "--repair", db=path)  # not a terminal: it will not ask
    assert "give --yes" in one_error_line(asked)
    assert tree(tmp_path) == before  # neither wrote anything
    done = perftui("doctor", "--repair", "--yes", db=path)
    assert done.returncode == 0 and done.stdout.strip().endswith(": sound"), done.stdout
    assert len(Store(path).runs("A")) == 4 and len(Store(path).runs("B")) == 3
    gone = set(before) - set(tree(tmp_path))
    assert not gone  # nothing deleted: the files read are retired, removed after a while


def test_doctor_will_not_hide_the_runs_of_an_emptied_document(tmp_path: Path) -> None:
    path = build(tmp_path)
    empty(path)
    before = tree(tmp_path)
    result = perftui("doctor", "--repair", "--yes", db=path)
    assert result.returncode == 1 and "restore the document from a copy" in result.stdout
    assert "leave 3 run(s) of project 'A'" in result.stdout
    assert tree(tmp_path) == before


def test_a_deleted_runs_files_stay_for_readers_of_the_document_before(tmp_path: Path) -> None:
    path = build(tmp_path)
    run = Store(path).runs("A")[0]
    before = Store(path)._read()  # a reader (the dashboard) holding the previous document
    Store(path).delete_run(run.id)
    assert before.latency_samples(run.id) is not None  # retired, not removed at once
    assert Store(path).get_run(run.id) is None
    data = read_json(path)
    for doc in data["retired"].values():
        doc["at"] = 0.0  # retired long ago
    path.write_text(json.dumps(data))
    Store(path).add_project(make_project("C", "/m/c"))
    assert not list(folder(path).rglob(f"{run.id}.*"))


@pytest.mark.parametrize("record", [{"folder": 5, "name": "x", "at": 0}, {"folder": "runs"}])
def test_a_malformed_retired_record_is_damage_even_without_the_folder(
    tmp_path: Path, record: dict
) -> None:
    path = tmp_path / "db.json"
    Store(path).ensure_project(make_project("A", "/m/a"))  # no run: no folder beside it
    data = json.loads(path.read_text())
    data["retired"] = {"1": record}
    path.write_text(json.dumps(data))
    before = tree(tmp_path)
    with pytest.raises(StoreError, match="is damaged") as info:
        Store(path).ensure_project(make_project("B", "/m/b"))
    assert "\n" not in str(info.value) and tree(tmp_path) == before
    line = one_error_line(perftui("projects", db=path))
    assert "is damaged" in line


def test_an_entry_without_its_figures_file_name_is_computed_from_its_runs(
    tmp_path: Path,
) -> None:
    path = build(tmp_path)
    expected = Store(path).summaries()
    data, found = entry(path, "A")
    (folder(path, "figures") / found.pop("figures")).unlink()
    path.write_text(json.dumps(data))
    assert Store(path).summaries() == expected
    Store(path).add_run(make_run("A"), np.ones(5))
    assert len(Store(path).runs("A")) == 4


def test_doctor_says_a_killed_write_waits_for_the_next_write(tmp_path: Path) -> None:
    path = build(tmp_path)
    assert perftui("doctor", db=path).stdout.strip().endswith(": sound")
    (folder(path) / "pending").write_text(json.dumps({"token": "0123456789abcdef"}))
    before = tree(tmp_path)
    result = perftui("doctor", db=path)
    assert result.returncode == 0 and "write was interrupted" in result.stdout
    assert tree(tmp_path) == before  # said, not done: the next write removes it
    Store(path).add_project(make_project("C", "/m/c"))
    assert "interrupted" not in perftui("doctor", db=path).stdout
