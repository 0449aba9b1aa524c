"""perftui.store.upgrade reads a database written by perftui 0.1's store (layout 7), made by
that store's own code (tests/fixtures/make_layout7.py at commit 5bedc5b), and finds in it
what 0.1 read back (tests/fixtures/layout7/manifest.json)."""

from __future__ import annotations

import ast
import hashlib
import json
import math
import os
import re
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from perftui.domain.errors import StoreError
from perftui.domain.measurement.figures import run_figures
from perftui.domain.records import Project, RunResult, StoredBenchmark
from perftui.store import upgrade
from perftui.store.upgrade import Unread, is_layout7, layout7_files, older_layout, read_layout7

FIXTURE = Path(__file__).parent / "fixtures" / "layout7"
NAME = "perftui.json"
MANIFEST = json.loads((FIXTURE / "manifest.json").read_text())


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A copy of the fixture's database (its lock and targets file too, not the manifest),
    in a folder of its own."""
    (tmp_path / "db").mkdir()
    for entry in FIXTURE.iterdir():
        if entry.name != "manifest.json":
            copy = shutil.copytree if entry.is_dir() else shutil.copy2
            copy(entry, tmp_path / "db" / entry.name)
    return tmp_path / "db" / NAME


def state(folder: Path) -> dict[str, tuple[int, int, bytes | None]]:
    """Every path under `folder` with its mode, modification time and bytes."""
    found = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root, name)
            st = path.lstat()
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else None
            found[str(path)] = (st.st_mode, st.st_mtime_ns, data)
    return found


def checksum(samples: np.ndarray) -> dict[str, Any]:
    data = np.ascontiguousarray(samples, dtype="<f4").tobytes()
    return {"count": len(samples), "sha256": hashlib.sha256(data).hexdigest()}


def plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def test_finds_every_project_benchmark_run_sample_and_layer_of_the_manifest(db: Path) -> None:
    items = list(read_layout7(db))
    projects = {p["project"]["name"]: p for p in MANIFEST["projects"]}
    assert not any(isinstance(item, Unread) for item in items)
    current = ""
    found_projects: dict[str, dict[str, Any]] = {}
    benchmarks: dict[str, list[dict[str, Any]]] = {}
    runs: dict[str, list[str]] = {}
    for item in items:
        if isinstance(item, Project):
            current = item.name
            found_projects[current] = item.to_dict()
            benchmarks[current], runs[current] = [], []
        elif isinstance(item, StoredBenchmark):
            assert item.project_name == current and not runs[current]  # before its runs
            benchmarks[current].append(item.to_dict())
        elif isinstance(item, tuple):
            run, samples = item
            assert isinstance(run, RunResult) and run.project == current
            runs[current].append(run.id)
            expected = MANIFEST["runs"][run.id]
            assert plain(run.to_dict()) == expected["run"]
            assert (None if samples is None else checksum(samples)) == expected["samples"]
            assert samples is None or samples.dtype == np.float32
            assert (None if run.layers is None else len(run.layers)) == expected["layers"]
    assert found_projects == {name: p["project"] for name, p in projects.items()}
    for name, project in projects.items():
        assert benchmarks[name] == project["benchmarks"]
        assert runs[name] == project["runs_stored_order"]
    assert sum(len(ids) for ids in runs.values()) == len(MANIFEST["runs"])


def test_the_fixture_is_as_varied_as_the_brief_asks() -> None:
    """What the fixture holds, so a regenerated one cannot lose it unnoticed."""
    runs = [r["run"] for r in MANIFEST["runs"].values()]
    projects = [p["project"] for p in MANIFEST["projects"]]
    environments = {json.dumps(r["resolved"].get("environment"), sort_keys=True) for r in runs}
    assert any(p["source_project"] for p in projects) and any(p["notes"] for p in projects)
    assert any(p["target"] != "local" for p in projects)
    assert any(r["status"] == "failed" for r in runs)
    assert any(r["layers"] for r in runs) and any(r["config"]["dims"] for r in runs)
    assert any(str(r["resolved"].get("label", "")).startswith("gate ") for r in runs)
    assert any("price_per_hour" in (r["resolved"].get("environment") or {}) for r in runs)
    assert len(environments) >= 4
    assert sum(r["parked"] for r in MANIFEST["runs"].values()) == 1
    assert all(r["figures"] for r in MANIFEST["runs"].values())
    assert any(p["headlines"] for p in MANIFEST["projects"])


def test_a_read_writes_nothing(db: Path) -> None:
    before = state(db.parent)
    assert is_layout7(db) and older_layout(db) is None
    assert layout7_files(db)
    assert list(read_layout7(db))
    assert state(db.parent) == before


def test_the_files_of_the_old_database(db: Path) -> None:
    """Its document and folders, not its lock nor the targets file beside it."""
    (db.parent / f".{NAME}.ab12cd34.tmp").write_bytes(b"{")  # a killed write's
    expected = [NAME, NAME + ".d", NAME + ".journal", f".{NAME}.ab12cd34.tmp"]
    assert layout7_files(db) == [db.parent / name for name in expected]
    assert (db.parent / (NAME + ".lock")).exists()
    assert (db.parent / "perftui.targets.json").exists()


def test_a_database_path_that_is_a_link_is_read_where_it_leads(db: Path, tmp_path: Path) -> None:
    """As 0.1 did: its folders are beside the real document."""
    link = tmp_path / "elsewhere" / "db.json"
    link.parent.mkdir()
    link.symlink_to(db)
    assert is_layout7(link)
    assert len([i for i in read_layout7(link) if isinstance(i, tuple)]) == len(MANIFEST["runs"])
    assert layout7_files(link)[0] == db


def test_older_and_other_layouts(tmp_path: Path) -> None:
    path = tmp_path / NAME
    assert not is_layout7(path) and older_layout(path) is None  # no database yet
    assert not is_layout7(tmp_path / "no folder" / NAME)
    path.write_text(json.dumps({"meta": {"1": {"schema_version": 5}}, "projects": {}}))
    assert older_layout(path) == 5 and not is_layout7(path)
    path.write_text(json.dumps({"projects": {"1": {"name": "a"}}}))  # not perftui 0.1's
    assert older_layout(path) is None and not is_layout7(path)
    path.write_text('{"meta": {"1": {"schema_version": 7}}, "projects": ')
    with pytest.raises(StoreError, match="not JSON"):
        is_layout7(path)
    path.write_text(json.dumps({"meta": {"1": {"schema_version": 5}}}))
    with pytest.raises(StoreError, match=r"not one of perftui 0\.1 \(layout 7\)"):
        list(read_layout7(path))


# ---------------------------------------------------------------------------- damage


def entries(db: Path) -> dict[str, dict[str, Any]]:
    return json.loads(db.read_bytes())["shards"]


def runs_file(db: Path, project: str = "mobilenet-fp32") -> Path:
    return db.parent / (NAME + ".d") / "runs" / entries(db)[project]["file"]


def edit_line(path: Path, edit: Any) -> None:
    """Change the first run line of a runs file that has samples."""
    lines = path.read_bytes().splitlines(keepends=True)
    for n, line in enumerate(lines[1:], 1):
        item = json.loads(line)
        if "samples" in item:
            edit(item)
            lines[n] = json.dumps(item, separators=(",", ":")).encode() + b"\n"
            break
    path.write_bytes(b"".join(lines))


def benchmarks_file(db: Path) -> Path:
    name = json.loads(db.read_bytes())["benchmark_file"]["1"]["name"]
    return db.parent / (NAME + ".d") / "benchmarks" / name


def cut(path: Path, keep: int) -> None:
    path.write_bytes(path.read_bytes()[:keep])


def to_outside(db: Path, path: Path) -> None:
    """Move `path` out of the database's folder and leave a link to it in its place."""
    outside = db.parent.parent / "outside" / path.name
    outside.parent.mkdir()
    shutil.move(path, outside)
    path.symlink_to(outside)


