"""The names the store turns into paths, checked first, and its folders, never followed.

Every name read from the main document or a shard (shard, figures and pack files, run ids)
is checked to be a bare name of the form this code writes before it becomes a path, so a
hand-edited or hostile document cannot reach outside the database's folder; the folders
inside it and the files read from them are not followed when they are symbolic links
(`lstat`, ``O_NOFOLLOW``).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import uuid
from pathlib import Path
from typing import Any

from perftui.domain.errors import StoreError

__all__ = [
    "FILE_NAME",
    "NOFOLLOW",
    "RUN_ID",
    "checked_file",
    "checked_files",
    "checked_folder",
    "checked_retired",
    "is_temp",
    "new_name",
    "read_nofollow",
]

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
"""Open flags: a symbolic link is not followed (ELOOP), no child inherits the descriptor."""
FILE_NAME = re.compile(r"[0-9a-f]{32}\.(?:json|pack)")
"""A shard, figures or pack file's name, as `new_name` makes them."""
RUN_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")
"""A run's id (as the import schema allows them)."""
RETIRED_NAMES = {
    **dict.fromkeys(("runs", "figures", "benchmarks", "packs"), FILE_NAME),
    "samples": re.compile(RUN_ID.pattern + r"\.f32\.z"),
    "layers": re.compile(RUN_ID.pattern + r"\.json\.z"),
}
"""Folder -> the names of the files a write may retire there: those this store writes, and
the payload files of layouts 2-4, which their conversion retires (perftui.store.legacy)."""
TEMP = re.compile(r"\.(?:[0-9a-f]{32}\.json|pending|stamp)\.[a-z0-9_]{8}\.tmp")
"""A temporary file `perftui.store.files.atomic_write_bytes` makes for a file of the folder
(``.<name>.<8 random characters>.tmp``; `tempfile.mkstemp`'s names)."""


def new_name(token: str, suffix: str = ".json") -> str:
    """A new file's name, starting with its write's `token` (perftui.store.recovery)."""
    return f"{token}{uuid.uuid4().hex}"[:32] + suffix


def checked_file(name: object) -> str:
    """`name` if it is a shard, figures or pack file name this store writes; else ValueError."""
    if not isinstance(name, str):
        raise ValueError(f"{_shown(name)} is not a file name of this database")
    if name in _FILE_NAMES:
        return name
    if not FILE_NAME.fullmatch(name):
        raise ValueError(f"{_shown(name)} is not a file name of this database")
    _FILE_NAMES.add(name)
    return name


_FILE_NAMES: set[str] = set()
"""The names `checked_file` found good: a write checks each entry's files several times."""


def checked_retired(folder: object, name: object) -> str:
    """`name` if it is a file of `folder` a write may retire (`RETIRED_NAMES`); else
    ValueError."""
    pattern = RETIRED_NAMES.get(folder) if isinstance(folder, str) else None
    if pattern is None or not isinstance(name, str) or not pattern.fullmatch(name):
        raise ValueError(f"{_shown(folder)}/{_shown(name)} is not a file of this database")
    return name


def checked_files(names: tuple[Any, ...]) -> tuple[str, ...]:
    """`names` if each is a name `checked_file` takes (matched in one pass); else ValueError."""
    with contextlib.suppress(TypeError):  # a name that is not text: checked_file says so
        if all(map(FILE_NAME.fullmatch, names)):
            return names
    return tuple(map(checked_file, names))


def is_temp(name: str) -> bool:
    """Whether `name` is a temporary file this code creates (and a kill may leave)."""
    return TEMP.fullmatch(name) is not None


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def checked_folder(folder: Path, shown: Path) -> Path:
    """`folder` if it is a folder or absent; StoreError if it is a symbolic link (never
    followed: it could lead outside the database's folder) or not a folder."""
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return folder
    except OSError as exc:
        raise StoreError(
            f"database {shown}: cannot read {folder} ({exc.strerror or exc}); use --db PATH"
        ) from None
    if stat.S_ISLNK(mode):
        raise StoreError(
            f"database {shown}: {folder} is a symbolic link, which perftui does not follow;"
            " it was left untouched — put the folder itself there or use --db PATH"
        )
    if not stat.S_ISDIR(mode):
        raise StoreError(
            f"database {shown}: {folder} is not a folder; it was left untouched"
            " — move it aside or use --db PATH"
        )
    return folder


def read_nofollow(path: Path, limit: int = -1) -> bytes:
    """The bytes (the first `limit` of them) of the regular file `path`, not following a
    symbolic link; OSError (ELOOP for a link) otherwise."""
    fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(21, "not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(limit)
    finally:
        os.close(fd)
