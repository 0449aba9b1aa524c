"""ARCHITECTURE.md stays true: every module and stylesheet it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = {".venv", ".venv-ci", ".venv-corpus", ".git", ".corpus", "__pycache__"}


def test_every_file_the_architecture_names_exists():
    text = (ROOT / "ARCHITECTURE.md").read_text()
    named = set(re.findall(r"[A-Za-z_][\w/]*\.(?:py|tcss)\b", text))
    files = [
        p.relative_to(ROOT).as_posix()
        for p in ROOT.rglob("*")
        if p.suffix in (".py", ".tcss") and not SKIP & set(p.relative_to(ROOT).parts)
    ]
    names = {Path(f).name for f in files}
    missing = [
        n
        for n in sorted(named)
        if not (any(f.endswith(n) for f in files) if "/" in n else n in names)
    ]
    assert not missing, f"ARCHITECTURE.md names files that do not exist: {missing}"
