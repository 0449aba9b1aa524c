"""The results database when things go wrong: damaged, foreign, unreadable or newer files,
failed writes, and writers killed mid-write."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from perftui.domain.errors import StoreError
from perftui.store.database import Store
from tests.process_helpers import read_line
from tests.store_helpers import REPO, make_project, make_run, payload_at, read_json

# ----------------------------------------------------------------------------- damage


def test_damaged_blobs_are_store_errors(store: Store) -> None:
    store.ensure_project(make_project())
    run = store.add_run(make_run(), np.ones(3))
    payload_at(store.path, run.id).write_bytes(b"PK\x03\x04 not numpy's")
    fresh = Store(store.path)
    with pytest.raises(StoreError, match=f"{run.id}.npz of project .resnet-fp32. cannot be read"):
        fresh.get_run(run.id)
    with pytest.raises(StoreError, match=f"{run.id}.npz of project .resnet-fp32. cannot be read"):
        fresh.latency_samples(run.id)


def test_damaged_file_is_reported_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    path.write_bytes(b"{not json")
    store = Store(path)
    with pytest.raises(StoreError) as info:
        store.projects()
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"database {path} is damaged (")
    assert "it was left untouched — move it aside or use --db PATH" in message
    for action in (
        lambda: store.ensure_project(make_project()),
        lambda: store.add_project(make_project()),
        lambda: store.delete_project("x"),
        lambda: store.runs("x"),
        store.check,
    ):
        with pytest.raises(StoreError, match="damaged"):
            action()
    assert path.read_bytes() == b"{not json"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["perftui.json"]  # not even a lock


@pytest.mark.parametrize(
    "content",
    [b"[1, 2]", b'{"runs": [1]}', b'{"runs": {"1": 5}}', b"\xff\xfe{}"],
)
def test_wrong_structure_is_damaged(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "db.json"
    path.write_bytes(content)
    with pytest.raises(StoreError, match="damaged"):
        Store(path).projects()
    assert path.read_bytes() == content


def test_foreign_json_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    path.write_text('{"_default": {"1": {"x": 1}}}')
    with pytest.raises(StoreError, match="not a perftui database"):
        Store(path).ensure_project(make_project())
    assert read_json(path) == {"_default": {"1": {"x": 1}}}


def test_empty_file_counts_as_empty_database(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    path.write_bytes(b"")
    store = Store(path)
    assert store.projects() == []
    store.ensure_project(make_project())
    assert Store(path).get_project("resnet-fp32") is not None


def test_directory_as_path(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with pytest.raises(StoreError, match="is a directory") as info:
        store.projects()
    assert "\n" not in str(info.value)
    with pytest.raises(StoreError, match="is a directory"):
        store.ensure_project(make_project())
    assert not (tmp_path.parent / f"{tmp_path.name}.lock").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a chmod 000 file")
def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    Store(path).ensure_project(make_project())
    before = path.read_bytes()
    path.chmod(0)
    try:
        with pytest.raises(StoreError, match="cannot be read") as info:
            Store(path).projects()
        assert "\n" not in str(info.value)
        with pytest.raises(StoreError):
            Store(path).ensure_project(make_project("other"))
    finally:
        path.chmod(0o644)
    assert path.read_bytes() == before


UNREADABLE = textwrap.dedent(
    """
    import sys
    from perftui.domain.errors import StoreError
    from perftui.domain.records import Project
    from perftui.store.database import Store
    for action in ("read", "write"):
        store = Store(sys.argv[1])
        try:
            store.projects() if action == "read" else store.add_project(
                Project(name="other", model="/m.onnx", engine="openvino")
            )
        except StoreError as error:
            print(error)
    """
)


DROP_FILE_CAPS = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search")


def read_and_write_without_file_capabilities(
    path: Path, denied: Path
) -> subprocess.CompletedProcess[str]:
    """`UNREADABLE` on the database `path` without root's file capabilities, while `denied`
    cannot be read (a file: mode 000) or searched (a folder: mode 666)."""
    mode = stat.S_IMODE(denied.stat().st_mode)
    denied.chmod(0o666 if denied.is_dir() else 0)
    try:
        result = subprocess.run(
            [*DROP_FILE_CAPS, sys.executable, "-c", UNREADABLE, str(path)],
            env={**os.environ, "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        denied.chmod(mode)
    if result.returncode != 0 and "setpriv" in result.stderr:
        pytest.skip(f"setpriv cannot drop capabilities here: {result.stderr.strip()}")
    return result


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv"
)
def test_unreadable_file_as_root_without_file_capabilities(tmp_path: Path) -> None:
    """Root reads anything; drop CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH to see chmod 000."""
    path = tmp_path / "db.json"
    Store(path).ensure_project(make_project())
    before = path.read_bytes()
    result = read_and_write_without_file_capabilities(path, path)
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stderr
    assert len(lines) == 2 and all("cannot be read (permission denied)" in x for x in lines)
    assert path.read_bytes() == before


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv"
)
def test_a_folder_it_cannot_search_is_one_line_as_root_without_file_capabilities(
    tmp_path: Path,
) -> None:
    """A write into a folder without search permission (x): refused in one line."""
    folder = tmp_path / "no-search"
    folder.mkdir()
    result = read_and_write_without_file_capabilities(folder / "new" / "db.json", folder)
    assert result.returncode == 0, result.stderr  # a StoreError, not a PermissionError
    assert "permission denied" in result.stdout.splitlines()[-1].lower()
    assert list(folder.iterdir()) == []


def test_permission_denied_is_one_line(tmp_path: Path, monkeypatch) -> None:
    """The same path as chmod 000, simulated so that it also runs as root."""
    path = tmp_path / "db.json"
    Store(path).ensure_project(make_project())
    real_open = os.open

    def denied(file, flags, *args, **kwargs):
        if Path(file) == path:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    with pytest.raises(StoreError, match="cannot be read \\(permission denied\\)") as info:
        Store(path).projects()
    assert "\n" not in str(info.value) and "--db PATH" in str(info.value)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    content = json.dumps({"meta": {"1": {"layout": 9}}, "projects": {}})
    path.write_text(content)
    with pytest.raises(StoreError, match=r"newer perftui \(layout 9") as info:
        Store(path).projects()
    assert "\n" not in str(info.value)
    with pytest.raises(StoreError, match="newer"):
        Store(path).add_project(make_project())
    assert path.read_text() == content


# ----------------------------------------------------------------------------- atomicity


def test_failed_replace_leaves_original_intact(store: Store, monkeypatch) -> None:
    store.ensure_project(make_project())
    before = store.path.read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(StoreError, match="No space left on device") as info:
        store.add_run(make_run(), np.ones(100))
    assert "\n" not in str(info.value)
    monkeypatch.undo()
    assert store.path.read_bytes() == before
    files = [p.name for p in store.path.parent.rglob("*") if p.is_file()]
    assert sorted(files) == ["perftui.json", "perftui.json.lock"]
    assert Store(store.path).runs("resnet-fp32") == []
    assert store.runs("resnet-fp32") == []  # the cache was not updated either


def test_failed_fsync_leaves_original_intact(store: Store, monkeypatch) -> None:
    store.ensure_project(make_project())
    before = store.path.read_bytes()

    def broken_fsync(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(StoreError, match="Input/output error"):
        store.delete_project("resnet-fp32")
    monkeypatch.undo()
    assert store.path.read_bytes() == before
    assert len(list(store.path.parent.iterdir())) == 2


def test_mode_of_existing_file_is_kept(store: Store) -> None:
    store.ensure_project(make_project())
    store.path.chmod(0o600)
    store.add_run(make_run())
    assert store.path.stat().st_mode & 0o777 == 0o600


def test_symlinked_database_stays_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real" / "perftui.json"
    Store(real).ensure_project(make_project())
    link = tmp_path / "link.json"
    link.symlink_to(real)
    Store(link).add_run(make_run())
    assert link.is_symlink() and len(Store(real).runs("resnet-fp32")) == 1


WRITER = textwrap.dedent(
    """
    import sys, numpy as np
    from perftui.domain.records import Project, RunConfig, RunResult
    from perftui.store.database import Store
    path, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = Store(path)
    store.ensure_project(Project(name="p", model="/m.onnx", engine="openvino"))
    print("ready", flush=True)
    samples = np.random.default_rng(0).random(int(sys.argv[4]), dtype=np.float32)
    for i in range(count):
        store.add_run(
            RunResult(config=RunConfig(batch=i + 1), project="p", resolved={"tag": tag}),
            samples,
        )
    """
)


def _spawn_writer(path: Path, tag: str, count: int, samples: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), tag, str(count), str(samples)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_writing_at_once(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    procs = [_spawn_writer(path, tag, 50, 200) for tag in ("a", "b")]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    data = read_json(path)  # valid JSON
    runs = Store(path).runs("p")
    assert len(runs) == 100 and len({r.id for r in runs}) == 100
    for tag in ("a", "b"):
        batches = sorted(r.config.batch for r in runs if r.resolved["tag"] == tag)
        assert batches == list(range(1, 51))
    assert len(list(path.parent.glob("*.projects/*/payloads/*.npz"))) == 100
    assert len(data["projects"]) == 1
    assert all(Store(path).latency_samples(r.id).size == 200 for r in runs[:5])


STALLER = textwrap.dedent(
    """
    import os, sys, time
    from perftui.domain.records import Project, RunConfig, RunResult
    from perftui.store.database import Store

    real_fdopen = os.fdopen

    class HalfWriter:
        # writes half of the new database file, then waits to be killed

        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, payload):
            self.handle.write(payload[: len(payload) // 2])
            self.handle.flush()
            print("stalled", flush=True)
            time.sleep(60)

    def fdopen(fd, mode="r", *args, **kwargs):
        handle = real_fdopen(fd, mode, *args, **kwargs)
        return HalfWriter(handle) if "w" in mode else handle

    store = Store(sys.argv[1])
    store.ensure_project(Project(name="p", model="/m.onnx", engine="openvino"))
    for i in range(3):
        store.add_run(RunResult(config=RunConfig(batch=i + 1), project="p"), [1.0] * 1000)
    os.fdopen = fdopen
    store.add_run(RunResult(config=RunConfig(batch=99), project="p"), [2.0] * 1000)
    """
)


def test_kill_mid_write_never_leaves_a_half_file(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    proc = subprocess.Popen(
        [sys.executable, "-c", STALLER, str(path)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert read_line(proc.stdout).strip() == "stalled"
        before = path.read_bytes()
        (temp,) = [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
        assert temp.stat().st_size > 0  # the half-written payload of the new version
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert path.read_bytes() == before
    read_json(path)  # whole
    store = Store(path)
    assert sorted(r.config.batch for r in store.runs("p")) == [1, 2, 3]
    store.add_run(make_run("p"))
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]  # the next write
    assert len(Store(path).runs("p")) == 4


def test_random_kills_leave_a_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "perftui.json"
    rng = np.random.default_rng(7)
    for _ in range(2):
        proc = _spawn_writer(path, "k", 10_000, 50_000)
        assert read_line(proc.stdout).strip() == "ready"
        time.sleep(float(rng.uniform(0.05, 0.3)))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        read_json(path)
        assert Store(path).get_project("p") is not None
