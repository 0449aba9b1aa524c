"""Files replaced atomically, the one way: the new bytes go to a temporary file in the same
folder, which is fsynced, renamed over the old one (``os.replace``), and the folder fsynced. A
kill at any moment leaves the old file or the new one, whole, with the old file's mode; a
failure leaves no temporary file. The store, the export (`perftui export -o`), the INT8 publish
and the targets' registry write through it."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = [
    "NEW_FILE_MODE",
    "TEMP",
    "atomic_write_bytes",
    "commit",
    "fsync_dir",
    "replacing",
    "staged",
    "staging",
]

TEMP = ".tmp-"
"""Prefix of the temporary files a write makes (a killed write's are removed by the store's
next write)."""


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


NEW_FILE_MODE = 0o666 & ~_umask()
"""A new file's mode: what the umask allows, as for any file the user creates."""


def fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every filesystem allows it
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def staging(
    path: Path,
    *,
    durable: bool = True,
    beside: Path | None = None,
    encoding: str | None = None,
) -> Iterator[tuple[str, IO[Any]]]:
    """(temporary file, its handle) beside `path` (or in the folder `beside`, of the same
    file system); text with `encoding`, else bytes. When the block ends, the file is flushed,
    fsynced (`durable`), closed and given `path`'s mode (a new file's if it is missing; a
    link is not followed); if it raises, the temporary file is removed."""
    fd, tmp = tempfile.mkstemp(prefix=TEMP, suffix=".tmp", dir=beside or path.parent)
    try:
        with os.fdopen(fd, "w" if encoding else "wb", encoding=encoding) as handle:
            yield tmp, handle
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        try:
            mode = stat.S_IMODE(os.lstat(path).st_mode)
        except FileNotFoundError:
            mode = NEW_FILE_MODE
        os.chmod(tmp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def staged(path: Path, payload: bytes, *, durable: bool = True, beside: Path | None = None) -> str:
    """A temporary file (see `staging`) holding `payload`, to `commit` over `path`."""
    with staging(path, durable=durable, beside=beside) as (tmp, handle):
        handle.write(payload)
    return tmp


def commit(tmp: str, path: Path, *, durable: bool = True) -> None:
    """Rename the staged `tmp` over `path` and fsync the folder (`durable`); OSError, with
    `tmp` removed."""
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_dir(path.parent)


def atomic_write_bytes(path: Path, payload: bytes, *, durable: bool = True) -> None:
    """Replace `path` by `payload`. `durable=False` leaves the syncs to the caller (one
    `os.sync` for many files). OSError, with the temporary file removed."""
    commit(staged(path, payload, durable=durable), path, durable=durable)


@contextlib.contextmanager
def replacing(path: Path, *, encoding: str | None = None) -> Iterator[IO[Any]]:
    """A handle whose writes replace `path` when the block ends without an exception
    (text with `encoding`, else bytes); if it raises, `path` is left as it was."""
    with staging(path, encoding=encoding) as (tmp, handle):
        yield handle
    commit(tmp, path)
