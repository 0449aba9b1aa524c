"""The child process of optimize: makes the INT8 model and hands the result back; it only
reads the store (ARCHITECTURE.md rule 2: perftui.optimize.runner, its parent, stores the result).

    python -m perftui.optimize.worker DB WORKDIR < options.json

stdin: perftui.optimize.runner.OptimizeOptions as JSON. The model is made in WORKDIR, a
folder of the parent. stderr: progress lines (``calibrating 3/16``), ``perftui: warning:
...``, and at the end ``perftui: error: ...`` (exit 2), ``perftui: internal error: ...``
(exit 1) or ``perftui: optimize cancelled; nothing was saved`` (exit 130, on SIGINT or
SIGTERM). stdout, on success: one JSON document, `OptimizeResult.handback()`.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from perftui.domain.errors import InputError, StoreError
from perftui.optimize.runner import WARNING_PREFIX, OptimizeOptions, Step
from perftui.processes import Exit


def _progress(phase: str, done: int, total: int) -> None:
    sys.stderr.write(Step(phase, done, total).text + "\n")
    sys.stderr.flush()


def _warn(text: str) -> None:
    sys.stderr.write(f"{WARNING_PREFIX}{text}\n")
    sys.stderr.flush()


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def _keep_stdout() -> TextIO:
    """The hand-back's stream, with file descriptor 1 sent to /dev/null meanwhile: the
    quantizers print progress bars and native logs to stdout, which the parent reads as the
    result."""
    sys.stdout.flush()
    handback = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    return handback


def main(argv: Sequence[str] | None = None) -> int:
    db, workdir = argv if argv is not None else sys.argv[1:]
    signal.signal(signal.SIGTERM, _interrupt)  # the parent's cancel cleans up like Ctrl-C
    handback = _keep_stdout()
    try:
        options = OptimizeOptions.from_json(sys.stdin.read())
        from perftui.domain.forms.options import parse_shapes
        from perftui.optimize.project import make_int8
        from perftui.store import Store

        made = make_int8(
            Store(Path(db)),
            options.project,
            Path(workdir),
            method=options.method,  # make_int8 checks it
            calibration=options.calibration,
            samples=options.samples,
            name=options.name,
            shapes=parse_shapes(options.shapes),
            seed=options.seed or 0,
            progress=_progress,
            warn=_warn,
        )
    except KeyboardInterrupt:
        sys.stderr.write("perftui: optimize cancelled; nothing was saved\n")
        return Exit.CANCELLED
    except (InputError, StoreError) as error:
        sys.stderr.write(f"perftui: error: {error}\n")
        return Exit.BAD_INPUT
    except Exception as error:  # a bug: one line, the traceback on request
        if os.environ.get("PERFTUI_DEBUG"):
            raise
        sys.stderr.write(
            f"perftui: internal error: {type(error).__name__}: {error} "
            "(set PERFTUI_DEBUG=1 for the traceback)\n"
        )
        return Exit.RUN_FAILED
    json.dump(made.handback(), handback)
    handback.write("\n")
    handback.flush()
    return Exit.OK


if __name__ == "__main__":
    from perftui.processes import die_with_parent

    die_with_parent()  # a worker never outlives the process that reads it
    sys.exit(main())
