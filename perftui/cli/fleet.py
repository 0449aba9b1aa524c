"""`perftui bench MODEL --target local,h1,h2`: one benchmark matrix on several machines at once
(perftui.targets.fleet runs it), its progress one line per run prefixed with the host, and a
table per host at the end. A host that cannot start, or drops mid-matrix, fails each of its
remaining runs with one line; every finished run is stored as it finishes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from perftui.cli.common import (
    CliError,
    Exit,
    checked_flag,
    db_path,
    open_store,
    print_json,
    run_document,
)
from perftui.targets.fleet import Fleet, Opener, SerialStore, Share, shares

if TYPE_CHECKING:
    from perftui.bench.client import BenchmarkClient
    from perftui.cli.bench import KeepMeasured
    from perftui.domain.measurement.figures import Samples
    from perftui.domain.records import BenchmarkRequest


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


def _opener(args: argparse.Namespace, store: SerialStore | None) -> Opener:
    """A share's client as `bench --target HOST` makes it: the host's lease and model copy,
    its price recorded, its runs stored through `store`."""
    from perftui.bench.client import BenchmarkClient
    from perftui.cli.targets import bench_target
    from perftui.domain.errors import InputError
    from perftui.targets.launcher import priced

    def open_client(share: Share, say: Callable[[str], None]) -> BenchmarkClient:
        one = argparse.Namespace(**{**vars(args), "target": share.host, "project": True})
        try:
            request, launcher = bench_target(one, share.request, None, say)
        except CliError as error:
            raise InputError(str(error)) from None
        client = BenchmarkClient(request, store, launcher)
        client.launcher = priced(client.launcher, db_path(args), share.host)
        return client

    return open_client


def cmd_fleet(args: argparse.Namespace, request: BenchmarkRequest) -> int:
    """Run `request` on each host of `--target` at once; the exit status of the whole."""
    from perftui.cli.bench import KeepMeasured
    from perftui.cli.interrupts import StopSignals
    from perftui.cli.progress import ProgressPrinter
    from perftui.cli.targets import check_conflict
    from perftui.domain.forms.bench import parse_targets
    from perftui.targets.registry import LOCAL, TargetBook

    hosts = checked_flag("--target", parse_targets, args.target)
    book = TargetBook(db_path(args))
    for host in hosts:
        if host != LOCAL:
            book.get(host)  # an unknown name is refused before anything runs
    kept = None if args.no_save else KeepMeasured(open_store(args))
    store = None if kept is None else SerialStore(kept.store, kept.add_run)
    fleet = Fleet(shares(request, hosts), _opener(args, store))
    if store is not None:  # a name taken by another model or host: refused before any runs
        for share in fleet.shares:
            check_conflict(store.store, share.request.project)
    printers = {s.host: ProgressPrinter(HostStream(sys.stderr, s.host), s.request.total_runs)
                for s in fleet.shares}  # fmt: skip
    by_host = {share.host: share for share in fleet.shares}
    with StopSignals(fleet, ProgressPrinter(sys.stderr, 0)) as signals:  # says it for all
        for item in fleet.events():
            signals.say_cancelling()
            if item is None:
                continue
            printer = printers[item.host]
            if item.event is None:
                _fail_share(by_host[item.host], printer)
            elif isinstance(item.event, str):
                printer.note(item.event)
            else:
                printer.show(item.event)
    return _report(args, fleet.shares, kept, fleet.cancelled)


def _fail_share(share: Share, printer: Any) -> None:
    """A host that could not start, or stopped: each run it did not report fails, one line."""
    total = share.request.total_runs
    for index, config in share.unreported():
        printer.note(f"run {index + 1}/{total} {config.label()}: failed: {share.error}")


def _report(
    args: argparse.Namespace, shares: list[Share], kept: KeepMeasured | None, cancelled: bool
) -> int:
    from perftui.cli.textfmt import runs_table

    failed = False
    documents = []
    for share in shares:
        client = share.client
        runs = client.runs if client is not None else []
        project = client.request.project if client is not None else share.request.project
        failed = failed or bool(share.unreported()) or any(run.status == "failed" for run in runs)
        if args.json:
            document = run_document(project, runs, _by_run(share.samples))
            documents.append({"host": share.host, "error": share.error, **document})
        elif runs:
            print(f"{share.host}: {project.name} on {project.engine}/{project.device}")
            print(runs_table(runs, _by_run(share.samples), project))
        else:
            print(f"{share.host}: no runs: {share.error}")
    if args.json:
        print_json({"hosts": documents})
    elif kept is not None and not kept.error:
        print(f"saved to {kept.store.path}")
    if kept is not None and kept.error:
        raise CliError(f"{kept.error}; the runs printed above were not all stored")
    if cancelled:
        return Exit.CANCELLED
    return Exit.RUN_FAILED if failed else Exit.OK


def _by_run(samples: dict[int, Any]) -> Samples:
    """A share's samples of a run (kept by the run's id())."""
    return lambda run: samples.get(id(run))
