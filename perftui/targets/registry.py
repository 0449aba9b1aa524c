"""The named SSH targets, kept in a small JSON file beside the results database.

A file of its own (not a table of the store) because a target is configuration, not a
result: it is never exported, and `targets add` must work while a benchmark holds the store.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from perftui.atomic import atomic_write_bytes
from perftui.domain.errors import InputError
from perftui.domain.limits import parse_price
from perftui.domain.records import LOCAL

"""The name of this machine as a target; never stored."""
DEFAULT_PYTHON = "python3"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_DESTINATION = re.compile(
    r"(?:ssh://)?(?:[A-Za-z0-9_][A-Za-z0-9._-]{0,63}@)?"
    r"(?:[A-Za-z0-9_][A-Za-z0-9._-]{0,252}|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?"
)
"""An ~/.ssh/config alias, host, user@host or ssh://user@host:port: nothing a shell or ssh
would read as more than a destination (no ';', '$(', spaces, newlines, a leading '-')."""
_PYTHON = re.compile(r"[A-Za-z0-9_~./+-]{1,4096}")


@dataclass(frozen=True)
class Target:
    name: str
    destination: str
    """What `ssh` is given: a ~/.ssh/config alias, host, user@host or ssh://user@host:port."""
    python: str = DEFAULT_PYTHON
    """The interpreter on the host that has perftui (a venv's bin/python)."""
    price_per_hour: float | None = None
    """What an hour of the host costs (None: not given); recorded with each run."""


def targets_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.stem + ".targets.json")


class TargetBook:
    def __init__(self, db_path: Path) -> None:
        self.path = targets_path(db_path)

    def all(self) -> list[Target]:
        return self._read()[0]

    def _read(self) -> tuple[list[Target], float | None]:
        """The targets and this machine's price per hour."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            local = data.get("local", {}).get("price_per_hour")
            return [_checked(Target(**item)) for item in data["targets"]], (
                None if local is None else parse_price(local)
            )
        except FileNotFoundError:
            return [], None
        except (OSError, ValueError, KeyError, TypeError, AttributeError, InputError) as error:
            raise InputError(f"cannot read the targets file {self.path}: {error}") from None

    def price(self, name: str) -> float | None:
        """The price per hour of a target or of this machine (LOCAL); None when not given."""
        if name == LOCAL:
            return self._read()[1]
        return self.get(name).price_per_hour

    def set_price(self, name: str, price: float | None) -> None:
        """Set (None: forget) the price per hour of a target or of this machine."""
        if price is not None:
            price = parse_price(price)
        targets, local = self._read()
        if name == LOCAL:
            local = price
        else:
            target = self.get(name)
            targets = [replace(t, price_per_hour=price) if t == target else t for t in targets]
        self._write(targets, local)

    def get(self, name: str) -> Target:
        for target in self.all():
            if target.name == name:
                return target
        names = ", ".join(t.name for t in self.all()) or "none yet (perftui targets add)"
        raise InputError(f"no target named {name!r}; targets: {names}")

    def add(self, target: Target) -> None:
        _checked(target)
        existing = self.all()
        if any(t.name == target.name for t in existing):
            raise InputError(f"target {target.name!r} exists; remove it first")
        self._write([*existing, target], self._read()[1])

    def remove(self, name: str) -> None:
        self.get(name)
        targets, local = self._read()
        self._write([t for t in targets if t.name != name], local)

    def _write(self, targets: list[Target], local_price: float | None) -> None:
        document: dict[str, object] = {"targets": [asdict(t) for t in targets]}
        if local_price is not None:
            document["local"] = {"price_per_hour": local_price}
        refused = InputError(
            f"the targets file {self.path} is read-only; it was left untouched"
            " — make it and its folder writable (chmod u+w) or use --db PATH"
        )
        existing = self.path if self.path.exists() else self.path.parent
        if existing.exists() and not _writable(existing):
            raise refused  # root's writes pass the permissions: refused as the database is
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self.path, json.dumps(document, indent=2).encode("utf-8"))
        except PermissionError:
            raise refused from None
        except OSError as error:
            raise InputError(
                f"cannot write the targets file {self.path}: {error.strerror or error};"
                " it was left untouched"
            ) from None


def _writable(path: Path) -> bool:
    """Whether we may write `path` (a file, or the folder a new file goes in): its
    permissions, and for root (whom they do not stop) its owner's write bit."""
    return os.access(path, os.W_OK) and bool(path.stat().st_mode & stat.S_IWUSR)


def check_name(name: str) -> None:
    if name == LOCAL or not _NAME.fullmatch(name):
        raise InputError(
            f"{name!r} is not a target name: use letters, digits, '.', '_', '-' "
            f"(and not {LOCAL!r}, which is this machine)"
        )


def check_target(target: Target) -> Target:
    """`target` if each of its fields is one a target may have; InputError otherwise."""
    return _checked(target)


def _checked(target: Target) -> Target:
    """`target` if its name, destination and python are each one a target may have (the
    same rule for `targets add` and for the file read back); InputError otherwise."""
    if target.price_per_hour is not None:
        parse_price(target.price_per_hour)
    for field, value in asdict(target).items():
        if field != "price_per_hour" and not isinstance(value, str):
            raise InputError(f"target {field} {value!r} is not text")
    check_name(target.name)
    if not _DESTINATION.fullmatch(target.destination):
        raise InputError(
            f"{target.destination!r} is not an SSH destination: give an ~/.ssh/config alias,"
            " host, user@host or ssh://user@host:port"
        )
    if not _PYTHON.fullmatch(target.python) or target.python.startswith("-"):
        raise InputError(
            f"--python {target.python!r}: give the path of the python that has perftui there"
        )
    return target