def pack_of(db: Path) -> Path:
    item = json.loads(runs_file(db).read_bytes().splitlines()[1])
    return db.parent / (NAME + ".d") / "packs" / item["samples"][1]


TAMPERS = {
    "a runs file cut mid-line": (
        lambda db: cut(runs_file(db), runs_file(db).stat().st_size // 2),
        r"runs/[0-9a-f]{32}\.json line \d+",
    ),
    "a runs file cut after a line": (
        lambda db: cut(runs_file(db), runs_file(db).read_bytes().rindex(b"\n", 0, -1) + 1),
        r"runs/[0-9a-f]{32}\.json: \d+ runs where the document counts \d+",
    ),
    "a pack entry pointing outside": (
        lambda db: edit_line(runs_file(db), lambda i: i["samples"].__setitem__(1, "../x.pack")),
        r"runs/[0-9a-f]{32}\.json line \d+: .*not a pack",
    ),
    "a pack entry past its pack's end": (
        lambda db: edit_line(runs_file(db), lambda i: i["samples"].__setitem__(2, 10**6)),
        r"packs/[0-9a-f]{32}\.pack: samples of run \w+: cut short",
    ),
    "a pack cut short": (
        lambda db: cut(pack_of(db), 10),
        r"packs/[0-9a-f]{32}\.pack: ",
    ),
    "a link in place of a pack": (
        lambda db: to_outside(db, pack_of(db)),
        r"packs/[0-9a-f]{32}\.pack: a symbolic link, not followed",
    ),
    "a link in place of a runs file": (
        lambda db: to_outside(db, runs_file(db)),
        r"runs/[0-9a-f]{32}\.json: a symbolic link, not followed",
    ),
    "a link in place of the runs folder": (
        lambda db: to_outside(db, runs_file(db).parent),
        r"perftui\.json\.d/runs: a symbolic link, not followed",
    ),
    "a missing benchmarks file": (
        lambda db: benchmarks_file(db).unlink(),
        r"benchmarks/[0-9a-f]{32}\.json: missing",
    ),
    "an entry naming a file outside": (
        lambda db: db.write_bytes(
            db.read_bytes().replace(
                entries(db)["mobilenet-int8"]["file"].encode(), b"../../../etc/passwd"
            )
        ),
        r"perftui\.json: the runs entry of 'mobilenet-int8' names a bad file",
    ),
}


@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_damage_is_one_line_naming_the_file_and_nothing_is_written(db: Path, tamper: str) -> None:
    make, said = TAMPERS[tamper]
    make(db)
    before = state(db.parent.parent)
    with pytest.raises(StoreError) as caught:
        list(read_layout7(db))
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"database {db} (layout 7) is damaged: ")
    assert re.search(said, message), message
    assert state(db.parent.parent) == before


