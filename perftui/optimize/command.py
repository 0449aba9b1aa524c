"""`perftui optimize PROJECT`: the INT8 version of a project, with its accuracy cost.

Progress goes to stderr, one line per step, so a parent process (the dashboard) can follow it:
``preparing``, ``calibrating I/N`` (static), ``quantizing``, ``checking accuracy I/N``,
``saving``; a warning line starts with ``perftui: warning:``. Stdout gets a short report, or
with ``--json`` one document::

    {"project", "source", "model", "method": "static"|"dynamic",
     "calibration": "folder"|"random", "samples": int (calibration samples; for dynamic,
     the accuracy inputs), "warning": str|null,
     "accuracy": {"inputs": "calibration"|"held-out", "samples", "max_abs_diff",
                  "mean_abs_diff", "cosine_similarity", "top1_agreement": float|null,
                  "outputs": [{"name", "shape", "elements", "max_abs_diff", "mean_abs_diff",
                               "cosine_similarity", "cosine_min", "top1_agreement",
                               "top1_matches", "top1_rows"}]}}

Exit status: 0 done, 2 bad input or a model that fails to quantize (one line on stderr; nothing
is left behind), 130 cancelled (SIGINT/SIGTERM; nothing is left behind).

This module imports only the standard library at load time, so wiring it into `perftui.cli`
keeps `perftui --help` fast.
"""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perftui.optimize.project import OptimizeResult

EPILOG = (
    "Calibration folder: one sample per entry, in name order: NAME.npy (one array, single-input"
    " models), NAME.npz (an array per input name) or NAME/ (INPUT.npy per input). Arrays have"
    " the input's shape at batch 1, with or without the batch dimension, or [N,...] for N"
    " samples where the batch is dynamic. Without --calibration, seeded random data is used and"
    " the accuracy figures are only a consistency check. The INT8 model is saved in a models"
    " folder next to the database."
)


def add_parser(command_factory: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """Add the `optimize` sub-command with `perftui.cli`'s factory: command(name, help)."""
    p = command_factory(
        "optimize", "make the INT8 version of a project (ONNX Runtime) and check its accuracy"
    )
    p.epilog = EPILOG
    p.add_argument("project", help="the FP32 project to quantize (its model must be ONNX)")
    p.add_argument(
        "--method",
        choices=("static", "dynamic"),
        default="static",
        help="static: QDQ, calibrated (default); dynamic: int8 weights, activations quantized"
        " at run time, no calibration",
    )
    p.add_argument("--calibration", metavar="DIR", help="folder of .npy/.npz samples (see below)")
    p.add_argument(
        "--samples",
        type=int,
        metavar="N",
        help="use the first N samples of the folder (default: all), or N random samples"
        " (default: 16)",
    )
    p.add_argument("--name", help="name of the new project (default: PROJECT-int8[-dynamic])")
    p.add_argument(
        "--shape",
        action="append",
        default=[],
        help="static shape for a dynamic input, e.g. input_ids[1,128] (batch becomes 1)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random samples")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def _progress_line(phase: str, done: int, total: int) -> None:
    sys.stderr.write(f"{phase} {done}/{total}\n" if total else f"{phase}\n")
    sys.stderr.flush()


def _warn(text: str) -> None:
    sys.stderr.write(f"perftui: warning: {text}\n")
    sys.stderr.flush()


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


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
        f"{project.name}: {result.method} INT8 of {source.name}"
        f" on {project.engine}/{project.device}",
        f"model: {project.model}",
        f"calibration: {calibration}",
        f"accuracy on {where}: {accuracy.summary()}",
    ]
    if len(accuracy.outputs) > 1:
        for out in accuracy.outputs:
            top1 = "" if out.top1_agreement is None else f", top-1 {100 * out.top1_agreement:.0f}%"
            lines.append(
                f"  {out.name}: max |diff| {out.max_abs_diff:.3g}, mean |diff|"
                f" {out.mean_abs_diff:.3g}, cosine {out.cosine_similarity:.4f}{top1}"
            )
    if result.warning:
        lines.append(f"warning: {result.warning}")
    lines.append(
        f"next: perftui bench {q(project.model)} --project {q(project.name)}"
        f" --engine {project.engine} --device {q(project.device)} --profile"
        f" && perftui compare {q(source.name)} {q(project.name)}"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run `perftui optimize` from parsed arguments; the exit status."""
    from perftui.cli import EXIT_CANCELLED, EXIT_OK, open_store, print_json
    from perftui.domain.options import parse_shapes
    from perftui.optimize.project import optimize_project

    shapes = parse_shapes(args.shape)
    store = open_store(args)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM) if main_thread else None
    if main_thread:  # SIGTERM (the dashboard's cancel) cleans up like Ctrl-C
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        result = optimize_project(
            store,
            args.project,
            method=args.method,
            calibration=args.calibration,
            samples=args.samples,
            name=args.name,
            shapes=shapes,
            seed=args.seed,
            progress=_progress_line,
            warn=_warn,
        )
    except KeyboardInterrupt:
        sys.stderr.write("perftui: optimize cancelled; nothing was saved\n")
        return EXIT_CANCELLED
    finally:
        if main_thread and previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if args.json:
        print_json(result.to_dict())
    else:
        print(report_text(result))
    return EXIT_OK
