"""The remote side of a target: `python -m perftui.targets.agent COMMAND` on the host.

  has KEY NAME:SHA256...   print the model folder, then the names missing from it (or stale)
  put KEY NAME SHA256      read the file on stdin, verify its digest, then publish it
  relay                    run the benchmark worker while this machine's lock is held

The relay is what makes cancel and a lost connection safe: the worker reads its request and
then nothing more, so the relay reads the rest of the SSH channel's stdin for the parent's
"cancel" (SIGTERM to the worker: the run in progress ends as cancelled) and, at end of file
(the parent is gone, or the connection dropped), kills the worker so none is left behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

CHUNK = 1 << 20
LOCK_NAME = "bench.lock"


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "perftui"


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _folder(key: str) -> Path:
    if not key.isalnum():
        raise SystemExit(f"bad model key {key!r}")
    return cache_root() / "models" / key


def _entry(folder: Path, name: str) -> Path:
    path = (folder / name).resolve()
    if folder.resolve() not in path.parents:
        raise SystemExit(f"bad file name {name!r}")
    return path


def has(key: str, wanted: list[str]) -> None:
    folder = _folder(key)
    print(folder)
    for item in wanted:
        name, _, sha = item.rpartition(":")
        path = _entry(folder, name)
        if not path.is_file() or file_digest(path) != sha:
            print(name)


def put(key: str, name: str, sha: str) -> None:
    path = _entry(_folder(key), name)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.part")
    digest = hashlib.sha256()
    try:
        with temp.open("wb") as out:
            while chunk := sys.stdin.buffer.read(CHUNK):
                digest.update(chunk)
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != sha:
            raise SystemExit(f"{name} arrived damaged (sha256 {digest.hexdigest()}, sent {sha})")
        os.replace(temp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def relay() -> int:
    from perftui.bench import protocol  # numpy: only the relay needs it

    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    lock = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(lock, 200, 0).decode("utf-8", "replace").strip() or "another run"
        busy = protocol.Fatal(f"the target is busy: another benchmark is running there ({holder})")
        print(protocol.encode(busy), flush=True)
        return 0
    os.ftruncate(lock, 0)
    os.pwrite(lock, f"perftui relay pid {os.getpid()}".encode(), 0)
    worker = subprocess.Popen(
        [sys.executable, "-m", "perftui.bench.worker"], stdin=subprocess.PIPE, text=True
    )  # its stdout and stderr are this process's: the SSH channel
    assert worker.stdin is not None
    worker.stdin.write(sys.stdin.readline())
    worker.stdin.close()

    def watch() -> None:
        for line in sys.stdin:
            if line.strip() == "cancel" and worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        if worker.poll() is None:  # the channel closed: nobody will read this worker
            worker.kill()

    threading.Thread(target=watch, daemon=True).start()
    returncode = worker.wait()
    return returncode if returncode >= 0 else 128 - returncode


def main(argv: list[str]) -> int:
    command, args = argv[0], argv[1:]
    if command == "has":
        has(args[0], args[1:])
    elif command == "put":
        put(*args)
    elif command == "relay":
        return relay()
    else:
        raise SystemExit(f"unknown agent command {command!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
