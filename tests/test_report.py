"""`perftui report`: a project or a comparison as Markdown tables or one self-contained HTML
file, built once (perftui.domain.report.document) and rendered twice."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tui.conftest import fill_store


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "r.json"
    fill_store(path)
    return path


def report(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "perftui", "report", *args, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_project_report_as_markdown_tables(db: Path):
    done = report(db, "net-fp32")
    assert done.returncode == 0, done.stderr
    md = done.stdout
    assert md.startswith("# perftui report: net-fp32")
    assert "| CPU | Test CPU @ 3.0GHz |" in md and "4 physical, 8 logical" in md
    rows = [line for line in md.splitlines() if line.startswith("| b")]
    assert any("| 540.0 |" in row and "noisy" in row for row in rows)  # figure and verdict
    for block in re.findall(r"(?:^\|.*\|\n)+", md, re.M):  # every table well formed
        lines = block.splitlines()
        assert re.fullmatch(
            r"\| (-{3}:?|-{3})( \| (-{3}:?|-{3}))* \|", lines[1].replace("---:", "---")
        )
        assert len({line.count(" | ") for line in lines}) == 1


def test_comparison_as_one_offline_html_file(db: Path, tmp_path: Path):
    out = tmp_path / "cmp.html"
    done = report(db, "net-fp32", "net-int8", "--threshold", "10", "-o", str(out))
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") >= 2
    assert "sweet spot" in html and "Sweet spot at median latency ≤ 10 ms: net-int8" in html
    assert "<script" not in html and not re.search(r"(src|href)=|https?://|@import", html)


def test_bad_input_is_one_line_and_exit_2(db: Path):
    done = report(db, "nope")
    assert done.returncode == 2 and "no project named 'nope'" in done.stderr
    assert report(db, "net-fp32", "--format", "pdf").returncode == 2
