"""`perftui bench MODEL --target local,h1,h2`: one benchmark matrix on several machines at once.

Each host runs its share alone (a benchmark holds its host's lock, perftui.targets.lease) and
the hosts run at the same time, one thread each following its own worker; each host's runs go
to the host's own project (`NAME@host`, as a single `--target` names it). A host that cannot
start, or drops mid-matrix, fails its own runs with one line each; the others go on, and every
finished run is stored as it finishes (one writer: the store's calls are serialized here).
"""

from __future__ import annotations

import argparse
import queue
import sys
import threading
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TextIO

from perftui.cli.common import CliError, Exit, db_path, open_store, print_json, run_document

if TYPE_CHECKING:
    import numpy as np

    from perftui.bench.client import BenchmarkClient
    from perftui.domain.records import BenchmarkRequest, RunResult
    from perftui.store import Store


def hosts_of(text: str) -> list[str]:
    """The hosts of a `--target` list, in order, each once; CliError for an empty one."""
    hosts = [host.strip() for host in text.split(",")]
    if not all(hosts):
        raise CliError(f"--target {text!r}: give target names separated by commas")
    return list(dict.fromkeys(hosts))


class SerialStore:
    """The store as several hosts' clients write it: one call at a time; once a write fails,
    the runs that follow are kept unsaved (as `bench` does) instead of lost with the error."""

    def __init__(self, store: Store) -> None:
        from perftui.cli.bench import KeepMeasured

        self.kept = KeepMeasured(store)
        self.lock = threading.Lock()

    def ensure_project(self, project: Any) -> Any:
        with self.lock:
            return self.kept.store.ensure_project(project)

    def add_benchmark(self, request: Any) -> str:
        with self.lock:
            return self.kept.store.add_benchmark(request)

    def add_run(self, run: RunResult, samples_ms: np.ndarray | None) -> RunResult:
        with self.lock:
            return self.kept.add_run(run, samples_ms)


@dataclass
class Share:
    """One host's part of the matrix."""

    host: str
    request: BenchmarkRequest
    client: BenchmarkClient | None = None
    error: str | None = None
    """Why the host could not start (its runs then each fail with this line)."""
    samples: dict[int, Any] = field(default_factory=dict)


class Fleet:
    """Every host's client, cancelled and killed together (perftui.cli.interrupts)."""

    def __init__(self, shares: list[Share]) -> None:
        self.shares = shares
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True
        for share in self.shares:
            if share.client is not None:
                share.client.cancel()

    def kill(self) -> None:
        for share in self.shares:
            if share.client is not None:
                share.client.kill()


class HostStream:
    """A stream that starts each line with its host's name (progress per host)."""

    def __init__(self, stream: TextIO, host: str) -> None:
        self.stream, self.host = stream, host

    def write(self, text: str) -> int:
        return self.stream.write(f"{self.host}: {text}")

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False  # one line per run: bars of several hosts would overwrite each other


def _run_share(
    share: Share, args: argparse.Namespace, store: SerialStore | None, events: queue.Queue
) -> None:
    """Open the host (lease, model copy), then follow its worker; every event goes to `events`
    with the host's name, and (host, None) ends the share whatever happened."""
    from perftui.bench.client import BenchmarkClient
    from perftui.cli.targets import bench_target
    from perftui.domain.errors import InputError
    from perftui.targets.launcher import priced

    try:
        one = argparse.Namespace(**{**vars(args), "target": share.host, "project": True})
        notify = lambda line: events.put((share.host, line))  # noqa: E731
        request, launcher = bench_target(one, share.request, None, notify)
        if store is None:
            client = BenchmarkClient(request, None, launcher)
        else:
            with store.lock:  # the project and benchmark records: one writer
                client = BenchmarkClient(request, store.kept.store, launcher)
            client.store = store  # type: ignore[assignment]
        client.launcher = priced(client.launcher, db_path(args), share.host)
        share.client = client
        for event in client.events():
            events.put((share.host, event))
    except (CliError, InputError, OSError) as error:
        share.error = str(error)
    except Exception as error:  # a bug: this host's share ends, the others go on
        share.error = f"{type(error).__name__}: {error}"
    finally:
        events.put((share.host, None))


