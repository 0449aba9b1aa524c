"""What a target has: reachable? its perftui, engines and CPU (the environment runs record)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import perftui
from perftui.targets.registry import LOCAL, Target
from perftui.targets.ssh import PROBE_TIMEOUT_S, TargetError, run_python

PROBE = """
import json, sys
try:
    from perftui.bench.environment import environment
except ImportError as error:
    print(json.dumps({"missing": str(error), "python": sys.version.split()[0]}))
else:
    found = {"environment": environment()}
    if sys.argv[1:] == ["devices"]:
        found["devices"] = {}
        try:
            from perftui.engines import ENGINES, get_engine
        except ImportError:  # another version of perftui there: its version says so
            ENGINES = ()
        for name in ENGINES:
            try:
                found["devices"][name] = get_engine(name).devices()
            except Exception:  # an engine (or numpy) not installed there, or broken
                found["devices"][name] = []
    print(json.dumps(found))
"""
"""Runs on the host with only the standard library, so it also reports a host without perftui;
with "devices", each engine's own device list there (loading the engines: a second or so)."""


@dataclass(frozen=True)
class Probe:
    target: Target
    environment: dict[str, Any] | None = None
    error: str | None = None
    reachable: bool = True
    devices: dict[str, list[str]] | None = None
    """Each engine's devices on the host (probed with devices=True), else None."""

    @property
    def ready(self) -> bool:
        return self.error is None


def install_hint(target: Target) -> str:
    version = perftui.__version__
    return (
        f"perftui is not installed for {target.python} on {target.name}: install it there "
        f"(perftui targets setup {target.name}, or {target.python} -m pip install "
        f"perftui=={version} in a venv), or name the python that has it: perftui targets add "
        f"NAME {target.destination} --python PATH"
    )


def probe(target: Target, devices: bool = False) -> Probe:
    """Never raises: what went wrong is the probe's `error` line. `devices`: also each
    engine's device list, probed there; a target named LOCAL is this machine (its python
    in a child, so the engines never load in this process)."""
    args = ["-c", PROBE, *(["devices"] if devices else [])]
    try:
        answer = json.loads(_answer(target, args).strip().splitlines()[-1])
    except TargetError as error:
        return Probe(target, error=str(error), reachable=not error.unreachable)
    except (ValueError, IndexError):
        return Probe(target, error=f"target {target.name}: {target.python} gave no answer")
    if "missing" in answer:
        return Probe(target, error=install_hint(target))
    env = dict(answer["environment"])
    return Probe(target, env, version_error(target, env), devices=answer.get("devices"))


def this_machine(price_per_hour: float | None = None) -> Target:
    """This machine as a target: probed by this process's python, never over SSH."""
    return Target(LOCAL, "this machine", sys.executable, price_per_hour)


def _answer(target: Target, args: list[str]) -> str:
    if target.name != LOCAL:
        return run_python(target, args)
    try:
        done = subprocess.run(
            [sys.executable, *args], capture_output=True, text=True, timeout=PROBE_TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        raise TargetError(f"this machine's probe took over {PROBE_TIMEOUT_S:.0f} s") from None
    return done.stdout


def version_error(target: Target, environment: dict[str, Any]) -> str | None:
    """Why the target's perftui cannot run this one's benchmarks (None: the same version)."""
    if environment.get("perftui") == perftui.__version__:
        return None
    return (
        f"target {target.name} has perftui {environment.get('perftui')}, this is "
        f"{perftui.__version__}: install the same version there (perftui targets setup "
        f"{target.name})"
    )


def ready_environment(target: Target) -> dict[str, Any]:
    """The target's environment (with its name); TargetError if it cannot run a benchmark."""
    found = probe(target)
    if found.error is not None or found.environment is None:
        raise TargetError(found.error or f"target {target.name}: no environment")
    return {**found.environment, "target": target.name}
