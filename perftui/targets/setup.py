"""`perftui targets setup`: this perftui, installed into a virtual environment on a target.

perftui is not on a package index, so the wheel is built here from this checkout and copied
over; pip on the host installs it and fetches its dependencies from the host's own index
(`pip_args` adds options: a mirror, --find-links of a wheel folder, ...).
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import perftui
from perftui.targets.registry import Target
from perftui.targets.ssh import TargetError, last_line, run_remote

INSTALL_TIMEOUT_S = 1800.0
CACHE = '"${XDG_CACHE_HOME:-$HOME/.cache}/perftui"'
"""The host's perftui cache folder, as its shell spells it."""
SOURCE_FILES = ("pyproject.toml", "README.md")
"""What the build needs beside the package (the readme is the package's description)."""


def source_root() -> Path:
    """The checkout this perftui runs from; TargetError if it is not one (an installed wheel)."""
    root = Path(perftui.__file__).resolve().parents[1]
    if not (root / "pyproject.toml").is_file():
        raise TargetError(
            f"targets setup builds perftui from its source checkout; {root} is not one: "
            "run it from a checkout of perftui"
        )
    return root


def build_wheel(folder: Path) -> Path:
    """This checkout as a wheel in `folder` (pip fetches the build backend, setuptools); built
    from a copy, so the checkout gets no build folders."""
    root, source = source_root(), folder / "source"
    shutil.copytree(
        root / "perftui", source / "perftui", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in SOURCE_FILES:
        shutil.copy2(root / name, source / name)
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q"]
    done = subprocess.run(
        [*pip, "-w", str(folder), str(source)],
        capture_output=True,
        text=True,
    )
    wheels = sorted(folder.glob("perftui-*.whl"))
    if done.returncode != 0 or not wheels:
        raise TargetError(f"cannot build the perftui wheel: {last_line(done.stderr)}")
    return wheels[0]


def setup_target(
    target: Target,
    base_python: str,
    pip_args: Sequence[str] = (),
    notify: Callable[[str], None] = lambda _: None,
) -> str:
    """Install this perftui into ~/.cache/perftui/venv-VERSION on the target (created with
    `base_python` there) and return that venv's python."""
    version = perftui.__version__
    with tempfile.TemporaryDirectory(prefix="perftui-wheel-") as temp:
        notify("building the perftui wheel of this checkout")
        wheel = build_wheel(Path(temp))
        notify(f"copying {wheel.name} to {target.name}")
        remote_wheel = f"{CACHE}/{wheel.name}"
        run_remote(target, ["sh", "-c", f"mkdir -p {CACHE} && cat > {remote_wheel}"], wheel)
    venv = f"{CACHE}/venv-{version}"
    pip = " ".join(shlex.quote(arg) for arg in pip_args)
    notify(f"installing perftui {version} and its dependencies on {target.name} (pip)")
    script = (
        f"set -e; {shlex.quote(base_python)} -m venv {venv}; "
        f"{venv}/bin/python -m pip install -q --disable-pip-version-check {pip} {remote_wheel}; "
        f'cd {venv} && echo "$PWD/bin/python"'
    )
    answer = run_remote(target, ["sh", "-c", script], timeout_s=INSTALL_TIMEOUT_S)
    return answer.strip().splitlines()[-1]
