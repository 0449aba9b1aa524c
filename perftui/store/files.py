"""File-level safety of the database: an exclusive lock file, atomic replacement, careful reads.

A write takes an exclusive ``flock`` on ``<db>.lock``; the new document goes to a temporary
file in the same directory, is fsynced and renamed over the database (``os.replace``), then
the directory is fsynced. A kill at any point leaves either the old or the new file.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from perftui.domain.errors import StoreError
from perftui.store.names import NOFOLLOW

try:  # POSIX; elsewhere the lock is a no-op (perftui targets Linux/macOS servers)
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "LockBusy",
    "Signature",
    "atomic_write_bytes",
    "check_writable",
    "exclusive_lock",
    "open_lock",
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


class LockBusy(StoreError):
    """Another process held the database lock for longer than the caller would wait."""


LOCK_POLL_S = 0.005
"""Every waiter retries at this one short interval, so none is favoured (a growing pause
lets a newcomer overtake a writer that has waited long) and the lock passes on quickly."""
WAIT_NOTICE_S = 1.0
"""After this long waiting, the caller is told who holds the lock (once)."""


def _holder(fd: int) -> str:
    with contextlib.suppress(OSError):
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
        if text:
            return text
    return "another perftui process"


def open_lock(lock_path: Path, shown: Path) -> int:
    """The lock file, opened for writing without following a symbolic link (its target's
    content would be replaced); StoreError if it cannot be."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | NOFOLLOW, NEW_FILE_MODE)
    except OSError as exc:
        if os.path.islink(lock_path):
            raise StoreError(
                f"database {shown}: its lock file {lock_path} is a symbolic link, which perftui"
                " does not follow; nothing was written — remove the link or use --db PATH"
            ) from None
        raise StoreError(
            f"cannot lock database {shown} ({exc.strerror or exc} on {lock_path});"
            " use --db PATH in a writable directory"
        ) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:  # a hard link: another file's bytes
        os.close(fd)
        raise StoreError(
            f"database {shown}: its lock file {lock_path} is not a regular file of its own;"
            " nothing was written — move it aside or use --db PATH"
        )
    return fd


@contextlib.contextmanager
def exclusive_lock(
    lock_path: Path,
    shown: Path,
    patience_s: float,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[Callable[[], None]]:
    """Hold an exclusive ``flock`` on `lock_path`, which then names this process (pid and
    command) for the others. After `WAIT_NOTICE_S` of waiting `on_wait` gets one line naming
    the holder; after `patience_s`, LockBusy. Yields `forget`, which removes the lock file (a
    new database's write that stored nothing): a waiter that then gets the lock of the removed
    file locks the file at its path again."""
    start = time.monotonic()
    while True:
        with contextlib.suppress(OSError):  # removed with the lock file it held: made again
            lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = open_lock(lock_path, shown)
        try:
            _wait_for(fd, shown, start, patience_s, on_wait)
        except BaseException:
            os.close(fd)
            raise
        if _names(lock_path, fd):
            break
        os.close(fd)
    try:
        with contextlib.suppress(OSError):
            command = " ".join(os.path.basename(a) for a in sys.argv[:3])
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} ({command})".encode(), 0)
        yield lambda: _forget(lock_path)
    finally:
        os.close(fd)  # releases the flock


def _wait_for(
    fd: int, shown: Path, start: float, patience_s: float, on_wait: Callable[[str], None] | None
) -> None:
    """Take the flock of `fd`, polling (`LOCK_POLL_S`) until `patience_s` since `start`."""
    if fcntl is None:  # pragma: no cover
        return
    noticed = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            waited = time.monotonic() - start
            if waited >= patience_s:
                raise LockBusy(
                    f"database {shown} is locked by {_holder(fd)}"
                    f" (waited {waited:.0f} s); try again"
                ) from None
            if not noticed and waited >= WAIT_NOTICE_S and on_wait is not None:
                on_wait(f"waiting for database {shown}, in use by {_holder(fd)}")
                noticed = True
            time.sleep(LOCK_POLL_S)


def _names(lock_path: Path, fd: int) -> bool:
    """Whether `lock_path` is still the file `fd` locked (not removed by `forget` since)."""
    try:
        st = os.lstat(lock_path)
    except OSError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def _forget(lock_path: Path) -> None:
    with contextlib.suppress(OSError):
        lock_path.unlink()
