"""`perftui inspect MODEL`: inputs, outputs, operators, parameters and FLOPs."""

from __future__ import annotations

import argparse
from pathlib import Path

from perftui.cli.common import CliError, Command, CommandFactory, Exit, print_json


def add_parsers(command: CommandFactory) -> None:
    inspect = command("inspect", "inputs, outputs, operators, parameters and FLOPs of a model")
    inspect.add_argument("model")
    inspect.add_argument(
        "--shape",
        action="append",
        default=[],
        help="bind dynamic dimensions for the FLOPs: seq=128, input_ids[1,128] or [1,128]",
    )
    inspect.add_argument("--json", action="store_true")


def cmd_inspect(args: argparse.Namespace) -> int:
    from perftui.cli.textfmt import model_info_text
    from perftui.domain.forms.options import parse_shapes
    from perftui.inspection import inspect_model

    shapes = parse_shapes(args.shape)
    several = next((name for name, values in shapes.dims.items() if len(values) > 1), None)
    if several:
        raise CliError(f"--shape {several}=...: inspect takes one value per dimension")
    info = inspect_model(str(Path(args.model).expanduser()), shapes)
    if args.json:
        print_json(info.to_dict())
    else:
        print(model_info_text(info))
    return Exit.OK


COMMANDS: dict[str, Command] = {"inspect": cmd_inspect}
