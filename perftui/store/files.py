"""Files as the store touches them: never through a symbolic link, replaced atomically
(perftui.atomic: a kill at any moment leaves the old file or the new one, whole), and read
without ever being opened for writing. `FileStorage` is TinyDB's Storage on these terms.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from tinydb.storages import Storage

from perftui.atomic import atomic_write_bytes, staged
from perftui.domain.errors import StoreError
from perftui.store.codec import dump_json

__all__ = [
    "NOFOLLOW",
    "FileStorage",
    "check_folder",
    "check_writable",
    "read_nofollow",
    "stamp",
]

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def stamp(path: Path) -> tuple[int, ...] | None:
    """What changes whenever the file is replaced (None if it is missing): a cheap change check."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read_nofollow(path: Path) -> bytes:
    """The bytes of the regular file `path`, opened read-only and not through a link;
    OSError (ELOOP for a link) otherwise."""
    fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError(21, "not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def check_folder(folder: Path, shown: Path) -> Path:
    """`folder` if it is a folder or absent; StoreError if it is a link (never followed) or
    something else."""
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return folder
    except OSError as exc:
        raise StoreError(
            f"database {shown}: cannot read {folder} ({exc.strerror or exc})"
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


def check_writable(path: Path, shown: Path) -> None:
    """StoreError if the file can be read but not written: no write permission for us, or
    (for root, whom permissions do not stop) no write bit for its owner. A rename would
    replace it anyway; a read-only database is the user's way of saying it must not be."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if os.access(path, os.R_OK) and (not os.access(path, os.W_OK) or not mode & stat.S_IWUSR):
        raise StoreError(
            f"database {shown} is read-only; it was left untouched"
            " — make it writable (chmod u+w) or use --db PATH"
        )


class FileStorage(Storage):
    """TinyDB's Storage for one file of the database: read once when opened (a snapshot:
    every table reads the same version), read-only unless `writable`, written atomically.

    A missing file reads as empty; a file that is not TinyDB's JSON, a link or unreadable is
    StoreError (one line, naming the file), and it is left as it is.
    """

    def __init__(
        self,
        path: Path,
        shown: Path,
        writable: bool = False,
        durable: bool = True,
        stage: list[tuple[str, Path]] | None = None,
    ) -> None:
        """With `stage`, a write leaves the new file as a temporary one, added to `stage` as
        (temporary file, path) for the caller to rename."""
        self.path, self.shown, self.writable = path, shown, writable
        self.durable, self.stage = durable, stage
        self.data = None if stage is not None else load_tables(path, shown)

    def read(self) -> dict[str, Any] | None:
        return self.data

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        if not self.writable:
            raise StoreError(f"database {self.shown}: {self.path.name} is open for reading only")
        if self.stage is None:
            atomic_write_bytes(self.path, dump_json(data), durable=self.durable)
        else:
            self.stage.append((staged(self.path, dump_json(data), durable=self.durable), self.path))
        self.data = data

    def close(self) -> None:
        pass


def damaged(shown: Path, path: Path, what: str) -> StoreError:
    return StoreError(
        f"database {shown} is damaged ({path.name} {what}); it was left untouched"
        " — move it aside or use --db PATH (`perftui doctor` says more)"
    )


def load_tables(path: Path, shown: Path) -> dict[str, Any] | None:
    """TinyDB's tables in `path` (None if it does not exist), each checked to be a table."""
    try:
        raw = read_nofollow(path)
    except FileNotFoundError:
        return None
    except PermissionError:
        raise StoreError(
            f"database {shown} cannot be read (permission denied"
            f"{'' if path.name == shown.name else ' on ' + path.name}); it was left untouched"
            " — fix its permissions or use --db PATH"
        ) from None
    except OSError as exc:
        if exc.errno == getattr(os, "ELOOP", -1) or os.path.islink(path):
            raise damaged(
                shown, path, "is a symbolic link, which perftui does not follow"
            ) from None
        raise damaged(shown, path, f"cannot be read ({exc.strerror or exc})") from None
    if not raw.strip():
        return None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise damaged(shown, path, "is not JSON (cut short or overwritten)") from None
    if not isinstance(data, dict):
        raise damaged(shown, path, "is not a TinyDB database (no tables)")
    for name, table in data.items():
        if not isinstance(table, dict) or not all(
            isinstance(doc, dict) and key.isdigit() for key, doc in table.items()
        ):
            raise damaged(shown, path, f"has a malformed table {name!r}")
    return data
