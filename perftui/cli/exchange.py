"""`perftui export` (projects and runs as JSON or CSV) and `perftui import FILE`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from perftui.cli.common import EXIT_OK, CliError, Command, CommandFactory, open_store


def add_parsers(command: CommandFactory) -> None:
    export = command("export", "write projects and runs as JSON or CSV")
    export.add_argument("--format", choices=("json", "csv"), default="json")
    export.add_argument("--project", action="append", help="only this project (repeatable)")
    export.add_argument("-o", "--output", help="file to write (default: stdout)")

    imp = command("import", "read what `perftui export` wrote (JSON)")
    imp.add_argument("file")


def cmd_export(args: argparse.Namespace) -> int:
    from perftui.store.exchange import export_csv, export_document

    store = open_store(args)
    if args.format == "csv":
        text = export_csv(store, args.project)
    else:
        text = json.dumps(export_document(store, args.project), indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    from perftui.store.exchange import import_document

    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CliError(f"cannot read {path}: {error.__class__.__name__}: {error}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        hint = " (CSV is for spreadsheets; import the JSON export)" if path.suffix == ".csv" else ""
        raise CliError(f"{path} is not a perftui JSON export{hint}") from None
    projects, runs = import_document(open_store(args), document)
    print(f"imported {projects} project(s) and {runs} run(s) from {path}")
    return EXIT_OK


COMMANDS: dict[str, Command] = {"export": cmd_export, "import": cmd_import}
