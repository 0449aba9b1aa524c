"""A database whose lock another process holds: writers give up with a clear error after
the lock timeout and change nothing; readers are not blocked; the next write after the lock
is released goes through. The lock is held by a real second process (a flock on
``<db>.lock``, as every writing perftui process takes it)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from perftui.domain.errors import InputError, StoreError
from perftui.domain.records import Project
from perftui.store import lock
from perftui.store.database import Store
from tests.cli_helpers import one_error_line
from tests.process_helpers import read_line
from tests.store_helpers import make_project, make_run

HOLDER = textwrap.dedent(
    """
    import fcntl, os, sys
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("locked", flush=True)
    sys.stdin.read()  # hold the lock until the test closes our stdin
    """
)

SHORT_TIMEOUT_S = 0.5


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "perftui.json"
    Store(path).add_project(Project("p", "/models/p.onnx", "openvino"))
    return path


@pytest.fixture
def held(db: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the database's write lock until it is told to let go."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db) + ".lock"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    try:
        assert read_line(holder.stdout).strip() == "locked"
        yield holder
    finally:
        release(holder)


def release(holder: subprocess.Popen[str]) -> None:
    if holder.poll() is None:
        holder.communicate(timeout=30)  # closes its stdin: it exits and the lock goes


def test_a_writer_gives_up_after_the_timeout_with_a_clear_error(db: Path, held):
    store = Store(db)
    store.LOCK_TIMEOUT_S = SHORT_TIMEOUT_S
    before = db.read_bytes()
    started = time.monotonic()
    with pytest.raises(StoreError) as caught:
        store.add_project(Project("q", "/models/q.onnx", "openvino"))
    waited = time.monotonic() - started
    message = str(caught.value)
    assert "is locked by pid" in message and str(db) in message
    assert "try again" in message
    assert waited >= SHORT_TIMEOUT_S  # it waited for the lock before giving up
    assert db.read_bytes() == before  # nothing written, nothing half-written
    assert [p.name for p in Store(db).projects()] == ["p"]  # and readers are not blocked


def test_the_write_goes_through_once_the_lock_is_released(db: Path, held):
    store = Store(db)
    store.LOCK_TIMEOUT_S = SHORT_TIMEOUT_S
    with pytest.raises(StoreError):
        store.add_project(Project("q", "/models/q.onnx", "openvino"))
    release(held)
    assert held.returncode == 0
    store.add_project(Project("q", "/models/q.onnx", "openvino"))
    assert [p.name for p in Store(db).projects()] == ["p", "q"]


def test_a_writer_waits_for_a_lock_that_is_released_in_time(db: Path, held):
    # the normal case: another perftui process writes for a moment, then this write proceeds
    store = Store(db)
    store.LOCK_TIMEOUT_S = 60.0
    wrote: list[str] = []

    def write() -> None:
        store.add_project(Project("q", "/models/q.onnx", "openvino"))
        wrote.append("q")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    writer.join(0.3)
    assert writer.is_alive() and not wrote  # blocked on the lock, not failed
    release(held)
    writer.join(60)
    assert wrote == ["q"] and [p.name for p in Store(db).projects()] == ["p", "q"]


CLI_WITH_SHORT_TIMEOUT = (
    "import sys; from perftui.store.database import Store;"
    f" Store.LOCK_TIMEOUT_S = {SHORT_TIMEOUT_S};"
    " from perftui.cli import main; sys.exit(main(sys.argv[1:]))"
)


def test_the_cli_reports_a_locked_database_in_one_line(db: Path, held, tmp_path: Path):
    exported = tmp_path / "export.json"
    cli = [sys.executable, "-c", CLI_WITH_SHORT_TIMEOUT]
    out = subprocess.run(
        [*cli, "export", "-o", str(exported), "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr  # reading takes no lock
    before = db.read_bytes()
    result = subprocess.run(
        [*cli, "import", str(exported), "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    line = one_error_line(result)
    assert "is locked by pid" in line, line
    assert db.read_bytes() == before


NAMELESS = Project("", "/models/p.onnx", "openvino")
"""An import's project refused inside its write (the lock taken, the folders made)."""


def test_a_refused_first_write_leaves_neither_lock_nor_folder(tmp_path: Path):
    path = tmp_path / "new" / "deeper" / "perftui.json"
    with pytest.raises(InputError, match="needs a name"):
        Store(path).merge([NAMELESS])
    assert list(tmp_path.iterdir()) == []  # the folders it made are gone with the lock file


