"""`perftui optimize PROJECT`: the INT8 version of a project, with its accuracy cost.

Progress goes to stderr, one line per step, so a parent process (the dashboard) can follow it:
``preparing``, ``calibrating I/N`` (static), ``quantizing``, ``checking on ENGINE`` (the INT8
model compiled and run once on the project's engine and device), ``checking accuracy I/N``,
``saving``; a warning line starts with ``perftui: warning:``. Stdout gets a short report, or
with ``--json`` one document::

    {"project", "source", "model", "method": "static"|"dynamic",
     "calibration": "folder"|"random", "samples": int (calibration samples; for dynamic,
     the accuracy inputs), "warning": str|null, "tool": "onnxruntime"|"nncf",
     "changes": [str] (what the recipe changed or chose), "shapes": str (--shape for
     benchmarking the INT8 project, "" if it needs none),
     "accuracy": {"inputs": "calibration"|"held-out", "samples", "max_abs_diff",
                  "mean_abs_diff", "cosine_similarity", "top1_agreement": float|null,
                  "caution": str|null (outputs that stray from FP32's, in words),
                  "outputs": [{"name", "shape", "elements", "max_abs_diff", "mean_abs_diff",
                               "cosine_similarity", "cosine_min", "top1_agreement",
                               "top1_matches", "top1_rows"}]}}

Exit status: 0 done, 2 bad input, a model that fails to quantize, or an INT8 model that does not
run on the project's engine (one line on stderr; nothing is left behind), 130 cancelled
(SIGINT/SIGTERM; nothing is left behind).

The work runs in a child process (perftui.optimize.worker) that only reads the store; this
process stores the new project (perftui.optimize.runner). This module imports only the
standard library and the runner at load time, so `perftui --help` stays fast.
"""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
from typing import TYPE_CHECKING

from perftui.cli.common import (
    CliError,
    Command,
    CommandFactory,
    Exit,
    checked_flag,
    db_path,
    print_json,
)
from perftui.domain.limits import DEFAULT_RANDOM_SAMPLES
from perftui.domain.names import int8_name
from perftui.domain.records import METHODS

if TYPE_CHECKING:
    from perftui.optimize.project import OptimizeResult

EPILOG = (
    "Calibration folder: one sample per entry, in name order: NAME.npy (one array, single-input"
    " models), NAME.npz (an array per input name) or NAME/ (INPUT.npy per input). Arrays have"
    " the input's shape at batch 1, with or without the batch dimension, or [N,...] for N"
    " samples where the batch is dynamic. Without --calibration, seeded random data is used and"
    " the accuracy figures are only a consistency check. OpenVINO projects are quantized with"
    " NNCF into OpenVINO IR, ONNX Runtime projects with ONNX Runtime's tools; the INT8 model"
    " is run on the project's engine and device before it is saved, in a models folder next"
    " to the database."
)


