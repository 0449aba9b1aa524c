"""One benchmark on several hosts at once: `perftui bench --target local,a,b` and the
dashboard's Targets field run it this one way.

Each host runs its share alone (its client holds the host's lease) and the hosts run at the
same time, one thread each following its own client; every event comes out tagged with its
host. A host that cannot start, or drops mid-matrix, fails only its own share; the others go
on, and each finished run is stored as it finishes through one store whose calls are serialized
(one writer). Each host's runs go to its own project: `NAME@host`, this machine's `NAME`.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from perftui.bench import protocol
from perftui.domain.errors import InputError
from perftui.targets.registry import LOCAL

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

    from perftui.bench.alternate import Measured
    from perftui.domain.records import BenchmarkRequest, Project, RunConfig, RunResult
    from perftui.store.database import Store

WAIT_S = 0.2
"""How long `Fleet.events` waits for news before it yields None (the caller's turn)."""


def host_request(request: BenchmarkRequest, host: str) -> BenchmarkRequest:
    """The request as `host` runs it: its project `NAME@host` (this machine's: `NAME`), where
    NAME is the project's name without the `@target` of a project made for one target."""
    project = request.project
    base = project.name
    if project.target != LOCAL:
        base = base.removesuffix(f"@{project.target}")
    name = base if host == LOCAL else f"{base}@{host}"
    return replace(request, project=replace(project, name=name, target=host))


class SerialStore:
    """The store as several hosts' clients write it: one call at a time. `add_run` may be
    replaced (the CLI keeps the runs unsaved once a write fails)."""

    def __init__(
        self,
        store: Store,
        add_run: Callable[[RunResult, np.ndarray | None], RunResult] | None = None,
    ) -> None:
        self.store = store
        self.path: Path = store.path
        self._add_run = add_run or store.add_run
        self.lock = threading.Lock()

    def ensure_project(self, project: Project) -> Project:
        with self.lock:
            return self.store.ensure_project(project)

    def add_benchmark(self, request: BenchmarkRequest) -> str:
        with self.lock:
            return self.store.add_benchmark(request)

    def add_run(self, run: RunResult, samples_ms: np.ndarray | None) -> RunResult:
        with self.lock:
            return self._add_run(run, samples_ms)


@dataclass
class Share:
    """One host's part of the benchmark."""

    host: str
    request: BenchmarkRequest
    client: Measured | None = None
    error: str | None = None
    """Why the host could not start or stopped (its unreported runs each fail with it)."""
    samples: dict[int, Any] = field(default_factory=dict)
    """Each finished run's latency samples as reported, by the run's id()."""

    @property
    def done(self) -> int:
        return 0 if self.client is None else len(self.client.runs)

    def unreported(self) -> list[tuple[int, RunConfig]]:
        """The runs a failed share never reported: (index, configuration) each."""
        if self.error is None:
            return []
        total = self.request.total_runs
        return [(n, self.request.scheduled(n)[1]) for n in range(self.done, total)]


@dataclass(frozen=True)
class HostEvent:
    host: str
    event: protocol.Event | str | None
    """A client's event, a line said while the host is opened (a model copied there), or
    None: the share has ended (its `error` says why when it failed)."""


Opener = Callable[[Share, Callable[[str], None]], "Measured"]
"""Makes a share's client (takes the host's lease, places the model); lines go to the
callable. Raises what stops the host from starting."""


def shares(request: BenchmarkRequest, hosts: list[str]) -> list[Share]:
    return [Share(host, host_request(request, host)) for host in hosts]


class Fleet:
    """The shares' clients, run at once, cancelled and killed together."""

    def __init__(self, shares: list[Share], open_client: Opener) -> None:
        self.shares = shares
        self.open_client = open_client
        self.cancelled = False
        self._lock = threading.Lock()
        self._queue: queue.Queue[HostEvent] = queue.Queue()

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            clients = [share.client for share in self.shares]
        for client in clients:
            if client is not None:
                client.cancel()

    def kill(self) -> None:
        for share in self.shares:
            if share.client is not None:
                share.client.kill()

    def events(self, wait_s: float = WAIT_S) -> Iterator[HostEvent | None]:
        """Start every share and yield their events as they come; None after `wait_s` without
        any. Ends when every share has ended (each ends with a HostEvent of None)."""
        by_host = {share.host: share for share in self.shares}
        threads = [
            threading.Thread(target=self._run, args=(share,), daemon=True) for share in self.shares
        ]
        for thread in threads:
            thread.start()
        running = len(threads)
        while running:
            try:
                item = self._queue.get(timeout=wait_s)
            except queue.Empty:
                yield None
                continue
            share, event = by_host[item.host], item.event
            if event is None:
                running -= 1
            elif isinstance(event, protocol.Fatal):
                share.error = event.error
            elif isinstance(event, protocol.RunFinished):
                share.samples[id(event.run)] = event.samples_ms
            yield item
        for thread in threads:
            thread.join()

    def _run(self, share: Share) -> None:
        """Open the host, then follow its client; (host, None) ends the share whatever
        happened."""
        say = lambda line: self._queue.put(HostEvent(share.host, line))  # noqa: E731
        try:
            if self.cancelled:
                share.error = "cancelled before it started"
                return
            client = self.open_client(share, say)
            with self._lock:
                share.client = client
                if self.cancelled:
                    client.cancel()
            for event in client.events():
                self._queue.put(HostEvent(share.host, event))
        except (InputError, OSError) as error:
            share.error = str(error)
        except Exception as error:  # a bug: this host's share ends, the others go on
            share.error = f"{type(error).__name__}: {error}"
        finally:
            self._queue.put(HostEvent(share.host, None))
