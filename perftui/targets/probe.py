"""What a target has: reachable? its perftui, engines and CPU (the environment runs record)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import perftui
from perftui.targets.registry import Target
from perftui.targets.ssh import TargetError, run_python

PROBE = """
import json, sys
try:
    from perftui.bench.environment import environment
except ImportError as error:
    print(json.dumps({"missing": str(error), "python": sys.version.split()[0]}))
else:
    print(json.dumps({"environment": environment()}))
"""
"""Runs on the host with only the standard library, so it also reports a host without perftui."""


@dataclass(frozen=True)
class Probe:
    target: Target
    environment: dict[str, Any] | None = None
    error: str | None = None
    reachable: bool = True

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


def probe(target: Target) -> Probe:
    """Never raises: what went wrong is the probe's `error` line."""
    try:
        answer = json.loads(run_python(target, ["-c", PROBE]).strip().splitlines()[-1])
    except TargetError as error:
        return Probe(target, error=str(error), reachable=not error.unreachable)
    except (ValueError, IndexError):
        return Probe(target, error=f"target {target.name}: {target.python} gave no answer")
    if "missing" in answer:
        return Probe(target, error=install_hint(target))
    env = dict(answer["environment"])
    return Probe(target, env, version_error(target, env))


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
