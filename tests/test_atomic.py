"""perftui.atomic: the one way a file is replaced (the store, the export, the INT8 publish)."""

import os
from pathlib import Path

import pytest

from perftui import atomic


def _counting_fsync(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Record each fsync: True for a folder, False for a file."""
    calls: list[bool] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        calls.append(os.path.isdir(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def test_a_write_syncs_the_file_then_its_folder(tmp_path: Path, monkeypatch):
    calls = _counting_fsync(monkeypatch)
    target = tmp_path / "a.json"
    target.write_bytes(b"old")
    target.chmod(0o600)
    atomic.atomic_write_bytes(target, b"new")
    assert calls == [False, True]
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o600
    assert os.listdir(tmp_path) == ["a.json"]


def test_replacing_syncs_and_replaces_only_when_the_block_ends(tmp_path: Path, monkeypatch):
    calls = _counting_fsync(monkeypatch)
    target = tmp_path / "export.json"
    with atomic.replacing(target, encoding="utf-8") as out:
        out.write("模型")
        assert not target.exists()
    assert calls == [False, True]
    assert target.read_text(encoding="utf-8") == "模型"


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path: Path):
    target = tmp_path / "export.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic.replacing(target) as out:
        out.write(b"half")
        raise RuntimeError("cut short")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["export.json"]


def test_a_failed_rename_leaves_no_temporary_file(tmp_path: Path):
    target = tmp_path / "folder"
    target.mkdir()
    (target / "inside").write_text("x")  # a non-empty folder cannot be replaced by a file
    with pytest.raises(OSError):
        atomic.atomic_write_bytes(target, b"new")
    assert sorted(os.listdir(tmp_path)) == ["folder"]


def test_an_export_to_a_file_is_synced_before_it_replaces_the_old_one(tmp_path: Path, monkeypatch):
    from perftui.cli.entry import main

    out = tmp_path / "out.json"
    out.write_text("old")
    calls = _counting_fsync(monkeypatch)
    assert main(["export", "--db", str(tmp_path / "db.json"), "-o", str(out)]) == 0
    assert calls == [False, True]
    assert out.read_text() != "old"
    assert sorted(os.listdir(tmp_path)) == ["out.json"]
