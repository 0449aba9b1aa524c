"""`perftui doctor`: what makes a command refuse, each with the way out, and the files every
command ignores (perftui.store.doctor); `--repair` converts a database of perftui 0.1 and
counts what the files hold after a file went missing or was cut (it shows what it will do
and asks first)."""

from __future__ import annotations

import argparse
import sys

from perftui.cli.common import Command, CommandFactory, Exit, open_store


def add_parsers(command: CommandFactory) -> None:
    doctor = command("doctor", "check the database; --repair mends what it can")
    doctor.add_argument(
        "--repair",
        action="store_true",
        help="convert a perftui 0.1 database, count what the files hold (asks first)",
    )
    doctor.add_argument("--yes", action="store_true", help="with --repair: do not ask")


def _confirmed(args: argparse.Namespace) -> bool:
    """Whether the user said yes (--yes, or y at the question); a closed stdin or Ctrl-D is
    no answer, so no."""
    if args.yes:
        return True
    if not sys.stdin.isatty():
        print("doctor --repair asks first; give --yes to repair without asking")
        return False
    try:
        return input("repair? [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:  # Ctrl-D: no answer
        print()
        return False


def cmd_doctor(args: argparse.Namespace) -> int:
    store = open_store(args)
    found = store.diagnose()
    for line in found.notes:
        print(f"note: {line}")
    if not found.problems:
        print(f"database {store.path}: sound")
        return Exit.OK
    for line in found.problems:
        print(line)
    if not found.repairable:
        print("a repair cannot mend all of this: restore the database from a copy")
        return Exit.RUN_FAILED
    if not args.repair:
        print("run `perftui doctor --repair` to mend it")
        return Exit.RUN_FAILED
    if not _confirmed(args):
        print("nothing was changed")
        return Exit.RUN_FAILED
    for line in store.repair():
        print(line)
    problems = open_store(args).diagnose().problems
    for line in problems:
        print(line)
    if not problems:
        print(f"database {store.path}: sound")
    return Exit.RUN_FAILED if problems else Exit.OK


COMMANDS: dict[str, Command] = {"doctor": cmd_doctor}
