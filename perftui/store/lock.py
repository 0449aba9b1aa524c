"""The database's write lock: an exclusive ``flock`` on ``<db>.lock``, one write at a time.

The lock file is never followed (a link, or a hard link to another file, is refused: its
bytes would be replaced). A new database's write that stores nothing removes the lock file
and the folders it made (`forget`; a lock not taken removes the folders too), so a refusal
leaves no file: a waiter that then holds the removed file's lock, or meets its folder gone,
locks the file made again at the path. A folder another write made is left to it, even
when that write is refused too (two new databases in one new folder, at once).
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from perftui.atomic import NEW_FILE_MODE
from perftui.domain.errors import StoreError
from perftui.store.files import NOFOLLOW

try:  # POSIX; elsewhere the lock is a no-op (perftui targets Linux/macOS servers)
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]  # a module or None: the no-op lock

__all__ = ["LockBusy", "exclusive_lock"]


class LockBusy(StoreError):
    """Another process held the database lock for longer than the caller would wait."""


LOCK_POLL_S = 0.005
"""Every waiter retries at this one short interval, so none is favoured (a growing pause
lets a newcomer overtake a writer that has waited long) and the lock passes on quickly."""
WAIT_NOTICE_S = 1.0
"""After this long waiting, the caller is told who holds the lock (once)."""


@contextlib.contextmanager
def exclusive_lock(
    lock_path: Path,
    shown: Path,
    patience_s: float,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[Callable[[], None]]:
    """Hold an exclusive ``flock`` on `lock_path` (its folders made if missing), which then
    names this process (pid and command) for the others. After `WAIT_NOTICE_S` of waiting
    `on_wait` gets one line naming the holder; after `patience_s`, LockBusy. Yields
    `forget`: remove the lock file and the folders made for it (see the module's docstring)."""
    made: list[Path] = []
    try:
        fd = _locked(lock_path, shown, patience_s, on_wait, made)
    except BaseException:  # refused, busy or interrupted: the folders it made go
        _remove(made)
        raise

    def forget() -> None:
        if _names(lock_path, fd):  # not a lock file made since this one was removed by hand
            with contextlib.suppress(OSError):
                lock_path.unlink()
        _remove(made)

    try:
        with contextlib.suppress(OSError):
            command = " ".join(os.path.basename(a) for a in sys.argv[:3])
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} ({command})".encode(), 0)
        yield forget
    finally:
        os.close(fd)  # releases the flock


def _locked(
    lock_path: Path,
    shown: Path,
    patience_s: float,
    on_wait: Callable[[str], None] | None,
    made: list[Path],
) -> int:
    """The descriptor of the lock file at `lock_path`, its flock taken (the folders it made
    added to `made`)."""
    start = time.monotonic()
    while True:
        try:
            _make_folders(lock_path.parent, shown, made)
            fd = _open(lock_path, shown)
        except FileNotFoundError:  # its folder removed meanwhile, by a refused first write
            if not os.path.isdir(lock_path.parent) and os.path.lexists(lock_path.parent):
                raise _cannot_lock(shown, lock_path, "not a folder") from None
            if time.monotonic() - start >= patience_s:
                raise _cannot_lock(shown, lock_path, "its folder keeps being removed") from None
            time.sleep(LOCK_POLL_S)
            continue
        try:
            _wait_for(fd, shown, start, patience_s, on_wait)
        except BaseException:
            os.close(fd)
            raise
        if _names(lock_path, fd):
            return fd
        os.close(fd)  # a file `forget` removed meanwhile


def _make_folders(folder: Path, shown: Path, made: list[Path]) -> None:
    """Make `folder` and its missing parents, adding those made to `made`. StoreError if one
    cannot be made; FileNotFoundError if a parent was removed meanwhile."""
    missing = []
    while not os.path.lexists(folder):
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        try:
            os.mkdir(path)
            made.append(path)
        except FileExistsError:
            continue  # made meanwhile by another write
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise StoreError(
                f"cannot create the directory of database {shown} ({exc.strerror or exc});"
                " use --db PATH"
            ) from None


def _remove(made: list[Path]) -> None:
    """Remove the folders made for the lock, the deepest first, while they are empty."""
    for folder in sorted(set(made), key=lambda path: len(path.parts), reverse=True):
        with contextlib.suppress(OSError):  # left if another write put a file there
            folder.rmdir()


def _open(lock_path: Path, shown: Path) -> int:
    """The lock file, opened for writing without following a symbolic link (its target's
    content would be replaced); StoreError if it cannot be, FileNotFoundError if its folder
    is gone."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | NOFOLLOW, NEW_FILE_MODE)
    except FileNotFoundError:
        raise  # its folder removed meanwhile
    except OSError as exc:
        if os.path.islink(lock_path):
            raise StoreError(
                f"database {shown}: its lock file {lock_path} is a symbolic link, which perftui"
                " does not follow; nothing was written — remove the link or use --db PATH"
            ) from None
        raise _cannot_lock(shown, lock_path, exc.strerror or str(exc)) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:  # a hard link: another file's bytes
        os.close(fd)
        raise StoreError(
            f"database {shown}: its lock file {lock_path} is not a regular file of its own;"
            " nothing was written — move it aside or use --db PATH"
        )
    return fd


def _cannot_lock(shown: Path, lock_path: Path, why: str) -> StoreError:
    return StoreError(
        f"cannot lock database {shown} ({why} on {lock_path}); use --db PATH in a writable"
        " directory"
    )


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


def _holder(fd: int) -> str:
    with contextlib.suppress(OSError):
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
        if text:
            return text
    return "another perftui process"


def _names(lock_path: Path, fd: int) -> bool:
    """Whether `lock_path` is still the file `fd` locked (not removed since)."""
    try:
        st = os.lstat(lock_path)
    except OSError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)
