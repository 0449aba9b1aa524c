"""`perftui devices`: the engines and the devices they report on this machine."""

from __future__ import annotations

import argparse

from perftui.cli.common import Command, CommandFactory, Exit, print_json


def add_parsers(command: CommandFactory) -> None:
    devices = command("devices", "engines and the devices they report on this machine")
    devices.add_argument("--json", action="store_true")


def cmd_devices(args: argparse.Namespace) -> int:
    from perftui.engines import ENGINES, get_engine

    found = {}
    for name in ENGINES:
        engine = get_engine(name)
        found[name] = {"version": engine.version(), "devices": engine.devices()}
    if args.json:
        print_json({"engines": found})
    else:
        for name, info in found.items():
            print(f"{name} {info['version']}: {', '.join(info['devices'])}")
    return Exit.OK


COMMANDS: dict[str, Command] = {"devices": cmd_devices}
