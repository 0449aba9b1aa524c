"""The `perftui` entry point: the parser, the table of sub-commands and `main()`.

A bare `perftui` opens the dashboard; each sub-command lives in its own module of this
package. Exit status: 0 success, 1 a run failed, 2 bad input (one line on stderr), 130
cancelled. Heavy imports (engines, numpy-based code, textual) happen inside the commands, so
`perftui --help` and argument errors are instant.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from perftui import __version__
from perftui.cli import (
    bench,
    capacity,
    compare,
    devices,
    doctor,
    exchange,
    gate,
    history,
    inspect,
    optimize,
    projects,
    report,
    targets,
    tune,
)
from perftui.cli.common import CliError, Command, Exit
from perftui.domain.names import terminal_safe

MODULES = (
    bench,
    capacity,
    tune,
    projects,
    inspect,
    compare,
    gate,
    history,
    report,
    devices,
    exchange,
    optimize,
    targets,
    doctor,
)
"""The sub-command modules, in the order `perftui --help` lists them."""
COMMANDS: dict[str, Command] = {
    name: run for module in MODULES for name, run in module.COMMANDS.items()
}


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line and exits 2."""

    def error(self, message: str) -> NoReturn:
        from perftui.domain.errors import cut_echoes

        line = cut_echoes(terminal_safe(message))
        self.exit(Exit.BAD_INPUT, f"{self.prog}: error: {line} (see {self.prog} --help)\n")


def build_parser() -> Parser:
    parser = Parser(
        prog="perftui",
        description="perftui: measure, understand and compare inference performance "
        "(OpenVINO, ONNX Runtime).",
    )
    parser.add_argument("--version", action="version", version=f"perftui {__version__}")
    parser.add_argument("--db", help="results database (default: $PERFTUI_DB or the XDG data dir)")
    sub = parser.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        p.add_argument("--db", default=argparse.SUPPRESS, help="results database")
        return p

    for module in MODULES:
        module.add_parsers(command)
    return parser


def open_dashboard(args: argparse.Namespace) -> int:
    from perftui.store import default_db_path
    from perftui.tui.app import create_app

    create_app(db_path=Path(args.db) if args.db else default_db_path()).run()
    return Exit.OK


class TerminalSafe:
    """A text stream that writes stored text as it is, escaping what a terminal would act on
    (perftui.domain.names.terminal_safe; newlines and tabs are kept)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(terminal_safe(text, lines=True))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def terminal_safe_stdout() -> Iterator[None]:
    """A sub-command's stdout through `TerminalSafe` (the dashboard draws its own)."""
    stream = sys.stdout
    sys.stdout = TerminalSafe(stream)
    try:
        yield
    finally:
        sys.stdout = stream


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from perftui.domain.errors import InputError, StoreError, cut_echoes

    try:
        if args.command is None:
            return open_dashboard(args)
        with terminal_safe_stdout():
            return COMMANDS[args.command](args)
    except (CliError, InputError, StoreError) as error:
        print(f"perftui: error: {cut_echoes(terminal_safe(str(error)))}", file=sys.stderr)
        return Exit.BAD_INPUT
    except BrokenPipeError:
        return Exit.OK
    except KeyboardInterrupt:  # Ctrl-C before (or after) a benchmark took the signal over
        print("perftui: cancelled", file=sys.stderr)
        return Exit.CANCELLED
    except Exception as error:  # a bug, not bad input: say so in one line, keep the details
        if os.environ.get("PERFTUI_DEBUG"):
            raise
        print(
            f"perftui: internal error: {type(error).__name__}: "
            f"{cut_echoes(terminal_safe(str(error)))} "
            "(set PERFTUI_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return Exit.RUN_FAILED
