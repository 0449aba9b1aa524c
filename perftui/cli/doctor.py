"""`perftui doctor`: what is wrong with the database, and `--repair`, which adds back the runs
of the files beside it that its document does not name (perftui.store.repair): it shows what
it will do and asks first."""

from __future__ import annotations

import argparse
import sys

from perftui.cli.common import CliError, Command, CommandFactory, Exit, open_store


def add_parsers(command: CommandFactory) -> None:
    doctor = command("doctor", "check the database; --repair adds back runs its document lost")
    doctor.add_argument(
        "--repair",
        action="store_true",
        help="add back the runs of the files the document does not name (asks first)",
    )
    doctor.add_argument("--yes", action="store_true", help="with --repair: do not ask")


def _confirmed(args: argparse.Namespace) -> bool:
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise CliError("doctor --repair asks first; give --yes to repair without asking")
    try:
        return input("repair? [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:  # Ctrl-D: no answer
        print()
        return False


def cmd_doctor(args: argparse.Namespace) -> int:
    store = open_store(args)
    problem, found = store.diagnose()
    if not problem:
        print(f"database {store.path}: sound")
        if store.interrupted():
            print("a write was interrupted (or is under way); the next write removes what it left")
        return Exit.OK
    print(problem)
    if found is None:
        print(
            "a repair adds back runs the document does not name; it cannot rebuild the"
            " document or a file it names: restore the database from a copy"
        )
        return Exit.RUN_FAILED
    lines = found.lines()
    print("a repair would:")
    for line in lines:
        print(f"  {line}")
    if found.strangers:  # naming their files would hide them: a copy of the document can
        print(
            "a repair cannot add back runs of projects the document does not know: restore"
            " the document from a copy (the run files are left as they are)"
        )
        return Exit.RUN_FAILED
    if not args.repair:
        print("run `perftui doctor --repair` to do it")
        return Exit.RUN_FAILED
    if not _confirmed(args):
        print("nothing was changed")
        return Exit.RUN_FAILED
    done = store.repair()
    print(f"added {done.runs} run(s) back to {len(done.adopt)} project(s)")
    problem, _ = open_store(args).diagnose()
    print(problem or f"database {store.path}: sound")
    return Exit.RUN_FAILED if problem else Exit.OK


COMMANDS: dict[str, Command] = {"doctor": cmd_doctor}
