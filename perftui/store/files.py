"""File-level safety of the database: atomic replacement and careful reads.

A write (under the lock: perftui.store.lock) puts the new document in a temporary file in the
same directory, fsyncs it and renames it over the database (``os.replace``), then fsyncs the
directory. A kill at any point leaves either the old or the new file.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from pathlib import Path

from perftui.domain.errors import StoreError
from perftui.store.names import NOFOLLOW

__all__ = [
    "NEW_FILE_MODE",
    "Signature",
    "atomic_write_bytes",
    "check_writable",
    "open_new",
    "read_bytes",
    "remove_orphan_temps",
    "signature",
]

Signature = tuple[int, int, int, int, int]
"""(device, inode, size, mtime, ctime): equal signatures mean an unchanged file."""


def signature(st: os.stat_result) -> Signature:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read_bytes(path: Path, shown: Path) -> tuple[bytes, Signature] | None:
    """The file's bytes and signature (None if it does not exist); StoreError if unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unreadable(shown, exc) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise _unreadable(shown, IsADirectoryError())
        if not stat.S_ISREG(st.st_mode):
            raise StoreError(f"database path {shown} is not a regular file; use --db PATH")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(), signature(st)
    except OSError as exc:
        raise _unreadable(shown, exc) from None
    finally:
        os.close(fd)


def _unreadable(shown: Path, exc: OSError) -> StoreError:
    if isinstance(exc, IsADirectoryError):
        return StoreError(
            f"database path {shown} is a directory, not a file — use --db PATH/perftui.json"
        )
    if isinstance(exc, PermissionError):
        return StoreError(
            f"database {shown} cannot be read (permission denied); it was left untouched"
            " — fix its permissions or use --db PATH"
        )
    return StoreError(f"database {shown} cannot be read ({exc.strerror or exc}); use --db PATH")


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform/filesystem allows it
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _temp_prefix(target: Path) -> str:
    return f".{target.name}."


PARK_S = 60.0
"""A temporary file in the journal older than this is a killed park's: runs are parked
without the lock (it was taken), so a younger one may be being written."""


def remove_orphan_temps(target: Path, journal: Path) -> None:
    """Delete temp files a killed writer left behind beside the database, and a killed
    park's in its `journal` folder (call only while holding the lock)."""
    settled = time.time() - PARK_S
    for folder, prefix, before in (
        (target.parent, _temp_prefix(target), float("inf")),
        (journal, ".", settled),
    ):
        with contextlib.suppress(OSError):
            for entry in folder.iterdir():
                if entry.name.startswith(prefix) and entry.name.endswith(".tmp"):
                    with contextlib.suppress(OSError):
                        if entry.lstat().st_mtime < before:
                            entry.unlink()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


NEW_FILE_MODE = 0o666 & ~_umask()
"""A new database file's mode: what the umask allows, as for any file the user creates."""


def check_writable(target: Path, shown: Path) -> None:
    """StoreError if `target` can be read but not written: no write permission for us, or
    (for root, whom permissions do not stop) no write bit for its owner. A rename would
    replace it anyway (the directory is what a rename needs). An unreadable file is left for
    the read to report."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return
    if os.access(target, os.R_OK) and (not os.access(target, os.W_OK) or not mode & stat.S_IWUSR):
        raise StoreError(
            f"database {shown} is read-only; it was left untouched"
            " — make it writable (chmod u+w) or use --db PATH"
        )


def atomic_write_bytes(target: Path, payload: bytes, *, durable: bool = True) -> None:
    """Write `payload` to `target` so that a crash leaves the old or the new file, whole (see
    the module's docstring), with the old file's mode. `durable=False` leaves the syncs to
    the caller (one sync for many files). OSError (temp file removed)."""
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(target), suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = NEW_FILE_MODE
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(target.parent)


def open_new(target: Path) -> int:
    """A descriptor of `target`, a new file opened for writing (FileExistsError if it exists;
    a link is not followed), for a file that no document names until the caller has synced
    it (a kill leaves it to recovery)."""
    return os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, NEW_FILE_MODE)
