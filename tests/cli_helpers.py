"""Running the real `perftui` entry point in a subprocess, as a person or a script would."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

QUICK = ["--time", "0.2", "--iterations", "5", "--warmup", "1"]


def perftui(
    *args: str, db: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if db is not None:
        env["PERFTUI_DB"] = str(db)
    return subprocess.run(
        [sys.executable, "-m", "perftui", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def bench_json(*args: str, db: Path | None = None) -> dict[str, Any]:
    result = perftui("bench", *args, *QUICK, "--json", db=db)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def one_error_line(result: subprocess.CompletedProcess) -> str:
    """The refusal a person sees: exit 2, a single line, no traceback."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def long_and_short(db: Path) -> None:
    """Projects `long` and `short` of the shipped encoder (ONNX Runtime, one thread): `long`
    runs a sequence four times as long as `short`'s, so it is far slower."""
    from tests.conftest import ENCODER

    for name, seq in (("long", 128), ("short", 32)):
        bench_json(
            str(ENCODER), "--engine", "onnxruntime", "--threads", "1", "--shape", f"seq={seq}",
            "--project", name, db=db,
        )  # fmt: skip


def table_column(lines: list[str], name: str) -> list[str]:
    """The cells of column `name` of a CLI table (a header, a row of dashes, the rows), cut
    by the dashes' spans, so a label with more or fewer words moves no other column."""
    header, dashes, *rows = lines
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", dashes)]
    names = [header[start:end].strip() for start, end in spans]
    start, end = spans[names.index(name)]
    return [row[start:end].strip() for row in rows]
