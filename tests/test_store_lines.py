"""Layout 7: the projects and their entries a line each, keyed by name (perftui.store.
document). A write rewrites the lines of its own project alone; a stamped document is read a
line at a time and a damaged line is still found; a layout-6 document is converted once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import InputError, StoreError
from perftui.store import recovery
from perftui.store.database import Store
from perftui.store.files import signature
from perftui.store.payloads import Payloads
from tests.store_helpers import (
    REPO,
    as_layout4,
    as_layout6,
    build,
    make_project,
    make_run,
    read_json,
    restamp,
    shard_bytes,
)


def _lines(path: Path) -> dict[bytes, bytes]:
    """The document's record lines by their start (table lines are told apart by order)."""
    found: dict[bytes, bytes] = {}
    table = b""
    for line in path.read_bytes().splitlines():
        if line.endswith(b":{"):
            table = line.rsplit(b'"', 2)[-2]
        elif line.startswith(b'"'):
            found[table + b"/" + line.split(b":", 1)[0]] = line
    return found


def test_an_append_rewrites_the_line_of_its_project_alone(tmp_path: Path) -> None:
    path = build(tmp_path)
    store = Store(path)
    store.ensure_project(make_project("C", "/m/c.onnx"))
    before = _lines(path)
    store.add_run(make_run("A"), np.ones(20, np.float32))
    after = _lines(path)
    assert set(after) == set(before)
    assert [key for key in after if after[key] != before[key]] == [b'shards/"A"']
    assert json.loads(after[b'shards/"A"'].split(b":", 1)[1].rstrip(b","))["count"] == 4


def test_a_damaged_line_of_a_stamped_document_is_found_when_read(tmp_path: Path) -> None:
    """The stamp vouches for the bytes; a line read is still checked: the entry of B made a
    list (stamp forged to match) is damage when B is read, and nothing is written."""
    path = build(tmp_path)
    raw = path.read_bytes()
    line = _lines(path)[b'shards/"B"']
    path.write_bytes(raw.replace(line, b'"B":[1,2]' + (b"," if line.endswith(b",") else b"")))
    restamp(path)
    damaged = path.read_bytes()
    assert len(Store(path).runs("A")) == 3  # A's line alone is read
    with pytest.raises(StoreError, match=r"damaged \(table 'shards' is not a table of doc"):
        Store(path).runs("B")
    with pytest.raises(StoreError, match="damaged"):
        Store(path).add_run(make_run("B"), np.ones(5))
    assert path.read_bytes() == damaged


def test_a_layout6_document_is_converted_once_with_a_backup(tmp_path: Path) -> None:
    path = build(tmp_path)
    original = as_layout6(path, named_files=True)
    said: list[str] = []
    store = Store(path, notify=said.append)
    assert [p.name for p in store.projects()] == ["A", "B"]
    assert len(store.runs("B")) == 3 and path.read_bytes() == original  # a read writes nothing
    store.add_run(make_run("B"), np.ones(5))
    assert len(said) == 1 and "layout 7" in said[0] and "layout6.bak" in said[0]
    assert path.with_name("db.json.layout6.bak").read_bytes() == original
    assert list(read_json(path)["shards"]) == ["A", "B"]
    assert [len(Store(path).runs(name)) for name in "AB"] == [3, 4]


def test_a_line_that_is_not_json_is_damage_whatever_the_stamp(tmp_path: Path) -> None:
    """A byte of B's entry changed in place (its size kept: a file system that keeps times
    to the second, or the stamp forged): the stamp's checksum no longer matches, and with it
    forged too, reading B is damage in one line, as `doctor` says, and nothing is written."""
    path = build(tmp_path)
    line, before = _lines(path)[b'shards/"B"'], path.read_bytes()
    path.write_bytes(before.replace(line, line.replace(b'"count":', b'"count"=')))
    stamp = recovery.document_identity(signature(os.stat(path)), before)  # its old bytes
    recovery.record_stamp(Payloads(path.parent.resolve() / path.name), stamp)
    with pytest.raises(StoreError, match=r"damaged \(Expecting ':' delimiter at line 6"):
        Store(path).runs("A")  # not stamped as it is: read whole
    restamp(path)
    damaged = path.read_bytes()
    assert len(Store(path).runs("A")) == 3
    with pytest.raises(StoreError, match=r"record 'B' of table 'shards': Expecting ':'"):
        Store(path).runs("B")
    problem, _ = Store(path).diagnose()
    assert "damaged (Expecting ':' delimiter" in problem and "\n" not in problem
    assert path.read_bytes() == damaged