def cmd_fleet(args: argparse.Namespace, request: BenchmarkRequest) -> int:
    """Run `request` on each host of `--target` at once; the exit status of the whole."""
    from perftui.bench.protocol import Fatal, RunFinished
    from perftui.cli.interrupts import StopSignals
    from perftui.cli.progress import ProgressPrinter
    from perftui.cli.targets import check_conflict
    from perftui.targets.registry import LOCAL, TargetBook

    hosts = hosts_of(args.target)
    book = TargetBook(db_path(args))
    for host in hosts:
        if host != LOCAL:
            book.get(host)  # an unknown name is refused before anything runs
    store = None if args.no_save else SerialStore(open_store(args))
    shares = [Share(host, _host_request(request, host)) for host in hosts]
    if store is not None:  # a name taken by another model or host: refused before any runs
        for share in shares:
            check_conflict(store.kept.store, share.request.project)
    fleet = Fleet(shares)
    printers = {s.host: ProgressPrinter(HostStream(sys.stderr, s.host), s.request.total_runs)
                for s in shares}  # fmt: skip
    events: queue.Queue = queue.Queue()
    threads = [
        threading.Thread(target=_run_share, args=(s, args, store, events), daemon=True)
        for s in shares
    ]
    for thread in threads:
        thread.start()
    running = len(threads)
    by_host = {share.host: share for share in shares}
    with StopSignals(fleet, ProgressPrinter(sys.stderr, 0)) as signals:  # says it for all
        while running:
            try:
                host, event = events.get(timeout=0.2)
            except queue.Empty:
                continue
            signals.say_cancelling()
            share = by_host[host]
            if event is None:
                running -= 1
                if share.error is not None:
                    _fail_share(share, printers[host])
            elif isinstance(event, str):
                printers[host].note(event)
            else:
                printers[host].show(event)
                if isinstance(event, Fatal):
                    share.error = event.error
                if isinstance(event, RunFinished):
                    share.samples[id(event.run)] = event.samples_ms
    for thread in threads:
        thread.join()
    return _report(args, shares, store, fleet.cancelled)


def _host_request(request: BenchmarkRequest, host: str) -> BenchmarkRequest:
    """The request as `host` runs it: its project `NAME@host` (this machine's: NAME)."""
    from perftui.targets.registry import LOCAL

    project = request.project
    if host != LOCAL:
        project = replace(project, name=f"{project.name}@{host}", target=host)
    return replace(request, project=project)


def _fail_share(share: Share, printer: Any) -> None:
    """A host that could not start, or stopped: each run it did not report fails, one line."""
    done = 0 if share.client is None else len(share.client.runs)
    total = share.request.total_runs
    for index in range(done, total):
        _, config = share.request.scheduled(index)
        printer.note(f"run {index + 1}/{total} {config.label()}: failed: {share.error}")


def _report(
    args: argparse.Namespace, shares: list[Share], store: SerialStore | None, cancelled: bool
) -> int:
    from perftui.cli.textfmt import runs_table

    failed = False
    documents = []
    for share in shares:
        client = share.client
        runs = client.runs if client is not None else []
        project = client.request.project if client is not None else share.request.project
        unreported = share.request.total_runs - len(runs) if share.error else 0
        failed = failed or unreported > 0 or any(run.status == "failed" for run in runs)
        if args.json:
            samples = share.samples
            document = run_document(project, runs, lambda run, s=samples: s.get(id(run)))
            documents.append({"host": share.host, "error": share.error, **document})
        elif runs:
            print(f"{share.host}: {project.name} on {project.engine}/{project.device}")
            print(runs_table(runs, lambda run, s=share.samples: s.get(id(run)), project))
        else:
            print(f"{share.host}: no runs: {share.error}")
    if args.json:
        print_json({"hosts": documents})
    elif store is not None and not store.kept.error:
        print(f"saved to {store.kept.store.path}")
    if store is not None and store.kept.error:
        raise CliError(f"{store.kept.error}; the runs printed above were not all stored")
    if cancelled:
        return Exit.CANCELLED
    return Exit.RUN_FAILED if failed else Exit.OK