def test_what_0_1_kept_unread_is_named_last(db: Path) -> None:
    """A runs file the document does not name, parked runs of a project that does not
    exist: 0.1 read neither; they are named (a killed write's file is not)."""
    runs = runs_file(db).parent
    shutil.copy2(runs_file(db), runs / ("f" * 32 + ".json"))
    token = "0123456789abcdef"
    (db.parent / (NAME + ".d") / "pending").write_text(json.dumps({"token": token}))
    shutil.copy2(runs_file(db), runs / (token + "0" * 16 + ".json"))
    journal = db.parent / (NAME + ".journal")
    entry = json.loads(next(journal.iterdir()).read_bytes())
    for run in entry["runs"]:
        run["project"] = "gone"
    (journal / "ffff.json").write_text(json.dumps(entry))
    (journal / "torn.json").write_text("{")
    items = list(read_layout7(db))
    assert isinstance(items[-1], Unread)
    assert not any(isinstance(item, Unread) for item in items[:-1])
    assert items[-1].found == (
        f"{NAME}.journal/torn.json: parked runs 0.1 could not read",
        f"{NAME}.journal/ffff.json: runs of a project that is no more",
        f"{NAME}.d/runs/{'f' * 32}.json: a file its document does not name",
    )
    assert len([i for i in items if isinstance(i, tuple)]) == len(MANIFEST["runs"])


def test_it_imports_none_of_the_store_it_replaces() -> None:
    tree = ast.parse(Path(upgrade.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not {m for m in imported if m and m.startswith("perftui.store")}


def test_what_it_reads_gives_each_run_the_figures_0_1_showed(db: Path) -> None:
    """A converter computes figures again from the runs and samples it reads: they are the
    ones 0.1 stored and showed (`Store.figures`, in the manifest), but for the intervals'
    fourth digit: 0.1 took Student's t from a rounded table, today's figures (METHOD 4) the
    exact quantile."""
    runs = [item for item in read_layout7(db) if isinstance(item, tuple)]
    for run, samples in runs:
        figures = plain(asdict(run_figures(run, samples)))
        assert close(figures, MANIFEST["runs"][run.id]["figures"]), run.id


def close(a: Any, b: Any) -> bool:
    """`a` and `b` equal, numbers within 1e-3 of each other (relative)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(close, a, b))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-3)
    return a == b


def test_a_file_in_place_of_a_folder_is_damage(db: Path) -> None:
    packs = db.parent / (NAME + ".d") / "packs"
    shutil.rmtree(packs)
    packs.write_bytes(b"")
    with pytest.raises(StoreError, match=r"perftui\.json\.d/packs: not a folder; it was left"):
        list(read_layout7(db))
