"""A targets write on a read-only database is refused as the store's writes are: one line
that says read-only and left untouched, exit 2, nothing written (root included: the owner's
write bit decides, as for the database)."""

from __future__ import annotations

from pathlib import Path

from perftui.targets.registry import Target, TargetBook
from tests.cli_helpers import one_error_line, perftui


def test_price_in_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "db"
    folder.chmod(0o555)
    try:
        line = one_error_line(perftui("targets", "price", "local", "1", db=db))
        assert "read-only" in line and "left untouched" in line
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)


def test_a_read_only_targets_file_is_not_replaced(tmp_path: Path) -> None:
    db = tmp_path / "db"
    TargetBook(db).add(Target("box", "user@box"))
    path = TargetBook(db).path
    before = path.read_bytes()
    path.chmod(0o444)
    for args in (("price", "box", "2"), ("remove", "box")):
        assert "read-only" in one_error_line(perftui("targets", *args, db=db))
    assert path.read_bytes() == before and path.stat().st_mode & 0o777 == 0o444
