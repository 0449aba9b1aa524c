"""A real OpenSSH server on the loopback address for target tests.

Started on a free port with a host key and an authorized client key generated in a temporary
folder, and reached through a generated ssh config whose Host alias the tests use as the
target's destination (proving aliases work). Nothing listens beyond 127.0.0.1.
"""

from __future__ import annotations

import fcntl
import getpass
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None)
MISSING = "OpenSSH server not installed (apt-get install openssh-server openssh-client)"
ALIAS = "perftui-test-host"
CLOSED = "perftui-test-closed"
"""An alias for a loopback port where nothing listens."""


@dataclass(frozen=True)
class Server:
    process: subprocess.Popen[bytes]
    port: int
    config: Path
    """An ssh_config with Host ALIAS; give it to perftui as PERFTUI_SSH="ssh -F CONFIG"."""

    @property
    def ssh(self) -> str:
        return f"ssh -F {self.config}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _keygen(path: Path) -> None:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
    )


@contextmanager
def sshd(folder: Path) -> Iterator[Server]:
    assert SSHD is not None, MISSING
    folder.mkdir(parents=True, exist_ok=True)
    _keygen(folder / "host_key")
    _keygen(folder / "client_key")
    (folder / "authorized_keys").write_text((folder / "client_key.pub").read_text())
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation folder
    port = _free_port()
    config = folder / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {folder / 'host_key'}\n"
        f"AuthorizedKeysFile {folder / 'authorized_keys'}\nPidFile {folder / 'sshd.pid'}\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
        "StrictModes no\nPermitRootLogin prohibit-password\nLogLevel ERROR\n"
        f"AllowUsers {getpass.getuser()}\nAcceptEnv XDG_CACHE_HOME\n"
    )
    client = folder / "ssh_config"
    client.write_text(
        f"Host {ALIAS}\n  HostName 127.0.0.1\n  Port {port}\n  User {getpass.getuser()}\n"
        f"  IdentityFile {folder / 'client_key'}\n  IdentitiesOnly yes\n"
        "  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n"
        # the "remote" cache (models, the benchmark lock) of this server alone
        f"  SetEnv XDG_CACHE_HOME={folder / 'remote-cache'}\n"
        f"Host {CLOSED}\n  HostName 127.0.0.1\n  Port {_free_port()}\n"
    )
    process = subprocess.Popen(
        [SSHD, "-D", "-e", "-f", str(config)],
        stdin=subprocess.DEVNULL,
        stderr=open(folder / "sshd.log", "wb"),  # noqa: SIM115 - closed with the server
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None:
                raise RuntimeError((folder / "sshd.log").read_text())
            time.sleep(0.05)
        yield Server(process, port, client)
    finally:
        process.terminate()
        process.wait(10)


def children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(child) for child in found.stdout.split()]


def descendants(pid: int) -> list[int]:
    """Every process below `pid`: for the server, its sessions and what they run."""
    found = children(pid)
    return found + [below for child in found for below in descendants(child)]


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def lock_is_free(server: Server) -> bool:
    """Whether nobody holds the server's benchmark lock (tried as another benchmark would)."""
    path = server.config.parent / "remote-cache" / "perftui" / "bench.lock"
    if not path.exists():
        return True
    with path.open("rb") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
