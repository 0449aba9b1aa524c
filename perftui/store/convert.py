"""A database of perftui 0.1 (layout 7) converted to this layout, once, by the first write
(under its lock), with its old files kept as a backup. Layout 7 is read by
perftui.store.upgrade alone; this module only stores what it reads.

The new database is built beside the old one (`<db>.converting`), then the old index is
hard-linked into the backup folder, the new files renamed into place (the index last: the
commit) and the old files moved into the backup. A kill before the commit leaves the old
database as it was (the next write builds the new one again).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from perftui.domain.errors import StoreError
from perftui.domain.records import Project, StoredBenchmark
from perftui.store.layout import projects_root
from perftui.store.runs import prepare

if TYPE_CHECKING:
    from perftui.store.database import Record, Store

__all__ = ["backup_of", "convert", "needed"]


def needed(path: Path) -> bool:
    """Whether `path` is a database of layout 7, which the next write converts."""
    try:
        from perftui.store import upgrade
    except ImportError:  # pragma: no cover (the reader of layout 7 ships with this module)
        return False
    try:
        return os.path.isfile(path) and not os.path.islink(path) and upgrade.is_layout7(path)
    except StoreError:
        return False  # not a database it reads: the reader's own check says why


def backup_of(path: Path) -> Path:
    return path.with_name(path.name + ".layout7")


def convert(store: Store, path: Path) -> str:
    """Convert the layout-7 database at `path` (the lock held); the line saying so.
    StoreError (nothing changed) if the old database cannot be read whole."""
    from perftui.store import upgrade

    staging = path.with_name(path.name + ".converting")
    _remove(staging)  # a killed conversion's
    backup = backup_of(path)
    if os.path.lexists(backup):
        raise_exists(store, backup)
    old = upgrade.layout7_files(path)
    unread: list[str] = []
    new = type(store)(staging)
    try:
        _, runs = new.merge(_records(upgrade.read_layout7(path), unread))
    except BaseException:
        _remove(staging)
        raise
    os.mkdir(backup)
    os.link(path, backup / path.name)  # the old index, kept when the new one replaces it
    if os.path.lexists(projects_root(staging)):
        os.rename(projects_root(staging), projects_root(path))
    os.replace(staging, path)  # the commit
    for item in old:
        if item != path and os.path.lexists(item):
            os.rename(item, backup / item.name)
    with contextlib.suppress(OSError):
        staging.with_name(staging.name + ".lock").unlink()
    return (
        f"database {store.path} converted from perftui 0.1's layout 7 ({runs} run(s));"
        f" the old files are kept in {backup}"
        + (f"; not converted, kept there: {'; '.join(unread)}" if unread else "")
    )


def raise_exists(store: Store, backup: Path) -> None:
    raise StoreError(
        f"database {store.path} is in layout 7 and its backup folder {backup} exists already;"
        " nothing was changed — move that folder aside, then try again"
    )


def _records(items: Iterator[object], unread: list[str]) -> Iterator[Record]:
    """The records as a merge takes them; what the old database holds that the reader yields
    no record for (its `Unread`) goes to `unread`, to be said."""
    for item in items:
        if isinstance(item, (Project, StoredBenchmark)):
            yield item
        elif isinstance(item, tuple):
            run, samples = item
            yield prepare(run, samples)
        else:
            unread.extend(getattr(item, "found", ()))


def _remove(staging: Path) -> None:
    with contextlib.suppress(OSError):
        staging.unlink()
    with contextlib.suppress(OSError):
        staging.with_name(staging.name + ".lock").unlink()
    root = projects_root(staging)
    if os.path.isdir(root) and not os.path.islink(root):
        shutil.rmtree(root, ignore_errors=True)
