"""An export file read one run at a time, as `perftui export` lays it out: a head line
ending ``"projects":[``, then per project a line ending ``"runs":[`` (or a whole project
without runs) followed by one line per run, then ``]}``. JSON escapes every newline inside a
string, so each line of that layout is one record; a file laid out otherwise (indented by
hand, or not an export) is `NotStreamable` and read whole instead (perftui.exchange.documents).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from perftui.domain.errors import InputError
from perftui.exchange import schema

__all__ = ["Event", "NotStreamable", "one_record", "read_events", "streamable", "text"]

Event = tuple[str, int, int, Any]
"""(kind, project index, run index, value): ("head", 0, 0, the head without projects),
("project", i, 0, project without runs), ("run", i, j, run); then ("end", 0, 0, None)."""

HEAD = b'{"perftui_export":'
OPEN_PROJECTS = ',"projects":['
OPEN_RUNS = ',"runs":['
RESTS = ("]},", "]}", ",")
"""What may follow a run on its line: the next run, or the end of the project's runs."""
RAW_RESTS = tuple(rest.encode() for rest in RESTS)


class NotStreamable(ValueError):
    """The file is not laid out as `perftui export` writes it (line and what was found)."""


def streamable(path: Path) -> bool:
    """Whether the file starts as an export's head line does."""
    with path.open("rb") as handle:
        return handle.read(len(HEAD)) == HEAD


def _decode(decoder: json.JSONDecoder, text: str, number: int, source: str) -> tuple[Any, str]:
    """The JSON value at the start of `text` and what follows it."""
    try:
        value, end = decoder.raw_decode(text)
    except json.JSONDecodeError as exc:
        raise NotStreamable(f"line {number}: {exc.msg}") from None
    except schema.NumberError as exc:
        raise InputError(f"{source} holds {exc}") from None
    except RecursionError:
        raise InputError(f"{source} is nested too deeply") from None
    return value, text[end:]


def text(raw: bytes, source: str) -> str:
    """A line of the file as text, without its end."""
    try:
        return raw.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError:
        raise InputError(f"{source} is not UTF-8 text") from None


def one_record(decoder: json.JSONDecoder, text: str, number: int, source: str) -> dict[str, Any]:
    """The JSON object that is all of line `number`'s `text`."""
    value, rest = _decode(decoder, text, number, source)
    if rest or not isinstance(value, dict):
        raise NotStreamable(f"line {number}: not one object")
    return value


def read_events(
    path: Path, source: str, at: Callable[[int], None] | None = None, *, raw_runs: bool = False
) -> Iterator[Event]:
    """The file's records in order, one line parsed at a time (NotStreamable where its
    layout is not an export's; InputError for a number or nesting no export has); `at`
    hears how many bytes have been read after each line. With `raw_runs` a run is not
    decoded: its value is (its bytes, its line number), for a worker to decode."""
    decoder = schema.decoder()
    read = 0
    in_runs = False
    project = run = -1
    ended = False
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if at is not None:
                read += len(raw)
                at(read)
            if in_runs and raw_runs:  # decoded by a worker (`text`)
                kept = raw.rstrip(b"\r\n")
                ending = next((r for r in RAW_RESTS if kept.endswith(b"}" + r)), b"")
                if not ending:
                    raise NotStreamable(f"line {number}: not a run")
                run += 1
                yield "run", project, run, (kept[: -len(ending)], number)
                in_runs = ending == b","
                continue
            line = text(raw, source)
            if ended:
                if line.strip():
                    raise NotStreamable(f"line {number}: text after the end")
                continue
            if number == 1:
                if not line.endswith(OPEN_PROJECTS):
                    raise NotStreamable("line 1: not an export's head")
                head = one_record(decoder, line[: -len(OPEN_PROJECTS)] + "}", 1, source)
                yield "head", 0, 0, head
            elif in_runs:
                value, rest = _decode(decoder, line, number, source)
                if not isinstance(value, dict):
                    rest = ""
                if rest not in RESTS:
                    raise NotStreamable(f"line {number}: not a run")
                run += 1
                yield "run", project, run, value
                in_runs = rest == ","
            elif line == "]}":
                ended = True
            elif line.endswith(OPEN_RUNS):
                project, run, in_runs = project + 1, -1, True
                yield "project", project, 0, one_record(decoder, line + "]}", number, source)
            else:
                project += 1
                whole = one_record(decoder, line.removesuffix(","), number, source)
                if whole.get("runs"):  # not as export writes it: read whole, runs and all
                    raise NotStreamable(f"line {number}: a project with its runs on one line")
                yield "project", project, 0, whole
    if not ended:
        raise NotStreamable("the file ends before the export does")
    yield "end", 0, 0, None


def document_events(document: dict[str, Any]) -> Iterator[Event]:
    """The same records from an export parsed whole."""
    yield "head", 0, 0, {k: v for k, v in document.items() if k != "projects"}
    projects = document.get("projects")
    if not isinstance(projects, list):
        yield "bad", 0, 0, '"projects" is not a list'
        return
    for i, data in enumerate(projects):
        if not isinstance(data, dict):
            yield "project", i, 0, data
            continue
        runs = data.get("runs", [])
        yield "project", i, 0, {**data, "runs": [] if isinstance(runs, list) else runs}
        for j, run in enumerate(runs if isinstance(runs, list) else []):
            yield "run", i, j, run
    yield "end", 0, 0, None
