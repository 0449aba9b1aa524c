"""Issue 12, 12: the README's quick start works on an externally-managed system Python (it
installs into a virtual environment) and runs the tests the way CI does (.ci/run)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quick_start() -> list[list[list[str]]]:
    """The quick start's commands, each split at `&&` into words."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    return [[shlex.split(part) for part in line.split("&&")] for line in lines]


def ci_step(name: str) -> list[str]:
    """The words of one `step NAME ...` line of .ci/run."""
    for line in (ROOT / ".ci" / "run").read_text().splitlines():
        if line.startswith(f'step "{name}" '):
            return shlex.split(line.split("||")[0])[2:]
    raise AssertionError(f"no step {name!r} in .ci/run")


def test_two_commands_each_in_a_virtual_environment():
    commands = quick_start()
    assert len(commands) == 2
    for parts in commands:
        assert parts[0][:3] == ["python3", "-m", "venv"]
        assert parts[1] == [".", ".venv/bin/activate"]  # every later python3 is the venv's
        assert any(p[:4] == ["python3", "-m", "pip", "install"] for p in parts[2:])


def test_the_test_command_is_the_one_ci_runs():
    tests = quick_start()[1]
    assert tests[-1] == ci_step("tests")
    assert tests[-2] == ci_step("install")
