"""Running commands on a target with the system's `ssh` client.

`ssh` reads the person's OpenSSH configuration (host aliases, keys, the agent, jump hosts);
BatchMode keeps it from ever prompting, so perftui stores and asks for no password.
$PERFTUI_SSH replaces the `ssh` command itself (as GIT_SSH_COMMAND does for git), e.g.
`ssh -F ~/lab/ssh_config`.
Every command to a host shares one connection (OpenSSH multiplexing, its socket in a folder
private to this process): a benchmark's probe, lease, copies and repetitions pay for one handshake.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from perftui.domain.errors import InputError
from perftui.targets.registry import Target

SSH_OPTIONS = (
    "-T",
    "-o", "BatchMode=yes",
    "-o", "ConnectTimeout=10",
    # a silent network drop ends the session within ~15 s instead of hanging the run
    "-o", "ServerAliveInterval=5",
    "-o", "ServerAliveCountMax=3",
)  # fmt: skip
SSH_FAILED = 255
"""ssh's own exit status: the connection could not be made or was lost."""
NOT_FOUND = 127
"""The remote shell's status for a command it cannot find."""
PROBE_TIMEOUT_S = 30.0
CONTROL_PERSIST_S = 10
"""How long a shared connection outlives its last command (the next one reuses it)."""


class TargetError(InputError):
    """A target that cannot be reached or used; one line for a person."""

    def __init__(self, message: str, unreachable: bool = False, busy: bool = False) -> None:
        super().__init__(message)
        self.unreachable = unreachable
        self.busy = busy
        """Another benchmark holds the host."""


def ssh_command() -> list[str]:
    return shlex.split(os.environ.get("PERFTUI_SSH", "ssh"))


@functools.cache
def control_dir() -> str:
    """This process's folder (mode 0700) for the sockets of its shared connections."""
    folder = tempfile.mkdtemp(prefix="perftui-ssh-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def ssh_argv(target: Target, remote: Sequence[str]) -> list[str]:
    """The local argv that runs `remote` (argv, quoted for the remote shell) on the target."""
    shared = (
        "-o", "ControlMaster=auto",
        "-o", f"ControlPath={control_dir()}/%C",  # %C: a hash of host, port and user
        "-o", f"ControlPersist={CONTROL_PERSIST_S}",
    )  # fmt: skip
    return [*ssh_command(), *SSH_OPTIONS, *shared, "--", target.destination, shlex.join(remote)]


def python_argv(target: Target, *args: str) -> list[str]:
    return ssh_argv(target, [target.python, *args])


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no message"


def failure(target: Target, returncode: int, stderr: str) -> TargetError:
    """Why a command on the target failed, as one line."""
    if returncode == SSH_FAILED:
        return TargetError(
            f"target {target.name} ({target.destination}) is unreachable: {last_line(stderr)}",
            unreachable=True,
        )
    if returncode == NOT_FOUND:
        return TargetError(
            f"target {target.name}: {target.python} not found there; give the python that has "
            f"perftui with: perftui targets remove {target.name} && perftui targets add "
            f"{target.name} {target.destination} --python PATH"
        )
    return TargetError(f"target {target.name}: {last_line(stderr)}")


def run_python(
    target: Target,
    args: Sequence[str],
    upload: Path | None = None,
    timeout_s: float = PROBE_TIMEOUT_S,
) -> str:
    """Run the target's python with `args` (the file `upload` on its stdin) and return its
    stdout; TargetError if it fails."""
    return run_remote(target, [target.python, *args], upload, timeout_s)


def run_remote(
    target: Target,
    remote: Sequence[str],
    upload: Path | None = None,
    timeout_s: float = PROBE_TIMEOUT_S,
) -> str:
    """Run the argv `remote` on the target (the file `upload` on its stdin) and return its
    stdout; TargetError if it fails."""
    try:
        with upload.open("rb") if upload else contextlib.nullcontext(subprocess.DEVNULL) as source:
            done = subprocess.run(
                ssh_argv(target, remote), stdin=source, capture_output=True, timeout=timeout_s
            )
    except FileNotFoundError:
        raise TargetError(
            f"no ssh client: install OpenSSH ({ssh_command()[0]} not found)"
        ) from None
    except subprocess.TimeoutExpired:
        raise TargetError(
            f"target {target.name} ({target.destination}) did not answer in {timeout_s:.0f} s",
            unreachable=True,
        ) from None
    if done.returncode != 0:
        raise failure(target, done.returncode, done.stderr.decode("utf-8", "replace"))
    return done.stdout.decode("utf-8", "replace")
