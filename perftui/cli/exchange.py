"""`perftui export` (projects and runs as JSON or CSV) and `perftui import FILE`."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO

from perftui.atomic import replacing
from perftui.cli.common import (
    CliError,
    Command,
    CommandFactory,
    Exit,
    checked_flag,
    open_store,
    output_path,
)


def add_parsers(command: CommandFactory) -> None:
    export = command("export", "write projects and runs as JSON or CSV")
    export.add_argument("--format", choices=("json", "csv"), default="json")
    export.add_argument("--project", action="append", help="only this project (repeatable)")
    export.add_argument("-o", "--output", help="file to write (default: stdout)")

    imp = command(
        "import",
        "read what `perftui export` wrote (JSON), or benchmark_app's -json_stats report "
        "(its counters report beside it is read too)",
    )
    imp.add_argument("file")
    imp.add_argument("--project", help="project of a benchmark_app report's run")


SPOOL_BYTES = 8 * 2**20
"""An export to stdout is held in memory up to this size, then in a temporary file."""
COPY_CHARS = 2**20


@contextlib.contextmanager
def _spooled_stdout() -> Iterator[IO[str]]:
    """A spool that goes to stdout once the export is whole: a failed export (a damaged
    run half way) writes nothing there, never part of a document."""
    with tempfile.SpooledTemporaryFile(SPOOL_BYTES, "w+", encoding="utf-8") as spool:
        yield spool
        spool.seek(0)
        shutil.copyfileobj(spool, sys.stdout, COPY_CHARS)


@contextlib.contextmanager
def _output(name: str | None) -> Iterator[IO[str]]:
    """stdout (whole documents only: `_spooled_stdout`), or the file named by -o (CliError
    if it cannot be written). A regular file is written beside it and renamed over it at the
    end, so a failed export leaves an older one as it was; anything else (/dev/null, a pipe,
    a link) is written in place, as a shell's redirection would, never replaced."""
    if not name:
        with _spooled_stdout() as spool:
            yield spool
        return
    path = output_path(name)
    try:
        in_place = not stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        in_place = False
    except OSError as error:
        raise CliError(f"cannot write {path}: {error.strerror or error}") from None
    with contextlib.ExitStack() as stack:
        handle: IO[str]
        try:
            handle = stack.enter_context(
                open(path, "w", encoding="utf-8")  # noqa: SIM115 (closed by the stack)
                if in_place
                else replacing(path, encoding="utf-8")
            )
        except OSError as error:
            raise CliError(f"cannot write {path}: {error.strerror or error}") from None
        yield handle


def cmd_export(args: argparse.Namespace) -> int:
    from perftui.exchange.documents import export_csv, write_export

    store = open_store(args)
    store.check()
    with _output(args.output) as out:
        if args.format == "csv":
            out.write(export_csv(store, args.project))
        else:
            write_export(store, out, args.project)
    return Exit.OK


def cmd_import(args: argparse.Namespace) -> int:
    from perftui.exchange.importer import import_file
    from perftui.exchange.reader import NotStreamable, streamable

    path = Path(args.file)
    try:
        laid_out = streamable(path)
    except OSError as error:
        raise CliError(f"cannot read {path}: {error.strerror or error}") from None
    if laid_out:  # as `perftui export` wrote it: read a run at a time
        _no_project_for_an_export(args)
        with contextlib.suppress(NotStreamable):
            projects, runs = import_file(open_store(args), path, str(path))
            return _imported(projects, runs, path)
    return _import_whole(args, path)


def _imported(projects: int, runs: int, path: Path) -> int:
    print(f"imported {projects} project(s) and {runs} run(s) from {path}")
    return Exit.OK


def _import_whole(args: argparse.Namespace, path: Path) -> int:
    """An export laid out otherwise (or a benchmark_app report), read and parsed whole."""
    from perftui.domain.errors import InputError
    from perftui.exchange.documents import MAX_IMPORT_BYTES, import_document, parse_export

    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_IMPORT_BYTES:
                raise CliError(
                    f"{path} is {size / 2**30:.1f} GiB; import reads at most"
                    f" {MAX_IMPORT_BYTES / 2**30:.0f} GiB laid out otherwise than"
                    " `perftui export` writes (export fewer projects with --project)"
                )
            raw = handle.read(MAX_IMPORT_BYTES + 1)
    except OSError as error:
        raise CliError(f"cannot read {path}: {error.strerror or error}") from None
    if report := _benchmark_app_report(raw):
        return _import_benchmark_app(args, path, report)
    try:
        document = parse_export(raw, str(path))
    except InputError as error:
        hint = " (CSV is for spreadsheets; import the JSON export)" if path.suffix == ".csv" else ""
        raise CliError(f"{error}{hint}") from None
    del raw
    _no_project_for_an_export(args)
    return _imported(*import_document(open_store(args), document), path)


def _no_project_for_an_export(args: argparse.Namespace) -> None:
    if args.project is not None:
        raise CliError(
            "--project names the project of a benchmark_app report's run; an export's"
            " projects keep their own names (rename one after the import)"
        )


def _benchmark_app_report(raw: bytes) -> dict | None:
    from perftui.exchange.benchmark_app import recognizes

    try:
        document = json.loads(raw)
    except (ValueError, RecursionError):
        return None  # parse_export says what is wrong with it
    return document if recognizes(document) else None


def _import_benchmark_app(args: argparse.Namespace, path: Path, first: dict) -> int:
    from perftui.exchange.benchmark_app import read_folder, records

    if args.project is not None:
        from perftui.domain.names import check_project_name

        checked_flag("--project", check_project_name, args.project)
    report, counters = read_folder(path, first)
    project, run = records(report, counters, args.project, str(path))
    store = open_store(args)
    project = store.ensure_project(project)
    store.add_run(replace(run, project=project.name))
    layers = f" with {len(run.layers)} layer(s)" if run.layers else ""
    print(f"imported benchmark_app's run{layers} into {project.name} from {path}")
    return Exit.OK


COMMANDS: dict[str, Command] = {"export": cmd_export, "import": cmd_import}
