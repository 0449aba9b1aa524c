"""Damage and tampering as a user's machine meets them (issue 23), through the real CLI where a
person would meet them: a read never writes, nothing outside the database's folder is opened,
written or deleted, a refusal writes nothing, and a killed write's temporaries are removed."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import stat
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
from tests.store_helpers import REPO, make_project, make_run, read_json

MODEL = REPO / "sample_models" / "mobilenet_fp32.onnx"


def build(tmp_path: Path) -> Path:
    """A database of projects A (the sample model on OpenVINO/CPU) and B, three runs each
    with samples and layers; a sibling folder `outside` of files older than any grace
    period."""
    path = tmp_path / "db" / "db.json"
    store = Store(path)
    store.ensure_project(make_project("A", str(MODEL), engine="openvino", device="CPU"))
    store.ensure_project(make_project("B", "/m/b.onnx"))
    for name in ("A", "B"):
        for i in range(3):
            store.add_run(make_run(name, throughput_fps=100.0 + i), np.ones(50, np.float32))
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("victim.f32.z", "victim.json.z", "notes.txt", f"{'f' * 32}.json"):
        (outside / name).write_bytes(b"keep me")
        os.utime(outside / name, (0, 0))
    return path


def tree(root: Path) -> dict[str, tuple]:
    """Every path under `root` (links not followed) with its kind and content."""
    found: dict[str, tuple] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            st = os.lstat(path)
            key = str(path.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                found[key] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                found[key] = ("dir",)
            else:
                found[key] = ("file", hashlib.sha256(path.read_bytes()).hexdigest(), st.st_mtime_ns)
    return found


def folder(path: Path, name: str = "") -> Path:
    root = path.with_name(path.name + ".d")
    return root / name if name else root


def entry(path: Path, project: str) -> tuple[dict, dict]:
    data = read_json(path)
    (found,) = [e for e in data["shards"].values() if e["project"] == project]
    return data, found


# ---------------------------------------------------------------- 1: a read never writes


def empty(path: Path) -> None:
    path.write_bytes(b"")


def braces(path: Path) -> None:
    path.write_text("{}")


def no_shards_table(path: Path) -> None:
    data = read_json(path)
    del data["shards"]
    path.write_text(json.dumps(data))


def older_copy(path: Path) -> None:
    older = path.read_bytes()
    Store(path).add_run(make_run("A"), np.ones(50, np.float32))  # a newer segment
    path.write_bytes(older)  # a backup restored beside the newer folder


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
    mark = {"token": "0123456789abcdef", "runs": ["r9"]}
    (folder(path) / "pending").write_text(json.dumps(mark))  # a write killed mid-way
    (folder(path, "samples") / "r9.f32.z").write_bytes(b"half")
    before = tree(tmp_path)
    result = perftui("projects", db=path)
    assert result.returncode == 0, result.stderr
    assert tree(tmp_path) == before
    Store(path).add_project(make_project("C", "/m/c"))  # the next write cleans up
    assert not (folder(path, "samples") / "r9.f32.z").exists()
    assert len(Store(path).runs("A")) == 3


# ---------------------------------------------------------------- 2: never outside the folder


@pytest.mark.parametrize("name", ["runs", "figures", "samples", "layers"])
def test_a_linked_folder_inside_the_database_is_never_followed(tmp_path: Path, name: str) -> None:
    path = build(tmp_path)
    moved = tmp_path / "outside" / name
    shutil.move(folder(path, name), moved)
    folder(path, name).symlink_to(moved)
    before = tree(tmp_path)
    perftui("projects", db=path)
    line = one_error_line(perftui("export", db=path))
    assert "symbolic link" in line
    with pytest.raises(StoreError, match="symbolic link"):
        Store(path).delete_project("A")
    assert tree(tmp_path) == before


def test_a_run_id_that_leads_outside_is_damage(tmp_path: Path) -> None:
    path = build(tmp_path)
    _, found = entry(path, "A")
    shard = folder(path, "runs") / found["file"]
    lines = shard.read_bytes().splitlines(keepends=True)
    item = json.loads(lines[1])
    item["run"]["id"] = "../../outside/victim"
    lines[1] = json.dumps(item).encode() + b"\n"
    shard.write_bytes(b"".join(lines))
    before = tree(tmp_path)
    for args in (("show", "A", "--json"), ("export",), ("report", "A")):
        assert "is damaged" in one_error_line(perftui(*args, db=path))
    with pytest.raises(StoreError, match="is damaged"):
        Store(path).delete_project("A")
    assert tree(tmp_path) == before


PLANTED = {"run": {"id": "x1", "project": "A", "config": {}, "throughput_fps": 777777.0}}


@pytest.mark.parametrize("where", ["absolute", "relative", "tail", "figures"])
def test_a_file_name_that_leads_outside_is_damage(tmp_path: Path, where: str) -> None:
    path = build(tmp_path)
    planted = tmp_path / "outside" / "planted.json"
    planted.write_text('{"perftui_shard":2}\n' + json.dumps(PLANTED) + "\n")
    data, found = entry(path, "A")
    name = str(planted) if where == "absolute" else "../../outside/planted.json"
    if where == "tail":
        found["tail"] = [name]
    elif where == "figures":
        found["figures"] = name
    else:
        found["file"] = name
    path.write_text(json.dumps(data))
    before = tree(tmp_path)
    for args in (("show", "A", "--json"), ("projects",)):
        result = perftui(*args, db=path)
        assert "777" not in result.stdout
        assert "is damaged" in one_error_line(result)
    assert tree(tmp_path) == before


def test_a_linked_lock_file_is_never_written_through(tmp_path: Path) -> None:
    path = build(tmp_path)
    target = tmp_path / "outside" / "notes.txt"
    path.with_name(path.name + ".lock").unlink()
    path.with_name(path.name + ".lock").symlink_to(target)
    before = tree(tmp_path)
    with pytest.raises(StoreError, match="symbolic link") as info:
        Store(path).add_project(make_project("C", "/m/c"))
    assert "\n" not in str(info.value)
    assert tree(tmp_path) == before and target.read_bytes() == b"keep me"


# ---------------------------------------------------------------- 3: a refusal writes nothing


def missing_shard(path: Path) -> None:
    _, found = entry(path, "A")
    (folder(path, "runs") / found["file"]).unlink()


def redirected_shard(path: Path) -> None:
    data, found = entry(path, "A")
    found["file"] = "../../outside/" + "f" * 32 + ".json"
    path.write_text(json.dumps(data))


def folder_is_a_file(path: Path) -> None:
    shutil.rmtree(folder(path))
    folder(path).write_text("not a folder")


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
