"""The parent side of optimize: run the worker in a child process, follow it, store its
result. Used the same way by `perftui optimize` and by the dashboard (from a thread worker):

    process = OptimizeProcess(OptimizeOptions("net-fp32", samples=4), db_path)
    for event in process.events():   # blocks: Step and Warning lines, then one Finished
        ...                          # "ok": the INT8 project is stored, `process.result` holds it
    process.cancel()                 # from any thread: SIGTERM; nothing is kept

The quantization never runs in the caller's process (ARCHITECTURE.md rule 1): the child is
``python -m perftui.optimize.worker DB WORKDIR`` with the options as JSON on stdin; its
stderr progress lines (``calibrating 3/16``, ``perftui: warning: ...``) become events as they
come. It makes the model in WORKDIR, a temporary folder of this side, and hands its result
back on stdout; this side alone writes the store (ARCHITECTURE.md rule 2): it publishes the
model and the project (perftui.optimize.publish), then removes WORKDIR. Exit 2 gives the
child's one error line, 130 (or death by SIGTERM/SIGINT) a cancel. Only the standard library
is imported at load time.
"""

from __future__ import annotations

import collections
import contextlib
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from perftui.processes import Exit, child_env, exit_description

if TYPE_CHECKING:
    from perftui.optimize.project import OptimizeResult

STDERR_LINES = 20
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

    def to_json(self) -> str:
        """What the worker reads on stdin."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> OptimizeOptions:
        data: Mapping[str, Any] = json.loads(text)
        return cls(**{**data, "shapes": tuple(data.get("shapes", ()))})


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
    """How it ended: "ok" with the `perftui optimize --json` document of the stored project,
    "error" with one line, or "cancelled" (nothing kept). `cancel_requested` with "ok" means
    the cancel came while the result was being stored."""

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
    """One optimize worker and the storing of its result: `events()` runs it;
    `cancel()`/`kill()` from any thread; `result` is the stored result after an "ok"."""

    options: OptimizeOptions
    db_path: str | Path
    python: str | None = None
    env: dict[str, str] | None = None
    cancelled: bool = False
    result: OptimizeResult | None = None
    _process: subprocess.Popen[str] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def argv(self, workdir: str | Path) -> list[str]:
        """The child's command line (the options go to its stdin)."""
        python = self.python or sys.executable
        return [python, "-m", "perftui.optimize.worker", str(self.db_path), str(workdir)]

    def cancel(self) -> None:
        """Ask the child to stop (SIGTERM): it removes what it made and exits 130."""
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        """Stop the child at once (SIGKILL)."""
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
        workdir = tempfile.mkdtemp(prefix="perftui-optimize-")
        try:
            yield from self._follow(workdir)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _follow(self, workdir: str) -> Iterator[OptimizeEvent]:
        with self._lock:
            if self.cancelled:
                yield Finished("cancelled", Exit.CANCELLED, cancel_requested=True)
                return
            env = child_env(self.env)  # the worker dies with this process
            env.setdefault("PYTHONIOENCODING", "utf-8")
            process = subprocess.Popen(
                self.argv(workdir),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                env=env,
                start_new_session=True,  # a Ctrl-C in the terminal is the parent's to handle
            )
            self._process = process
        assert process.stdin and process.stdout and process.stderr
        with contextlib.suppress(BrokenPipeError):  # a child that ended before reading
            process.stdin.write(self.options.to_json())
            process.stdin.close()
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
        stopped = (Exit.CANCELLED, -signal.SIGTERM, -signal.SIGINT)
        if returncode in stopped or (asked and returncode in (0, -signal.SIGKILL)):
            # a cancel that came after the child's last step still keeps nothing
            return Finished("cancelled", returncode, cancel_requested=asked)
        if returncode != 0:
            return Finished(
                "error", returncode, error=error_line(stderr, returncode), cancel_requested=asked
            )
        from perftui.domain.errors import InputError, StoreError
        from perftui.optimize.project import OptimizeResult
        from perftui.optimize.publish import publish
        from perftui.store import Store

        try:
            made = OptimizeResult.from_handback(json.loads(stdout))
        except (KeyError, TypeError, ValueError):
            return Finished("error", 0, error="the optimize process printed no result")
        try:
            self.result = publish(Store(Path(self.db_path)), made)
        except (InputError, StoreError) as error:
            return Finished("error", 0, error=str(error))
        return Finished("ok", 0, result=self.result.to_dict(), cancel_requested=self.cancelled)
