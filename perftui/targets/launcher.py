"""The benchmark worker on a target: the same JSON-lines protocol over an SSH channel.

The remote end is perftui.targets.agent's relay, which runs the worker under the benchmark's
lease on the host's lock (perftui.targets.lease) and keeps the channel's stdin open for a
"cancel" line; killing the local `ssh` closes the channel, and the relay then kills the worker.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perftui.bench.client import Launcher, spawn_piped
from perftui.domain.measurement.cost import with_price
from perftui.domain.records import BenchmarkRequest
from perftui.processes import exit_description
from perftui.targets.lease import Lease
from perftui.targets.probe import ready_environment, version_error
from perftui.targets.registry import LOCAL, Target, TargetBook
from perftui.targets.ssh import SSH_FAILED, TargetError, python_argv
from perftui.targets.transfer import AGENT, Placed, manifest, place_model


class SshLauncher:
    def __init__(
        self,
        target: Target,
        environment: dict[str, Any],
        placed: Placed,
        lease: Lease,
        owner: bool = True,
    ) -> None:
        self.target = target
        self.placed = placed
        self.lease = lease
        self.owner = owner
        """Whether close() ends the lease (a shared one is ended by whoever opened it)."""
        self._environment = environment

    def spawn(self) -> subprocess.Popen[str]:
        return spawn_piped(python_argv(self.target, *AGENT, "relay", self.lease.token))

    def close(self) -> None:
        if self.owner:
            self.lease.close()

    def send(self, process: subprocess.Popen[str], message: dict[str, Any]) -> None:
        """The request with the model's path on the target; stdin stays open for cancel."""
        assert process.stdin is not None
        project = {**message["request"]["project"], "model": self.placed.model}
        remote = {**message, "request": {**message["request"], "project": project}}
        self._write(process, json.dumps(remote))

    def cancel(self, process: subprocess.Popen[str]) -> None:
        self._write(process, "cancel")

    @staticmethod
    def _write(process: subprocess.Popen[str], line: str) -> None:
        assert process.stdin is not None
        with contextlib.suppress(BrokenPipeError, ValueError):  # the connection is gone
            process.stdin.write(line + "\n")
            process.stdin.flush()

    def environment(self) -> dict[str, Any]:
        return self._environment

    def death_message(self, returncode: int, last_line: str) -> str:
        where = f"target {self.target.name} ({self.target.destination})"
        if returncode == SSH_FAILED:
            return f"the connection to {where} was lost: {last_line}"
        return f"the benchmark worker on {where} died ({exit_description(returncode)}): {last_line}"


class Priced:
    """A launcher whose runs record the machine's price per hour in their environment (so a
    later change of the price does not rewrite what past runs cost)."""

    def __init__(self, inner: Launcher, price_per_hour: float) -> None:
        self.inner = inner
        self.price_per_hour = price_per_hour

    def spawn(self) -> subprocess.Popen[str]:
        return self.inner.spawn()

    def send(self, process: subprocess.Popen[str], message: dict[str, Any]) -> None:
        self.inner.send(process, message)

    def cancel(self, process: subprocess.Popen[str]) -> None:
        self.inner.cancel(process)

    def environment(self) -> dict[str, Any]:
        return with_price(self.inner.environment(), self.price_per_hour)

    def death_message(self, returncode: int, last_line: str) -> str:
        return self.inner.death_message(returncode, last_line)

    def close(self) -> None:
        self.inner.close()


def priced(launcher: Launcher, db_path: Path, target: str) -> Launcher:
    """`launcher`, recording the price of `target` (LOCAL: this machine) when one is set."""
    price = TargetBook(db_path).price(target)
    return launcher if price is None else Priced(launcher, price)


def open_target(
    target: Target, request: BenchmarkRequest, notify: Callable[[str], None]
) -> SshLauncher:
    """Check the target can run `request`, take its lock for the whole benchmark and place
    its model there; TargetError if not (busy included). The launcher's close() ends the lease."""
    return _open(target, [request], notify, owner=True)[1][0]


def open_shared(
    target: Target, requests: list[BenchmarkRequest], notify: Callable[[str], None]
) -> tuple[Lease, list[SshLauncher]]:
    """As open_target, for benchmarks alternated on one host (a gate's two sides) under ONE
    lease: their launchers' close() leaves it held; the caller closes the lease, at the end."""
    return _open(target, requests, notify, owner=False)


def _open(
    target: Target,
    requests: list[BenchmarkRequest],
    notify: Callable[[str], None],
    owner: bool,
) -> tuple[Lease, list[SshLauncher]]:
    if any(request.data is not None for request in requests):
        raise TargetError("--data is not sent to targets yet; measure on synthetic inputs there")
    models = [manifest(Path(request.project.model)) for request in requests]
    try:
        lease = Lease(target, *models)
    except TargetError as error:
        if error.unreachable or error.busy:
            raise
        ready_environment(target)  # why the host cannot hold a lease: no perftui, another one
        raise
    placed: dict[str, Placed] = {}
    try:
        if (mismatch := version_error(target, lease.environment)) is not None:
            raise TargetError(mismatch)
        for files in models:
            if files.key not in placed:
                place = lease.places[files.key]
                placed[files.key] = place_model(target, files, place.folder, place.missing, notify)
    except BaseException:
        lease.close()
        raise
    for sent in placed.values():
        if sent.sent_bytes:
            notify(
                f"model placed on {target.name}: {sent.sent_bytes / 2**20:.1f} MiB "
                f"in {sent.seconds:.1f} s"
            )
    environment = {**lease.environment, "target": target.name}
    launchers = [
        SshLauncher(target, environment, placed[files.key], lease, owner) for files in models
    ]
    return lease, launchers


def target_launcher(
    request: BenchmarkRequest, db_path: Path, notify: Callable[[str], None] = lambda _: None
) -> SshLauncher | None:
    """The launcher for the target the request's project names (targets of the database at
    `db_path`); None for this machine."""
    if request.project.target == LOCAL:
        return None
    return open_target(TargetBook(db_path).get(request.project.target), request, notify)
