"""The named SSH targets, kept in a small JSON file beside the results database.

A file of its own (not a table of the store) because a target is configuration, not a
result: it is never exported, and `targets add` must work while a benchmark holds the store.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from perftui.domain.errors import InputError
from perftui.store.files import atomic_write_bytes

LOCAL = "local"
"""The name of this machine as a target; never stored."""
DEFAULT_PYTHON = "python3"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass(frozen=True)
class Target:
    name: str
    destination: str
    """What `ssh` is given: a ~/.ssh/config alias, host, user@host or ssh://user@host:port."""
    python: str = DEFAULT_PYTHON
    """The interpreter on the host that has perftui (a venv's bin/python)."""


def targets_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.stem + ".targets.json")


class TargetBook:
    def __init__(self, db_path: Path) -> None:
        self.path = targets_path(db_path)

    def all(self) -> list[Target]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return [Target(**item) for item in data["targets"]]
        except FileNotFoundError:
            return []
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise InputError(f"cannot read the targets file {self.path}: {error}") from None

    def get(self, name: str) -> Target:
        for target in self.all():
            if target.name == name:
                return target
        names = ", ".join(t.name for t in self.all()) or "none yet (perftui targets add)"
        raise InputError(f"no target named {name!r}; targets: {names}")

    def add(self, target: Target) -> None:
        check_name(target.name)
        if not target.destination.strip() or target.destination.startswith("-"):
            raise InputError(f"{target.destination!r} is not an SSH destination")
        if not target.python.strip():
            raise InputError("--python: give the path of the python that has perftui there")
        existing = self.all()
        if any(t.name == target.name for t in existing):
            raise InputError(f"target {target.name!r} exists; remove it first")
        self._write([*existing, target])

    def remove(self, name: str) -> None:
        self.get(name)
        self._write([t for t in self.all() if t.name != name])

    def _write(self, targets: list[Target]) -> None:
        document = {"targets": [asdict(t) for t in targets]}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.path, json.dumps(document, indent=2).encode("utf-8"))


def check_name(name: str) -> None:
    if name == LOCAL or not _NAME.fullmatch(name):
        raise InputError(
            f"{name!r} is not a target name: use letters, digits, '.', '_', '-' "
            f"(and not {LOCAL!r}, which is this machine)"
        )
