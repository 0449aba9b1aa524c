"""File-level safety of the database: an exclusive lock file, atomic replacement, careful reads.

A write takes an exclusive ``flock`` on ``<db>.lock``; the new document goes to a temporary
file in the same directory, is fsynced and renamed over the database (``os.replace``), then
the directory is fsynced. A kill at any point leaves either the old or the new file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from perftui.domain.errors import StoreError

try:  # POSIX; elsewhere the lock is a no-op (perftui targets Linux/macOS servers)
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "Signature",
    "atomic_write_bytes",
    "digest",
    "exclusive_lock",
    "read_bytes",
    "remove_orphan_temps",
    "signature",
]

Signature = tuple[int, int, int, int, int]
"""(device, inode, size, mtime, ctime): equal signatures mean an unchanged file."""


def signature(st: os.stat_result) -> Signature:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def digest(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()  # hardware-accelerated on current CPUs


def read_bytes(path: Path, shown: Path) -> tuple[bytes, Signature] | None:
    """The file's bytes and signature (None if it does not exist); StoreError if unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise StoreError(
            f"database path {shown} is a directory, not a file — use --db PATH/perftui.json"
        ) from None
    except PermissionError:
        raise StoreError(
            f"database {shown} cannot be read (permission denied); it was left untouched"
            " — fix its permissions or use --db PATH"
        ) from None
    except OSError as exc:
        raise StoreError(
            f"database {shown} cannot be read ({exc.strerror or exc}); use --db PATH"
        ) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        if stat.S_ISDIR(st.st_mode):
            raise StoreError(
                f"database path {shown} is a directory, not a file — use --db PATH/perftui.json"
            )
        raise StoreError(f"database path {shown} is not a regular file; use --db PATH")
    with os.fdopen(fd, "rb") as handle:
        try:
            raw = handle.read()
        except OSError as exc:
            raise StoreError(
                f"database {shown} cannot be read ({exc.strerror or exc}); use --db PATH"
            ) from None
    return raw, signature(st)


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform/filesystem allows it
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _temp_prefix(target: Path) -> str:
    return f".{target.name}."


def remove_orphan_temps(target: Path) -> None:
    """Delete temp files a killed writer left behind (call only while holding the lock)."""
    with contextlib.suppress(OSError):
        for entry in target.parent.iterdir():
            name = entry.name
            if name.startswith(_temp_prefix(target)) and name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    entry.unlink()


def atomic_write_bytes(target: Path, payload: bytes) -> os.stat_result:
    """Write `payload` to `target` so that a crash leaves the old or the new file, whole.

    Temp file in the same directory, flush + fsync, keep the old file's mode, os.replace,
    fsync the directory. Returns the new file's stat. Raises OSError (temp file removed).
    """
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(target), suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)
    return os.stat(target)


@contextlib.contextmanager
def exclusive_lock(lock_path: Path, shown: Path, timeout_s: float) -> Iterator[None]:
    """Hold an exclusive ``flock`` on `lock_path`; StoreError after `timeout_s` of waiting."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StoreError(
            f"cannot lock database {shown} ({exc.strerror or exc} on {lock_path});"
            " use --db PATH in a writable directory"
        ) from None
    try:
        if fcntl is not None:
            deadline = time.monotonic() + timeout_s
            delay = 0.001
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise StoreError(
                            f"database {shown} is locked by another perftui process"
                            f" (waited {timeout_s:.0f} s); try again"
                        ) from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.05)
        yield
    finally:
        os.close(fd)  # releases the flock
