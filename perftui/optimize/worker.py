"""The child process of optimize: makes the INT8 model and hands the result back; it only
reads the store (ARCHITECTURE.md rule 2: perftui.optimize.runner, its parent, stores the result).

    python -m perftui.optimize.worker DB WORKDIR < options.json

stdin: perftui.optimize.runner.OptimizeOptions as JSON. The model is made in WORKDIR, a
folder of the parent. stdout: the workers' JSON-lines events (perftui.bench.protocol):
steps (``calibrating`` 3 of 16), warnings, and at the end the hand-back
(`OptimizeResult.handback()`, exit 0) or a fatal event (bad input, exit 2; an internal
error, exit 1). On SIGINT or SIGTERM: ``perftui: optimize cancelled; nothing was saved`` on
stderr, exit 130. What the quantizers print goes to stderr.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from perftui.bench import protocol
from perftui.domain.errors import InputError, StoreError
from perftui.optimize.runner import OptimizeOptions
from perftui.processes import Exit


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    db, workdir = argv if argv is not None else sys.argv[1:]
    signal.signal(signal.SIGTERM, _interrupt)  # the parent's cancel cleans up like Ctrl-C
    emit = protocol.event_writer()

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
            progress=lambda phase, done, total: emit(protocol.Step(phase, done, total)),
            warn=lambda text: emit(protocol.OptimizeWarning(text)),
        )
    except KeyboardInterrupt:
        sys.stderr.write("perftui: optimize cancelled; nothing was saved\n")
        return Exit.CANCELLED
    except (InputError, StoreError) as error:
        emit(protocol.Fatal(str(error)))
        return Exit.BAD_INPUT
    except Exception as error:  # a bug: one line, the traceback on request
        if os.environ.get("PERFTUI_DEBUG"):
            raise
        emit(
            protocol.Fatal(
                f"internal error: {type(error).__name__}: {error} "
                "(set PERFTUI_DEBUG=1 for the traceback)"
            )
        )
        return Exit.RUN_FAILED
    emit(protocol.Handback(made.handback()))
    return Exit.OK


if __name__ == "__main__":
    from perftui.processes import die_with_parent

    die_with_parent()  # a worker never outlives the process that reads it
    sys.exit(main())
