"""`perftui targets add|list|remove`: the SSH hosts a benchmark can run on (perftui.targets)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.cli.common import (
    CliError,
    Command,
    CommandFactory,
    Exit,
    checked_flag,
    db_path,
    print_json,
)
from perftui.engines import ENGINES

if TYPE_CHECKING:
    from perftui.bench.client import BenchmarkClient, Launcher
    from perftui.domain.records import BenchmarkRequest, Project
    from perftui.store.database import Store
    from perftui.targets.probe import Probe
    from perftui.targets.registry import TargetBook


def add_parsers(command: CommandFactory) -> None:
    targets = command("targets", "SSH hosts to measure on: add, list, price, remove, setup")
    verbs = targets.add_subparsers(dest="verb", metavar="VERB", required=True)
    add = verbs.add_parser("add", help="name an SSH host (as `ssh` reaches it)")
    add.add_argument("name")
    add.add_argument("destination", help="~/.ssh/config alias, host or user@host")
    add.add_argument("--python", default="python3", help="the python that has perftui there")
    add.add_argument(
        "--price-per-hour", help="what an hour of the host costs (e.g. 0.34): cost per inference"
    )
    show = verbs.add_parser("list", help="this machine and each target: CPU, ISA, engines")
    show.add_argument("--json", action="store_true", help="print one JSON document")
    price = verbs.add_parser("price", help="set the price per hour of a target or of `local`")
    price.add_argument("name", help="a target's name, or local for this machine")
    price.add_argument("price_per_hour", metavar="PRICE", help="per hour, e.g. 0.20")
    remove = verbs.add_parser("remove", help="forget a target (its results stay)")
    remove.add_argument("name")
    setup = verbs.add_parser(
        "setup", help="install this perftui into a venv on the target and use its python"
    )
    setup.add_argument("name")
    setup.add_argument(
        "--base-python", default="python3", help="the python there that makes the venv"
    )
    setup.add_argument(
        "--pip-args",
        default="",
        help='more options for pip there, e.g. "--index-url URL" or "--find-links DIR"',
    )
    for verb in (add, show, price, remove, setup):
        verb.add_argument("--db", default=argparse.SUPPRESS, help="results database")


def _book(args: argparse.Namespace) -> TargetBook:
    from perftui.targets.registry import TargetBook

    return TargetBook(db_path(args))


def _row(found: Probe) -> dict[str, Any]:
    env = found.environment or {}
    target = found.target
    return {
        "name": target.name,
        "destination": target.destination,
        "python": target.python,
        "reachable": found.reachable,
        "ready": found.ready,
        "error": found.error,
        **{key: env.get(key) for key in ("perftui", *ENGINES, "cpu_model")},
        "physical_cores": env.get("physical_cores"),
        "logical_cores": env.get("logical_cores"),
        "sockets": env.get("sockets"),
        "governor": env.get("governor"),
        "isa": env.get("isa", []),
        "devices": found.devices,
        "price_per_hour": target.price_per_hour,
    }


def _price(args: argparse.Namespace) -> float | None:
    """--price-per-hour as a number (domain.limits.parse_price's rule); CliError otherwise."""
    from perftui.domain.limits import parse_price

    if args.price_per_hour is None:
        return None
    return checked_flag("--price-per-hour", parse_price, args.price_per_hour)


def cmd_targets(args: argparse.Namespace) -> int:
    from perftui.targets.probe import probe
    from perftui.targets.registry import Target, check_target

    book = _book(args)
    if args.verb == "add":
        target = check_target(Target(args.name, args.destination, args.python, _price(args)))
        if any(t.name == target.name for t in book.all()):
            book.add(target)  # says the name is taken
        found = probe(target)
        if not found.reachable:  # nothing stored: fix the destination or the network first
            raise CliError(found.error or f"target {target.name} is unreachable")
        book.add(target)
        price = "" if target.price_per_hour is None else f", {target.price_per_hour}/h"
        print(f"target {args.name}: {args.destination} (python {args.python}{price})")
        print(
            found.error or f"  ready: {_row(found)['cpu_model']}, perftui {_row(found)['perftui']}"
        )
        return Exit.OK
    if args.verb == "price":
        book.set_price(args.name, _price(args))
        print(f"{args.name}: {args.price_per_hour} per hour (recorded with its next runs)")
        return Exit.OK
    if args.verb == "remove":
        book.remove(args.name)
        print(f"removed target {args.name}")
        return Exit.OK
    if args.verb == "setup":
        return _setup(args, book)
    return _list(args, book)


def _list(args: argparse.Namespace, book: TargetBook) -> int:
    from concurrent.futures import ThreadPoolExecutor

    from perftui.targets.probe import probe, this_machine
    from perftui.targets.registry import LOCAL

    targets = [this_machine(book.price(LOCAL)), *book.all()]
    with ThreadPoolExecutor(max_workers=8) as pool:
        rows = [_row(found) for found in pool.map(lambda t: probe(t, devices=True), targets)]
    if args.json:
        print_json({"targets": rows})
        return Exit.OK
    for row in rows:
        status = (
            "ready"
            if row["ready"]
            else "reachable, not ready"
            if row["reachable"]
            else "unreachable"
        )
        print(f"{row['name']}: {row['destination']}{_price_text(row['price_per_hour'])}: {status}")
        if row["error"]:
            print(f"  {row['error']}")
        if row["perftui"]:
            print("  " + _cpu_text(row))
            engines = ", ".join(
                f"{k} {row[k]} ({' '.join((row['devices'] or {}).get(k) or []) or 'no device'})"
                for k in ENGINES
                if row[k]
            )
            print(f"  perftui {row['perftui']}; {engines or 'no engine'}")
    if len(rows) == 1:
        print("no targets yet: perftui targets add NAME SSH-DESTINATION")
    return Exit.OK


def _price_text(price: float | None) -> str:
    return "" if price is None else f" ({price:g}/h)"


def _cpu_text(row: dict[str, Any]) -> str:
    from perftui.domain.measurement.context import BF16_ISA, F16_ISA, INT8_ISA

    sockets = f", {row['sockets']} sockets" if (row["sockets"] or 1) > 1 else ""
    cores = f"{row['physical_cores'] or '?'} cores / {row['logical_cores']} threads{sockets}"
    isa = row["isa"] or []
    int8 = " ".join(f for f in INT8_ISA if f in isa) or "none"
    bf16 = " ".join(f for f in BF16_ISA + F16_ISA if f in isa) or "none"
    return f"{row['cpu_model']}, {cores}; INT8 ISA: {int8}; BF16/FP16 ISA: {bf16}"


def _setup(args: argparse.Namespace, book: TargetBook) -> int:
    import shlex
    import sys
    from dataclasses import replace

    from perftui.targets.probe import probe
    from perftui.targets.setup import setup_target

    target = book.get(args.name)
    python = setup_target(
        target,
        args.base_python,
        shlex.split(args.pip_args),
        lambda line: print(line, file=sys.stderr),
    )
    book.remove(target.name)
    book.add(replace(target, python=python))
    print(f"target {target.name}: python {python}")
    found = probe(book.get(target.name))
    print(found.error or f"  ready: perftui {found.environment and found.environment['perftui']}")
    return Exit.OK if found.ready else Exit.RUN_FAILED


def bench_target(
    args: argparse.Namespace,
    request: BenchmarkRequest,
    store: Store | None,
    notify: Callable[[str], None],
) -> tuple[BenchmarkRequest, Launcher | None]:
    """The request with its project's target (--target, else the stored project's) and the
    launcher that runs its worker there; no launcher for this machine."""
    from dataclasses import replace

    from perftui.targets.launcher import open_target
    from perftui.targets.registry import LOCAL

    name = args.target
    if name is None and store is not None:
        stored = store.get_project(request.project.name)
        name = stored.target if stored is not None else None
    if not name or name == LOCAL:
        return request, None
    target = _book(args).get(name)
    project = request.project
    if not args.project:
        project = replace(project, name=f"{project.name}@{name}")
    request = replace(request, project=replace(project, target=name))
    if store is not None:  # refuse a name conflict before anything travels; store nothing yet
        check_conflict(store, request.project)
    try:
        return request, open_target(target, request, notify)
    except OSError as error:
        raise CliError(f"cannot read the model: {error.strerror or error}") from None


@contextmanager
def shared_host(
    db: Path,
    host: str,
    requests: list[BenchmarkRequest],
    store: Store | None,
    notify: Callable[[str], None],
) -> Iterator[list[BenchmarkClient]]:
    """The clients of benchmarks alternated on `host` (storing into `store`; None: not
    stored), their runs priced at the host's price; on a target they share one lease
    (perftui.targets.launcher.open_shared), ended on leaving."""
    from perftui.bench.client import BenchmarkClient
    from perftui.targets.launcher import open_shared, priced
    from perftui.targets.registry import LOCAL, TargetBook

    def clients(launchers: list[Launcher | None]) -> list[BenchmarkClient]:
        pairs = zip(requests, launchers, strict=True)
        made = [BenchmarkClient(request, store, launcher) for request, launcher in pairs]
        for client in made:
            client.launcher = priced(client.launcher, db, host)
        return made

    if host == LOCAL:
        yield clients([None for _ in requests])
        return
    try:
        lease, launchers = open_shared(TargetBook(db).get(host), requests, notify)
    except OSError as error:
        raise CliError(f"cannot read the model: {error.strerror or error}") from None
    try:
        yield clients(list(launchers))
    finally:
        lease.close()


def check_conflict(store: Store, project: Project) -> None:
    """CliError when the store has a project of this name for another model, engine, device
    or target (nothing is stored by the check)."""
    from perftui.store.paths import same_target

    existing = store.get_project(project.name)
    if existing is not None and not same_target(existing, project):
        raise CliError(
            f"project '{existing.name}' already uses model {existing.model} on"
            f" {existing.engine}/{existing.device} of target {existing.target};"
            " choose another --project name"
        )


COMMANDS: dict[str, Command] = {"targets": cmd_targets}
