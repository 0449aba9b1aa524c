"""The parent side of optimize: run the worker in a child process, follow it, store its
result. Used the same way by `perftui optimize` and by the dashboard (from a thread worker):

    process = OptimizeProcess(OptimizeOptions("net-fp32", samples=4), db_path)
    for event in process.events():   # blocks: Step and OptimizeWarning events, one Finished
        ...                          # "ok": the INT8 project is stored, `process.result` holds it
    process.cancel()                 # from any thread: SIGTERM; nothing is kept

The quantization never runs in the caller's process (ARCHITECTURE.md rule 1): the child is
``python -m perftui.optimize.worker DB WORKDIR`` with the options as JSON on stdin; it
speaks the workers' JSON-lines events on stdout (perftui.bench.protocol: step, warning,
handback, fatal), read here by the one follower (`protocol.read`) as they come. It makes the
model in WORKDIR, a temporary folder of this side, and hands its result back; this side
alone writes the store (ARCHITECTURE.md rule 2): it publishes the model and the project
(perftui.optimize.publish), then removes WORKDIR. Exit 2 gives the child's fatal event's
line, 130 (or death by SIGTERM/SIGINT) a cancel. Neither numpy nor an engine is imported at
load time.
"""

from __future__ import annotations

import collections
import contextlib
import json
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

from perftui.bench import protocol
from perftui.bench.protocol import Fatal, Handback, OptimizeWarning, Step
from perftui.domain.records import Method
from perftui.processes import Exit, child_env, exit_description, keep_last_lines

if TYPE_CHECKING:
    from perftui.optimize.project import OptimizeResult

STDERR_LINES = 20
WARNING_PREFIX = "perftui: warning: "
"""How the CLI prints an OptimizeWarning."""


@dataclass(frozen=True)
class OptimizeOptions:
    """What to ask `perftui optimize` for; None/empty leaves the command's default."""

    project: str
    method: Method = "static"
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


def death_line(lines: Sequence[str], returncode: int) -> str:
    """How a child that sent no fatal event ended, with its last stderr line."""
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
        tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        drain = threading.Thread(target=keep_last_lines, args=(process.stderr, tail), daemon=True)
        drain.start()
        handback: Handback | None = None
        fatal: Fatal | None = None
        try:
            for event in protocol.read(process.stdout):
                if isinstance(event, Step | OptimizeWarning):
                    yield event
                elif isinstance(event, Handback):
                    handback = event
                elif isinstance(event, Fatal):
                    fatal = event
                else:
                    raise protocol.ProtocolError(f"not an optimize event: {event}")
        except protocol.ProtocolError as error:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            process.wait()
            yield Finished("error", Exit.RUN_FAILED, error=f"the optimize process sent {error}")
            return
        returncode = process.wait()
        drain.join()
        yield self._finished(returncode, handback, fatal, list(tail))

    def _finished(
        self, returncode: int, handback: Handback | None, fatal: Fatal | None, stderr: list[str]
    ) -> Finished:
        asked = self.cancelled
        stopped = (Exit.CANCELLED, -signal.SIGTERM, -signal.SIGINT)
        if returncode in stopped or (asked and returncode in (0, -signal.SIGKILL)):
            # a cancel that came after the child's last step still keeps nothing
            return Finished("cancelled", returncode, cancel_requested=asked)
        if returncode != 0:
            error = fatal.error if fatal is not None else death_line(stderr, returncode)
            return Finished("error", returncode, error=error, cancel_requested=asked)
        if handback is None:
            return Finished("error", 0, error="the optimize process handed back no result")
        from perftui.domain.errors import InputError, StoreError
        from perftui.optimize.project import OptimizeResult
        from perftui.optimize.publish import publish
        from perftui.store import Store

        try:
            made = OptimizeResult.from_handback(handback.result)
        except (KeyError, TypeError, ValueError):
            return Finished("error", 0, error="the optimize process handed back no result")
        try:
            self.result = publish(Store(Path(self.db_path)), made)
        except (InputError, StoreError) as error:
            return Finished("error", 0, error=str(error))
        return Finished("ok", 0, result=self.result.to_dict(), cancel_requested=self.cancelled)
