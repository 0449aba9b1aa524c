"""Run `perftui optimize` in a child process and follow it (the dashboard's side of optimize).

    process = OptimizeProcess(OptimizeOptions("net-fp32", samples=4), db_path)
    for event in process.events():   # blocks: Step and Warning lines, then one Finished
        ...
    process.cancel()                 # from any thread: SIGTERM; the child keeps nothing

The quantization never runs in the caller's process (DESIGN rule 1): the child is
``python -m perftui optimize PROJECT --json --db DB ...``; its stderr progress lines
(``calibrating 3/16``, ``perftui: warning: ...``) become events as they come and its stdout
JSON document ends up in `Finished.result`. Exit 2 gives the child's one error line, 130 (or
death by SIGTERM/SIGINT) a cancel. Only the standard library is imported here (and
perftui.domain.options, for the shapes field of the dashboard's form).

The form helpers (`check_field`, `options_from_form`, `suggest_name`) check what a person
typed before the child starts; deeper checks (the folder's files, shapes) are the command's.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from perftui.processes import exit_description

EXIT_BAD_INPUT, EXIT_CANCELLED = 2, 130
STDERR_LINES = 20
METHODS = ("static", "dynamic")
DEFAULT_RANDOM_SAMPLES = 16
"""The command's default number of random samples (calibration.DEFAULT_RANDOM_SAMPLES)."""
STEP = re.compile(r"^(?P<phase>[a-z][a-z ]{0,40}?)(?: (?P<done>\d+)/(?P<total>\d+))?$")
WARNING_PREFIX = "perftui: warning: "
ERROR = re.compile(r"^perftui(?: optimize)?: (?:(?P<internal>internal )?error): (?P<text>.*)$")


@dataclass(frozen=True)
class OptimizeOptions:
    """What to ask `perftui optimize` for; None/empty leaves the command's default."""

    project: str
    method: str = "static"
    calibration: str | None = None
    samples: int | None = None
    name: str | None = None
    shapes: tuple[str, ...] = ()
    seed: int | None = None

    def argv(self, db_path: str | Path, python: str | None = None) -> list[str]:
        """The child's command line."""
        args = [python or sys.executable, "-m", "perftui", "optimize", self.project, "--json"]
        args += ["--db", str(db_path), "--method", self.method]
        if self.calibration:
            args += ["--calibration", self.calibration]
        if self.samples is not None:
            args += ["--samples", str(self.samples)]
        if self.name:
            args += ["--name", self.name]
        for shape in self.shapes:
            args += ["--shape", shape]
        if self.seed is not None:
            args += ["--seed", str(self.seed)]
        return args


@dataclass(frozen=True)
class Step:
    """A progress line: `phase` with `done` of `total` steps (total 0: no steps)."""

    phase: str
    done: int = 0
    total: int = 0

    @property
    def text(self) -> str:
        return f"{self.phase} {self.done}/{self.total}" if self.total else self.phase

    @property
    def fraction(self) -> float | None:
        """Share of the phase done, or None for a phase without steps."""
        return min(1.0, self.done / self.total) if self.total else None


@dataclass(frozen=True)
class OptimizeWarning:
    """A ``perftui: warning:`` line (e.g. random calibration data), without its prefix."""

    text: str


@dataclass(frozen=True)
class Finished:
    """How the child ended: "ok" with its JSON document, "error" with one line, or
    "cancelled" (nothing kept). `cancel_requested` with "ok" means the cancel came after the
    result was already being saved."""

    status: Literal["ok", "error", "cancelled"]
    returncode: int
    result: dict[str, Any] | None = None
    error: str | None = None
    cancel_requested: bool = False

    @property
    def project(self) -> str | None:
        """The new project's name (status "ok")."""
        return str(self.result["project"]) if self.result else None


OptimizeEvent = Step | OptimizeWarning | Finished


def parse_line(line: str) -> Step | OptimizeWarning | None:
    """A stderr line of `perftui optimize` as an event; None for any other line."""
    text = line.strip()
    if text.startswith(WARNING_PREFIX):
        return OptimizeWarning(text[len(WARNING_PREFIX) :].strip())
    match = STEP.match(text)
    if match is None:
        return None
    done, total = match.group("done"), match.group("total")
    return Step(match.group("phase"), int(done or 0), int(total or 0))


def error_line(lines: Sequence[str], returncode: int) -> str:
    """The child's one error line (without the ``perftui: error:`` prefix), else its last
    stderr line, else how it ended."""
    for line in reversed(lines):
        match = ERROR.match(line.strip())
        if match:
            text = match.group("text").strip()
            return f"internal error: {text}" if match.group("internal") else text
    last = next((line.strip() for line in reversed(lines) if line.strip()), "")
    ended = f"the optimize process ended with {exit_description(returncode)}"
    return ended + (f": {last}" if last else "")


