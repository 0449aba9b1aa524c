"""The remote side of a target: `python -m perftui.targets.agent COMMAND` on the host.

  hold KEY NAME:SHA256... [KEY NAME:SHA256...]
                           take this machine's benchmark lock (a lease) and print its token,
                           this machine's environment (JSON), for each model (KEY) a JSON line
                           {"folder": its folder, "missing": the names missing there or stale}
                           and an empty line; keep the lock until stdin ends (several models:
                           the benchmarks a gate alternates, under one lease)
  put KEY NAME SHA256      read the file on stdin, verify its digest, then publish it
  relay TOKEN              run the benchmark worker under the lease named by TOKEN

The lease is held by one SSH session for the whole benchmark, so no other benchmark slips in
between its --repeat rounds (each round is a fresh worker, a relay of its own); it ends with the
parent, or with the connection.
The relay is what makes cancel and a lost connection safe: the worker reads its request and
then nothing more, so the relay reads the rest of the SSH channel's stdin for the parent's
"cancel" (SIGTERM to the worker: the run in progress ends as cancelled) and, at end of file
(the parent is gone, or the connection dropped), kills the worker so none is left behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
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


def _missing(key: str, wanted: list[str]) -> list[str]:
    folder = _folder(key)
    missing = []
    for item in wanted:
        name, _, sha = item.rpartition(":")
        path = _entry(folder, name)
        if not path.is_file() or file_digest(path) != sha:
            missing.append(name)
    return missing


def _lock_file() -> int:
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    return os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)


def _holder(lock: int) -> str:
    """Who holds the lock: the first line of the file (the second is the lease's token)."""
    text = os.pread(lock, 200, 0).decode("utf-8", "replace")
    return text.split("\n")[0].strip() or "another run"


def _groups(args: list[str]) -> dict[str, list[str]]:
    """`KEY NAME:SHA... KEY NAME:SHA...` by KEY: a key has no colon, a file always has one."""
    groups: dict[str, list[str]] = {}
    wanted: list[str] = []
    for arg in args:
        if ":" in arg and groups:
            wanted.append(arg)
        else:
            wanted = groups.setdefault(arg, [])
    return groups


def hold(groups: dict[str, list[str]]) -> int:
    from perftui.bench.environment import environment

    lock = _lock_file()
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"busy {_holder(lock)}", flush=True)
        return 0
    token = secrets.token_hex(16)
    os.ftruncate(lock, 0)
    os.pwrite(lock, f"perftui benchmark, pid {os.getpid()}\n{token}\n".encode(), 0)
    places = [
        json.dumps({"folder": str(_folder(key)), "missing": _missing(key, wanted)})
        for key, wanted in groups.items()
    ]
    print(f"held {token}", json.dumps(environment()), *places, "", sep="\n", flush=True)
    sys.stdin.read()  # until the parent ends the lease, or the connection drops
    return 0


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


def _lease_error(token: str) -> str | None:
    """Why the lease named by `token` does not cover a new worker (None: it does)."""
    lock = _lock_file()
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:  # held: by this benchmark's lease, or by another's
        if os.pread(lock, 200, 0).decode("utf-8", "replace").split("\n")[1:2] == [token]:
            return None
        return f"the target is busy: another benchmark is running there ({_holder(lock)})"
    finally:
        os.close(lock)  # a lock taken here is released with it
    return "the benchmark's lease on the target has ended (its connection was lost)"


def relay(token: str) -> int:
    from perftui.bench import protocol  # numpy: only the relay needs it
    from perftui.processes import child_env

    if (error := _lease_error(token)) is not None:
        print(protocol.encode(protocol.Fatal(error)), flush=True)
        return 0
    worker = subprocess.Popen(
        [sys.executable, "-m", "perftui.bench.worker"],
        stdin=subprocess.PIPE,
        text=True,
        env=child_env(),  # it dies with this relay
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
    if command == "hold":
        return hold(_groups(args))
    if command == "relay":
        return relay(args[0])
    if command != "put":
        raise SystemExit(f"unknown agent command {command!r}")
    put(*args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