def test_a_refused_import_into_a_new_database_writes_nothing(tmp_path: Path):
    cut = tmp_path / "cut.json"
    cut.write_text('{"perftui_export": 1, "projects": [{"name": "a"\n')
    new = tmp_path / "new" / "db.json"
    result = subprocess.run(
        [sys.executable, "-m", "perftui", "--db", str(new), "import", str(cut)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "cut.json" in one_error_line(result)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.json"]


def test_a_waiter_on_a_removed_lock_file_locks_the_file_made_again(tmp_path: Path):
    path = tmp_path / "new" / "perftui.json"
    first, second = Store(path), Store(path)
    second.LOCK_TIMEOUT_S = 60.0
    inside, refuse = threading.Event(), threading.Event()
    wrote: list[str] = []

    def refused_write() -> None:
        with contextlib.suppress(InputError), first._transaction():
            inside.set()
            refuse.wait(30)
            raise InputError("refused")

    def waiting_write() -> None:
        second.add_project(Project("q", "/models/q.onnx", "openvino"))
        wrote.append("q")

    holder = threading.Thread(target=refused_write, daemon=True)
    holder.start()
    assert inside.wait(30)
    waiter = threading.Thread(target=waiting_write, daemon=True)
    waiter.start()
    waiter.join(0.3)
    assert waiter.is_alive()  # waiting on the lock file the refused write removes
    refuse.set()
    holder.join(30)
    waiter.join(60)
    assert wrote == ["q"] and [p.name for p in Store(path).projects()] == ["q"]
    assert (tmp_path / "new" / "perftui.json.lock").exists()


def refused_write_holding(path: Path, refuse: threading.Event) -> threading.Thread:
    """A thread inside a first write of `path` (the lock held) until `refuse` is set, which
    it then refuses."""
    inside = threading.Event()

    def write() -> None:
        with contextlib.suppress(InputError), Store(path)._transaction():
            inside.set()
            refuse.wait(30)
            raise InputError("refused")

    holder = threading.Thread(target=write, daemon=True)
    holder.start()
    assert inside.wait(30)
    return holder


def test_two_refused_first_writes_in_turn_leave_no_folder(tmp_path: Path):
    path = tmp_path / "new" / "deeper" / "perftui.json"
    refuse = threading.Event()
    holder = refused_write_holding(path, refuse)
    refused: list[str] = []

    def refused_run() -> None:
        try:
            Store(path).merge([NAMELESS])
        except InputError as exc:
            refused.append(str(exc))

    waiter = threading.Thread(target=refused_run, daemon=True)
    waiter.start()
    waiter.join(0.3)
    assert waiter.is_alive()  # waiting for the lock, its folders made by the first
    refuse.set()
    holder.join(30)
    waiter.join(30)
    assert len(refused) == 1 and "needs a name" in refused[0]
    assert list(tmp_path.iterdir()) == []  # the second made them again, and removed them


def test_a_write_whose_folder_a_refused_write_removes_before_it_locks_goes_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "new" / "perftui.json"
    refuse, gone = threading.Event(), threading.Event()
    opened = lock._open

    def late_open(lock_path: Path, shown: Path) -> int:
        if threading.current_thread().name == "late":  # its folder found, not yet its lock
            refuse.set()
            assert gone.wait(30)
        return opened(lock_path, shown)

    holder = refused_write_holding(path, refuse)
    monkeypatch.setattr(lock, "_open", late_open)
    late = threading.Thread(
        target=lambda: Store(path).add_project(Project("q", "/q.onnx", "openvino")), name="late"
    )
    late.start()
    holder.join(30)
    assert not path.parent.exists()  # the refused write removed the folder the late one found
    gone.set()
    late.join(30)
    assert [p.name for p in Store(path).projects()] == ["q"]


def test_a_run_of_no_project_is_refused_not_parked_while_the_lock_is_held(db: Path, held):
    store = Store(db)
    store.LOCK_TIMEOUT_S = SHORT_TIMEOUT_S
    with pytest.raises(InputError, match="no project named 'nope'"):
        store.add_run(make_run("nope"))
    assert not db.with_name(db.name + ".journal").exists()  # nothing parked for later


def test_a_lock_that_cannot_be_taken_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    def full(lock_path: Path, shown: Path) -> int:  # as a full disk refuses the lock file
        raise StoreError(f"cannot lock database {shown} (No space left on device)")

    monkeypatch.setattr(lock, "_open", full)
    with pytest.raises(StoreError, match="No space left"):
        Store(tmp_path / "new" / "deeper" / "perftui.json").add_project(make_project("q"))
    assert list(tmp_path.iterdir()) == []


def test_a_refused_write_leaves_a_lock_file_made_after_its_own_was_deleted(tmp_path: Path):
    """A user deleted the lock file while a write held it, and another write locked a new
    one: the first, refused, must not remove that one (a third would get in beside it)."""
    path = tmp_path / "new" / "perftui.json"
    lock_file = path.with_name(path.name + ".lock")
    first_refuse, second_refuse = threading.Event(), threading.Event()
    first = refused_write_holding(path, first_refuse)
    lock_file.unlink()
    second = refused_write_holding(path, second_refuse)
    held = lock_file.stat().st_ino
    first_refuse.set()
    first.join(30)
    assert lock_file.stat().st_ino == held  # the second's, still there while it holds it
    second_refuse.set()
    second.join(30)
    assert not lock_file.exists()  # its own, removed by the second