@dataclass
class OptimizeProcess:
    """One `perftui optimize` child: `events()` runs it; `cancel()`/`kill()` from any thread."""

    options: OptimizeOptions
    db_path: str | Path
    python: str | None = None
    env: dict[str, str] | None = None
    cancelled: bool = False
    _process: subprocess.Popen[str] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def cancel(self) -> None:
        """Ask the child to stop (SIGTERM): it removes what it made and exits 130."""
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        """Stop the child at once (SIGKILL); its temporary folder may stay behind."""
        self._signal(signal.SIGKILL)

    def _signal(self, sig: signal.Signals) -> None:
        with self._lock:
            self.cancelled = True
            process = self._process
            if process is not None and process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(sig)

    def events(self) -> Iterator[OptimizeEvent]:
        """Start the child and yield its progress; ends with one `Finished`."""
        with self._lock:
            if self.cancelled:
                yield Finished("cancelled", EXIT_CANCELLED, cancel_requested=True)
                return
            env = dict(self.env if self.env is not None else os.environ)
            env.setdefault("PYTHONIOENCODING", "utf-8")
            process = subprocess.Popen(
                self.options.argv(self.db_path, self.python),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                env=env,
                start_new_session=True,  # a Ctrl-C in the terminal is the dashboard's to handle
            )
            self._process = process
        assert process.stdout is not None and process.stderr is not None
        out: list[str] = []
        stdout = process.stdout
        reader = threading.Thread(target=lambda: out.append(stdout.read()), daemon=True)
        reader.start()
        tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        for line in process.stderr:
            if not line.strip():
                continue
            tail.append(line.rstrip())
            event = parse_line(line)
            if event is not None:
                yield event
        returncode = process.wait()
        reader.join()
        yield self._finished(returncode, "".join(out), list(tail))

    def _finished(self, returncode: int, stdout: str, stderr: list[str]) -> Finished:
        asked = self.cancelled
        if returncode == 0:
            try:
                result = json.loads(stdout)
                if not isinstance(result, dict) or "project" not in result:
                    raise ValueError("no project in the document")
            except ValueError:
                return Finished(
                    "error",
                    0,
                    error="the optimize process printed no result",
                    cancel_requested=asked,
                )
            return Finished("ok", 0, result=result, cancel_requested=asked)
        stopped = (EXIT_CANCELLED, -signal.SIGTERM, -signal.SIGINT)
        if returncode in stopped or (asked and returncode == -signal.SIGKILL):
            return Finished("cancelled", returncode, cancel_requested=asked)
        return Finished(
            "error", returncode, error=error_line(stderr, returncode), cancel_requested=asked
        )


# --------------------------------------------------------------------------- the form

FORM_FIELDS = ("method", "calibration", "samples", "shapes", "name")


class FormError(ValueError):
    """A form field that cannot be used; `field` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def suggest_name(source: str, method: str, existing: Collection[str] = ()) -> str:
    """'<source>-int8' ('-int8-dynamic' for dynamic), numbered if that name is taken."""
    base = f"{source}-int8" if method == "static" else f"{source}-int8-dynamic"
    name, counter = base, 2
    while name in existing:
        name, counter = f"{base}-{counter}", counter + 1
    return name


def check_field(name: str, text: str, existing: Collection[str] = ()) -> str | None:
    """Why the form's field `name` cannot be used as typed, or None."""
    text = text.strip()
    if name == "method":
        return None if text in METHODS else f"choose {' or '.join(METHODS)}"
    if name == "calibration":
        if not text:
            return None
        path = Path(text).expanduser()
        if not path.exists():
            return f"no such folder: {text}"
        if not path.is_dir():
            return f"{text} is a file; give the folder that holds the samples"
        return None
    if name == "samples":
        if not text:
            return None
        if not text.isdigit() or int(text) < 1:
            return "a whole number of samples, at least 1 (empty: the default)"
        return None
    if name == "shapes":
        if not text:
            return None
        from perftui.domain.errors import InputError
        from perftui.domain.options import parse_shapes

        try:
            parse_shapes([text])
        except InputError as error:
            return str(error)
        return None
    if name == "name":
        if not text:
            return "the new project needs a name"
        if text in existing:
            return f"project '{text}' already exists; choose another name"
        return None
    raise KeyError(name)


def options_from_form(
    project: str, values: Mapping[str, str], existing: Collection[str] = ()
) -> OptimizeOptions:
    """The options the form asks for; FormError names the first field that cannot be used."""
    for name in FORM_FIELDS:
        reason = check_field(name, values.get(name, ""), existing)
        if reason is not None:
            raise FormError(name, reason)
    calibration = values.get("calibration", "").strip()
    samples = values.get("samples", "").strip()
    shapes = values.get("shapes", "").strip()
    return OptimizeOptions(
        project=project,
        method=values["method"].strip(),
        calibration=str(Path(calibration).expanduser().absolute()) if calibration else None,
        samples=int(samples) if samples else None,
        name=values["name"].strip(),
        shapes=(shapes,) if shapes else (),
    )


def form_from_options(options: OptimizeOptions) -> dict[str, str]:
    """The form's values for `options` (to edit them again after a failure)."""
    return {
        "method": options.method,
        "calibration": options.calibration or "",
        "samples": "" if options.samples is None else str(options.samples),
        "shapes": ",".join(options.shapes),
        "name": options.name or "",
    }