def add_parsers(command: CommandFactory) -> None:
    p = command(
        "optimize", "make the INT8 version of a project and check its accuracy on its engine"
    )
    p.epilog = EPILOG
    p.add_argument("project", help="the FP32 project to quantize")
    p.add_argument(
        "--method",
        choices=METHODS,
        default=METHODS[0],
        help="static: calibrated INT8 (default); dynamic: int8 weights only, no calibration",
    )
    p.add_argument("--calibration", metavar="DIR", help="folder of .npy/.npz samples (see below)")
    p.add_argument(
        "--samples",
        type=int,
        metavar="N",
        help="use the first N samples of the folder (default: all), or N random samples"
        f" (default: {DEFAULT_RANDOM_SAMPLES})",
    )
    p.add_argument(
        "--name",
        help=f"name of the new project (default: {int8_name('PROJECT', 'static')}"
        f" or {int8_name('PROJECT', 'dynamic')})",
    )
    p.add_argument(
        "--shape",
        action="append",
        default=[],
        help="bind dynamic dimensions, e.g. seq=128 or input_ids[1,128] (batch becomes 1;"
        " default: the shapes of the project's last benchmark)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random samples")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def report_text(result: OptimizeResult) -> str:
    """The human report of an `OptimizeResult`."""
    project, source, accuracy = result.project, result.source, result.accuracy
    q = shlex.quote
    used = f"{result.samples}"
    if result.available > result.samples:
        used += f" of {result.available}"
    if result.calibration == "folder":
        calibration = f"{used} samples from {result.folder}"
        where = f"the {accuracy.samples} calibration samples"
    else:
        calibration = f"{used} seeded random samples"
        where = f"{accuracy.samples} held-out random samples"
    if result.method == "dynamic":
        calibration = f"none needed (dynamic); accuracy inputs: {calibration}"
    lines = [
        f"{project.name}: {result.method} INT8 of {source.name} by {result.tool},"
        f" runs on {project.engine}/{project.device}",
        f"model: {project.model}",
        f"calibration: {calibration}",
        f"accuracy on {where}: {accuracy.summary()}",
    ]
    lines += [f"note: {change}" for change in result.changes]
    if len(accuracy.outputs) > 1:
        for out in accuracy.outputs:
            top1 = "" if out.top1_agreement is None else f", top-1 {100 * out.top1_agreement:.0f}%"
            lines.append(
                f"  {out.name}: max |diff| {out.max_abs_diff:.3g}, mean |diff|"
                f" {out.mean_abs_diff:.3g}, cosine {out.cosine_text()}{top1}"
            )
    if result.warning:
        lines.append(f"warning: {result.warning}")
    if caution := accuracy.caution():
        lines.append(f"caution: {caution}")
    shape = f" --shape {q(result.shapes)}" if result.shapes else ""
    lines.append(
        f"next: perftui bench {q(project.model)} --project {q(project.name)}"
        f" --engine {project.engine} --device {q(project.device)}{shape} --profile"
        f" && perftui compare {q(source.name)} {q(project.name)}"
    )
    return "\n".join(lines)


def cmd_optimize(args: argparse.Namespace) -> int:
    """The work runs in a child (perftui.optimize.worker); this process stores its result."""
    from perftui.domain.forms.options import parse_shapes
    from perftui.domain.limits import check_samples, check_seed
    from perftui.domain.names import check_project_name
    from perftui.optimize.runner import (
        WARNING_PREFIX,
        Finished,
        OptimizeOptions,
        OptimizeProcess,
        Step,
    )

    parse_shapes(args.shape)  # bad input is refused before any child starts
    checked_flag("--seed", check_seed, args.seed)
    checked_flag("--samples", check_samples, args.samples)
    if args.name is not None:
        checked_flag("--name", check_project_name, args.name)
    options = OptimizeOptions(
        project=args.project,
        method=args.method,
        calibration=args.calibration,
        samples=args.samples,
        name=args.name,
        shapes=tuple(args.shape),
        seed=args.seed,
    )
    process = OptimizeProcess(options, db_path(args))
    stop_signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {
        signum: signal.signal(signum, lambda *_: process.cancel()) for signum in stop_signals
    }
    done = Finished("error", Exit.RUN_FAILED, error="the optimize process ended without a result")
    try:
        for event in process.events():
            if isinstance(event, Finished):
                done = event
            else:  # progress on stderr, the lines the worker wrote
                line = event.text if isinstance(event, Step) else WARNING_PREFIX + event.text
                sys.stderr.write(line + "\n")
                sys.stderr.flush()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if done.status == "cancelled":
        sys.stderr.write("perftui: optimize cancelled; nothing was saved\n")
        return Exit.CANCELLED
    if done.status == "error" or process.result is None:
        if done.returncode == Exit.BAD_INPUT:
            raise CliError(done.error)
        sys.stderr.write(f"perftui: error: {done.error}\n")
        return Exit.RUN_FAILED
    if args.json:
        print_json(process.result.to_dict())
    else:
        print(report_text(process.result))
    return Exit.OK


COMMANDS: dict[str, Command] = {"optimize": cmd_optimize}