def test_doctor_checks_every_line_of_a_stamped_document(tmp_path: Path) -> None:
    path = build(tmp_path)
    line = _lines(path)[b'projects/"B"']
    path.write_bytes(path.read_bytes().replace(line, b'"B":{"name":"B"}'))
    restamp(path)
    assert "project document 'B' lacks name/model/engine" in Store(path).diagnose()[0]


def test_a_name_that_cannot_be_written_is_no_project(tmp_path: Path) -> None:
    """A lone surrogate (the CLI makes one of bytes that are not UTF-8) names no project of a
    document read a line at a time, as of one read whole."""
    path = build(tmp_path)
    store = Store(path)
    assert store.get_project("\udcff") is None and store.runs("\udcff") == []
    with pytest.raises(InputError, match="not valid text"):
        store.ensure_project(make_project("\udcff"))


def test_a_layout6_document_s_benchmarks_stay_in_their_file(tmp_path: Path) -> None:
    """Layout 6 kept the benchmarks in a file of their own, as this one does: read from it
    before the first write, and kept by a first write that edits them (a rename)."""
    path = build(tmp_path)
    (stored,) = Store(path).project_benchmarks("A")
    as_layout6(path, named_files=True)
    assert [b.id for b in Store(path).project_benchmarks("A")] == [stored.id]
    Store(path).rename_project("A", "A2")
    (renamed,) = Store(path).project_benchmarks("A2")
    assert renamed.id == stored.id


def _as_earlier_layout4(path: Path) -> None:
    """The database as layout 4 kept it, written before documents named every file."""
    as_layout4(path)
    data = read_json(path)
    for doc in data["meta"].values():
        doc.pop("named_files", None)
    path.write_text(json.dumps(data))


KILLED_WRITE = """
import os, sys
import perftui.store.database_file as database_file
from perftui.store.database import Store
from tests.store_helpers import make_project
database_file.dump = lambda data: os._exit(9)  # killed before its document is written
Store(sys.argv[1]).add_project(make_project("C", "/m/c"))
"""


def test_a_killed_conversion_s_files_are_removed_by_the_next_write(tmp_path: Path) -> None:
    """The files of a conversion killed before its commit are its token's, not files an
    earlier version left unnamed: the next write removes them, none is kept as unclaimed."""
    path = build(tmp_path)
    _as_earlier_layout4(path)
    killed = subprocess.run([sys.executable, "-c", KILLED_WRITE, str(path)], cwd=REPO)
    assert killed.returncode == 9
    packs = path.with_name("db.json.d") / "packs"
    assert len(os.listdir(packs)) == 2  # the killed write's, one per project
    Store(path).add_project(make_project("C", "/m/c"))
    assert not read_json(path).get("unclaimed")
    lines = b"".join(shard_bytes(path).values())
    named = {name for name in os.listdir(packs) if name.encode() in lines}
    assert set(os.listdir(packs)) == named and len(named) == 2


@pytest.mark.parametrize("table", ["retired", "benchmark_file"])
def test_an_earlier_document_s_malformed_file_record_is_damage_in_one_line(
    tmp_path: Path, table: str
) -> None:
    path = build(tmp_path)
    _as_earlier_layout4(path)
    data = read_json(path)
    data.setdefault(table, {})["99"] = {"folder": "runs", "name": ["x"], "at": 0}
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"damaged \(.*is not a file (name )?of this database"):
        Store(path).runs("A")
    assert path.read_bytes() == before
